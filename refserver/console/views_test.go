package console

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/refserver/journal"
)

func TestMaskCard(t *testing.T) {
	t.Parallel()
	tests := []struct{ first6, last4, want string }{
		{"411111", "1111", "411111******1111"},
		{"", "4242", "•••• 4242"},
		{"4111", "1111", "•••• 1111"},   // not six digits: only the last four
		{"41111a", "1111", "•••• 1111"}, // not digits
		{"411111", "111", "••••"},
		{"411111", "<b>1", "••••"},
	}
	for _, tt := range tests {
		if got := maskCard(tt.first6, tt.last4); got != tt.want {
			t.Errorf("maskCard(%q, %q) = %q, want %q", tt.first6, tt.last4, got, tt.want)
		}
	}
}

func TestAgo(t *testing.T) {
	t.Parallel()
	tests := []struct {
		t, now int64
		want   string
	}{
		{100, 100, "0s ago"},
		{100, 142, "42s ago"},
		{0, 303, "5m 3s ago"},
		{0, 2*3600 + 5*60 + 9, "2h 5m ago"},
		{0, 3*86400 + 4*3600, "3d 4h ago"},
		{110, 100, "in 10s"},
	}
	for _, tt := range tests {
		if got := ago(tt.t, tt.now); got != tt.want {
			t.Errorf("ago(%d, %d) = %q, want %q", tt.t, tt.now, got, tt.want)
		}
	}
}

func TestJournalViewSubject(t *testing.T) {
	t.Parallel()
	id := func(n int64) *int64 { return &n }
	code := client.CodeForbidden
	e := journal.Entry{Seq: 3, Time: time.Date(2030, 1, 2, 3, 4, 5, 6e6, time.UTC), Method: "POST", Route: "/x", Status: 403,
		ErrorCode: &code, DurationMs: 1.25, Credential: "pos", POSLocationID: id(1), LocationID: id(2)}
	got := newJournalView(e)
	want := journalView{Seq: 3, Time: "03:04:05.006", Method: "POST", Route: "/x", Status: 403, StatusKind: "client-error",
		ErrorCode: "403001", Duration: "1.2 ms", Credential: "pos", Subject: "location 1", LocationID: "2"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
