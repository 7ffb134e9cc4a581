package main

import (
	"net/http"
	"path/filepath"
	"regexp"
	"testing"
)

func TestPprofFlagServesProfilesOnItsOwnListener(t *testing.T) {
	t.Parallel()
	s := startRun(t, "-db", filepath.Join(t.TempDir(), "pprof.db"), "-pprof", "127.0.0.1:0")
	m := regexp.MustCompile(`url=(http://\S+/debug/pprof/)`).FindStringSubmatch(s.stderr.String())
	if m == nil {
		t.Fatalf("no pprof address logged:\n%s", s.stderr)
	}
	if got := getStatus(t, m[1]+"goroutine?debug=1"); got != http.StatusOK {
		t.Errorf("GET %sgoroutine: %d, want 200", m[1], got)
	}
	// The command line (it carries -admin-key) is not served.
	if got := getStatus(t, m[1]+"cmdline"); got == http.StatusOK {
		t.Errorf("GET %scmdline: 200, want it absent", m[1])
	}
	// The API listener does not expose profiles.
	if got := getStatus(t, s.base+"/debug/pprof/goroutine"); got == http.StatusOK {
		t.Errorf("GET /debug/pprof/goroutine on the API listener: 200, want it absent")
	}
}

func TestPprofFlagOffByDefault(t *testing.T) {
	t.Parallel()
	s := startRun(t, "-db", filepath.Join(t.TempDir(), "nopprof.db"))
	if regexp.MustCompile(`pprof`).MatchString(s.stderr.String()) {
		t.Errorf("pprof mentioned without -pprof:\n%s", s.stderr)
	}
}

func getStatus(t *testing.T, url string) int {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}
