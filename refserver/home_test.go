package refserver_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/refserver/refservertest"
)

// A browser opening the base URL gets a page of links that all work; an
// API client asking for any other unknown path still gets the JSON 404001.
func TestHomePage(t *testing.T) {
	t.Parallel()
	env := refservertest.Start(t)
	resp, err := http.Get(env.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/html; charset=utf-8" {
		t.Fatalf("GET /: status %d, Content-Type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") {
		t.Errorf("Content-Security-Policy %q", csp)
	}
	page := string(body)
	for _, link := range []string{`href="/console"`, `href="/openapi.json"`, `href="/universal-pos/openapi.json"`,
		`href="/sandbox/ca.pem"`, `href="https://github.com/hospo-dev/hospo-go#quick-start"`, "go run ./examples/quickstart"} {
		if !strings.Contains(page, link) {
			t.Errorf("the home page has no %s", link)
		}
	}
	// The links the page gives lead somewhere.
	for _, path := range []string{"/openapi.json", "/universal-pos/openapi.json", "/sandbox/ca.pem"} {
		if status, _ := env.Send(t, http.MethodGet, path, nil, nil); status != http.StatusOK {
			t.Errorf("GET %s: status %d", path, status)
		}
	}
	// The console is no part of the API document, so it is asked past the
	// document check: it sends a browser to its sign-in page.
	rec := httptest.NewRecorder()
	env.Server.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "http://127.0.0.1/console", nil))
	if rec.Code != http.StatusSeeOther || !strings.HasPrefix(rec.Header().Get("Location"), "/console/") {
		t.Errorf("GET /console: status %d, Location %q", rec.Code, rec.Header().Get("Location"))
	}

	status, raw := env.Send(t, http.MethodGet, "/index.html", nil, nil)
	var e struct {
		Code        client.Code       `json:"code"`
		ContextData map[string]string `json:"contextData"`
	}
	if err := json.Unmarshal(raw, &e); err != nil || status != http.StatusNotFound || e.Code != client.CodeNotFound ||
		e.ContextData["route"] != "GET /index.html" {
		t.Errorf("GET /index.html: status %d, body %s", status, raw)
	}
}
