package main

import (
	"net/http"
	"testing"
)

// -admin-host names the public host names under which the admin API and
// the console answer besides the loopback ones; any other Host header is
// refused (DNS rebinding).
func TestAdminHostFlag(t *testing.T) {
	t.Parallel()
	s := startRun(t, "-db", ":memory:", "-admin-host", "sandbox.example, other.example")
	for host, want := range map[string]int{
		"sandbox.example": http.StatusOK, "other.example:8080": http.StatusOK, "localhost": http.StatusOK,
		"evil.example": http.StatusForbidden,
	} {
		req, err := http.NewRequest(http.MethodGet, s.base+"/sandbox/fixtures", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Host = host
		req.Header.Set("X-Sandbox-Admin-Key", DefaultAdminKey)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("Host %q: %d, want %d", host, resp.StatusCode, want)
		}
	}
}
