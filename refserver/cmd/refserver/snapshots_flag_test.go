package main

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// -max-snapshots reaches the server: with 1, the second save is refused
// with 400002 naming the flag. 0 is refused at start (negative turns the
// bound off).
func TestMaxSnapshotsFlag(t *testing.T) {
	t.Parallel()
	s := startRun(t, "-db", ":memory:", "-max-snapshots", "1")
	save := func() (int, map[string]string) {
		t.Helper()
		req, err := http.NewRequest(http.MethodPost, s.base+"/sandbox/snapshots", strings.NewReader(`{"name": "scene"}`))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Sandbox-Admin-Key", DefaultAdminKey)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var body struct {
			ContextData map[string]string `json:"contextData"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, body.ContextData
	}
	if st, _ := save(); st != http.StatusCreated {
		t.Fatalf("first save: %d", st)
	}
	if st, fields := save(); st != http.StatusBadRequest || !strings.Contains(fields["name"], "-max-snapshots") {
		t.Errorf("second save under -max-snapshots 1: %d %v, want 400 naming the flag", st, fields)
	}
	for _, flag := range []string{"-max-snapshots", "-max-snapshots-bytes"} {
		if _, err := parseFlags([]string{flag, "0"}, io.Discard, envMap(nil)); err == nil || !strings.Contains(err.Error(), "must not be 0") {
			t.Errorf("%s 0: %v, want refused", flag, err)
		}
	}
}
