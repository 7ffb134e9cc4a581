package main

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// Behind mapped ports the server is told the URLs it is reached by: the
// banner prints them, and the sandbox hands them out.
func TestPublicURLFlags(t *testing.T) {
	t.Parallel()
	s := startRun(t, "-db", ":memory:", "-public-url", "http://localhost:18080", "-public-tls-url", "https://localhost:18443")
	out := s.stdout.String()
	for _, want := range []string{"HTTP       http://localhost:18080\n", "HTTPS      https://localhost:18443\n", "http://localhost:18080/console", "http://localhost:18080/sandbox/ca.pem"} {
		if !strings.Contains(out, want) {
			t.Errorf("banner lacks %q:\n%s", want, out)
		}
	}
	req, _ := http.NewRequest(http.MethodGet, s.base+"/sandbox/public-urls", nil)
	req.Header.Set("X-Sandbox-Admin-Key", DefaultAdminKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var got struct{ URL, TLSURL string }
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
		t.Fatal(err)
	}
	if got.URL != "http://localhost:18080" || got.TLSURL != "https://localhost:18443" {
		t.Errorf("GET /sandbox/public-urls: %+v", got)
	}
}
