package rules

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestCheckSnapshot(t *testing.T) {
	t.Parallel()
	tests := []struct {
		body     string
		wantName string
		wantBad  string // the reason given for "name", "" when valid
	}{
		{`{"name":"venue ready"}`, "venue ready", ""},
		{`{"name":"  padded  "}`, "padded", ""},
		{`{"name":"` + strings.Repeat("é", 100) + `"}`, strings.Repeat("é", 100), ""},
		{`{}`, "", "required"},
		{`{"name":null}`, "", "required"},
		{`{"name":""}`, "", "must not be empty"},
		{`{"name":"   "}`, "", "must not be empty"},
		{`{"name":"` + strings.Repeat("x", 101) + `"}`, "", "must be at most 100 characters"},
		{`{"name":"two\nlines"}`, "", "must not contain control characters"},
	}
	for _, tt := range tests {
		var req SnapshotRequest
		if err := json.Unmarshal([]byte(tt.body), &req); err != nil {
			t.Fatal(err)
		}
		name, err := CheckSnapshot([]byte(tt.body), &req)
		if got := fieldErrors(t, err)["name"]; got != tt.wantBad || name != tt.wantName {
			t.Errorf("%s: name %q, reason %q; want %q, %q", tt.body, name, got, tt.wantName, tt.wantBad)
		}
	}
}
