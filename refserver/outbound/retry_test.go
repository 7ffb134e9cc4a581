package outbound

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestOrderBackoff(t *testing.T) {
	t.Parallel()
	p := orderPolicy(time.Second, 60*time.Second)
	var got []time.Duration
	for n := 1; n <= 9; n++ {
		got = append(got, p.Backoff(n))
	}
	want := []time.Duration{1, 2, 4, 8, 16, 32, 60, 60, 60}
	for i := range want {
		want[i] *= time.Second
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("backoff (-want +got):\n%s", diff)
	}
}

var errFinal = errors.New("refused")

func testPolicy() Policy {
	return Policy{
		MaxTries:  3,
		Base:      time.Second,
		Max:       time.Minute,
		Temporary: func(err error) bool { return !errors.Is(err, errFinal) },
		MaxDetail: 40,
	}
}

func TestJudge(t *testing.T) {
	t.Parallel()
	p := testPolicy()
	down := errors.New("503 Service Unavailable")
	tests := []struct {
		name string
		try  int
		err  error
		want Outcome
	}{
		{"delivered", 2, nil, Outcome{Try: 2}},
		{"temporary", 1, down, Outcome{Try: 1, Err: down, Detail: "try 1: 503 Service Unavailable; next try in 1s", RetryIn: time.Second}},
		{"temporary again", 2, down, Outcome{Try: 2, Err: down, Detail: "try 2: 503 Service Unavailable; next try in 2s", RetryIn: 2 * time.Second}},
		{"last try", 3, down, Outcome{Try: 3, Err: down, Detail: "try 3: 503 Service Unavailable; giving up after 3 tries"}},
		{"final", 1, errFinal, Outcome{Try: 1, Err: errFinal, Detail: "try 1: refused"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := p.Judge(tc.try, tc.err)
			if diff := cmp.Diff(tc.want, got, cmp.Comparer(func(a, b error) bool { return a == b })); diff != "" {
				t.Errorf("Judge (-want +got):\n%s", diff)
			}
		})
	}
}

func TestJudgeCutsLongDetail(t *testing.T) {
	t.Parallel()
	o := testPolicy().Judge(1, errors.New(strings.Repeat("é", 40)))
	detail, _, _ := strings.Cut(o.Detail, "; next try")
	if !strings.HasSuffix(detail, "...") || len(detail) > 40+len("...") || !strings.HasPrefix(detail, "try 1: é") {
		t.Errorf("detail %q", detail)
	}
	if strings.ContainsRune(detail, '\uFFFD') {
		t.Errorf("detail %q splits a character", detail)
	}
}
