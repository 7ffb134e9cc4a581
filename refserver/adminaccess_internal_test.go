package refserver

import (
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/internal/syncbuf"
)

// Wrong admin keys are limited per client address, and each is logged
// without the key. Once an address has used its allowance, even the right
// key is refused (a guesser would otherwise learn which guess is right),
// at the console's login form too.
func TestAdminKeyGuessingLimited(t *testing.T) {
	t.Parallel()
	var buf syncbuf.Buffer
	// The allowance grows back one key a second of real time: the test's
	// time stands still, so that a slow machine does not earn a guess back.
	start := time.Now()
	ts := newTestServer(t, func(c *Config) {
		c.Logger = slog.New(slog.NewTextHandler(&buf, nil))
		c.Now = func() time.Time { return start }
	})
	guess := func(i int) string { return "guess-" + strconv.Itoa(i) + "-secretish" }
	for i := range adminKeyBurst {
		wantError(t, do(t, "GET", ts.url+"/sandbox/fixtures", map[string]string{"X-Sandbox-Admin-Key": guess(i)}, ""), client.CodeAdminKeyInvalid)
	}
	for _, key := range []string{guess(adminKeyBurst), testAdminKey} {
		resp := do(t, "GET", ts.url+"/sandbox/fixtures", map[string]string{"X-Sandbox-Admin-Key": key}, "")
		wantError(t, resp, client.CodeTooManyRequests)
		if ra, err := strconv.Atoi(resp.header.Get("Retry-After")); err != nil || ra < 1 {
			t.Errorf("Retry-After %q", resp.header.Get("Retry-After"))
		}
	}
	login := do(t, "POST", ts.url+"/console/login", map[string]string{"Content-Type": "application/x-www-form-urlencoded"},
		url.Values{"adminKey": {testAdminKey}}.Encode())
	if login.status != http.StatusTooManyRequests || login.header.Get("Retry-After") == "" {
		t.Errorf("console login after the guesses: %d, Retry-After %q; want 429 with Retry-After", login.status, login.header.Get("Retry-After"))
	}

	log := buf.String()
	if n := strings.Count(log, "sandbox admin key refused"); n != adminKeyBurst {
		t.Errorf("%d refusals logged, want %d:\n%s", n, adminKeyBurst, log)
	}
	if strings.Contains(log, "secretish") || strings.Contains(log, testAdminKey) {
		t.Errorf("the log holds a presented key:\n%s", log)
	}
	// The API itself is not held up.
	if resp := do(t, "GET", ts.url+"/v1/location/1", nil, ""); resp.status != http.StatusOK {
		t.Errorf("public API after the guesses: %d", resp.status)
	}
}

// The admin API and the console answer only under loopback host names and
// the ones the server is told; a page that rebinds its own name to the
// sandbox's address (Host: evil.example) is refused. The API answers under
// any name.
func TestAdminAnswersOnlyKnownHostNames(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, func(c *Config) { c.AdminHosts = []string{"Sandbox.Example"} })
	port := ts.url[strings.LastIndex(ts.url, ":"):]
	send := func(method, path, host string, header map[string]string) response {
		t.Helper()
		req, err := http.NewRequest(method, ts.url+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Host = host
		for k, v := range header {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		out := response{status: resp.StatusCode, header: resp.Header}
		out.raw = readAllBody(t, resp)
		return out
	}
	admin := map[string]string{"X-Sandbox-Admin-Key": testAdminKey}
	for _, host := range []string{"127.0.0.1" + port, "localhost" + port, "LOCALHOST.", "[::1]" + port, "[::1]", "127.0.0.2",
		"sandbox.example", "sandbox.example:8080"} {
		if resp := send("GET", "/sandbox/fixtures", host, admin); resp.status != http.StatusOK {
			t.Errorf("admin API under %q: %d %s", host, resp.status, resp.raw)
		}
		if resp := send("GET", "/console/login", host, nil); resp.status != http.StatusOK {
			t.Errorf("console under %q: %d", host, resp.status)
		}
	}
	for _, host := range []string{"evil.example", "evil.example" + port, "127.0.0.1.evil.example", "localhost.evil.example", "sandbox.example.evil"} {
		for _, path := range []string{"/sandbox/fixtures", "/sandbox/requests", "/console/login", "/console/locations"} {
			resp := send("GET", path, host, admin)
			if resp.status != http.StatusForbidden || !strings.Contains(string(resp.raw), `"code":403001`) {
				t.Errorf("%s under %q: %d %s, want 403001", path, host, resp.status, resp.raw)
			}
		}
		if resp := send("GET", "/v1/location/1", host, nil); resp.status != http.StatusOK {
			t.Errorf("API under %q: %d", host, resp.status)
		}
	}
}

func readAllBody(t *testing.T, resp *http.Response) []byte {
	t.Helper()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
