package client

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestUnixTimeJSON(t *testing.T) {
	t.Parallel()
	var v struct {
		At UnixTime `json:"at"`
	}
	if err := json.Unmarshal([]byte(`{"at":1700000000}`), &v); err != nil {
		t.Fatal(err)
	}
	if want := time.Unix(1700000000, 0).UTC(); !v.At.Equal(want) || v.At.Location() != time.UTC {
		t.Errorf("got %v, want %v", v.At, want)
	}
	b, _ := json.Marshal(v)
	if string(b) != `{"at":1700000000}` {
		t.Errorf("Marshal = %s", b)
	}
	if b, _ := json.Marshal(UnixTime{}); string(b) != "null" {
		t.Errorf("zero = %s, want null", b)
	}
	if err := json.Unmarshal([]byte(`{"at":null}`), &v); err != nil || !v.At.IsZero() {
		t.Errorf("null: %v %v", v.At, err)
	}
	for _, bad := range []string{`"1700000000"`, `1.5`, `true`} {
		var u UnixTime
		if err := json.Unmarshal([]byte(bad), &u); err == nil {
			t.Errorf("Unmarshal(%s) accepted", bad)
		}
	}
}

func TestBillTimeJSON(t *testing.T) {
	t.Parallel()
	var v BillTime
	if err := json.Unmarshal([]byte(`"2026-05-01 09:30:00"`), &v); err != nil {
		t.Fatal(err)
	}
	if want := time.Date(2026, 5, 1, 9, 30, 0, 0, time.UTC); !v.Equal(want) {
		t.Errorf("got %v, want %v", v, want)
	}
	// Marshal converts to UTC.
	local := BillTime{time.Date(2026, 5, 1, 10, 30, 0, 0, time.FixedZone("BST", 3600))}
	if b, _ := json.Marshal(local); string(b) != `"2026-05-01 09:30:00"` {
		t.Errorf("Marshal = %s", b)
	}
	keep := v
	if err := json.Unmarshal([]byte(`null`), &keep); err != nil || !keep.Equal(v.Time) {
		t.Errorf("null: %v %v", keep, err)
	}
	for _, bad := range []string{`"2026-05-01T09:30:00Z"`, `1700000000`, `"2026-13-01 00:00:00"`} {
		var b BillTime
		if err := json.Unmarshal([]byte(bad), &b); err == nil {
			t.Errorf("Unmarshal(%s) accepted", bad)
		}
	}
}

func TestQueryTime(t *testing.T) {
	t.Parallel()
	tests := []struct {
		t    time.Time
		want string
	}{
		{time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC), "2026-05-01T10:00:00Z"},
		{time.Date(2026, 5, 1, 10, 0, 0, 0, time.FixedZone("", 3600)), "2026-05-01T10:00:00+01:00"},
	}
	for _, tt := range tests {
		got := FormatQueryTime(tt.t)
		if got != tt.want {
			t.Errorf("FormatQueryTime = %q, want %q", got, tt.want)
		}
		back, err := ParseQueryTime(got)
		if err != nil || !back.Equal(tt.t) {
			t.Errorf("ParseQueryTime(%q) = %v, %v", got, back, err)
		}
	}
	if _, err := ParseQueryTime("2026-05-01 10:00:00"); err == nil {
		t.Error("ParseQueryTime accepted a time without offset")
	}
}

func TestRequestInfoJSON(t *testing.T) {
	t.Parallel()
	var ri RequestInfo
	in := `{"accessTokenStatus":"authenticated","serverTime":1700000000,"requestId":null,"apiVersion":3}`
	if err := json.Unmarshal([]byte(in), &ri); err != nil {
		t.Fatal(err)
	}
	want := RequestInfo{AccessTokenStatus: "authenticated", ServerTime: 1700000000, APIVersion: 3}
	if diff := cmp.Diff(want, ri); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if !ri.Time().Equal(time.Unix(1700000000, 0)) {
		t.Errorf("Time = %v", ri.Time())
	}
	b, _ := json.Marshal(ri)
	if string(b) != in {
		t.Errorf("Marshal = %s, want %s (requestId must stay null)", b, in)
	}
}
