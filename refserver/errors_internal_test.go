package refserver

import (
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hospo-dev/hospo-go/internal/syncbuf"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/refserver/internal/api"
)

func TestEveryCatalogueCodeRendersTheErrorBody(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	for _, code := range client.Codes() {
		t.Run(strconv.Itoa(int(code)), func(t *testing.T) {
			resp := do(t, http.MethodGet, ts.url+"/v1/test/error/"+strconv.Itoa(int(code)), nil, "")
			wantError(t, resp, code)
			if resp.body["message"] != code.Message() {
				t.Errorf("message = %v, want %q", resp.body["message"], code.Message())
			}
			if resp.body["contextData"] != nil || resp.body["displayString"] != nil {
				t.Errorf("contextData/displayString = %v/%v, want null", resp.body["contextData"], resp.body["displayString"])
			}
		})
	}
}

func TestMiddlewareErrors(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	tok := ts.fixtures(t).Users[0].AccessToken
	count := ts.url + "/v1/test/count?accessToken=" + tok
	huge := `{"note":"` + strings.Repeat("x", api.MaxBodyBytes) + `"}`

	tests := []struct {
		name    string
		method  string
		url     string
		headers map[string]string
		body    string
		want    client.Code
	}{
		{"malformed JSON", "POST", count, nil, `{"note":`, client.CodeMalformedJSON},
		{"not JSON at all", "POST", count, nil, `note=1`, client.CodeMalformedJSON},
		{"trailing data", "POST", count, nil, `{"note":"a"} {}`, client.CodeMalformedJSON},
		{"wrong JSON type", "POST", count, nil, `{"note":5}`, client.CodeMalformedJSON},
		{"money as string", "POST", count, nil, `{"note":"a","amount":"1.00"}`, client.CodeMalformedJSON},
		{"body is an array", "POST", count, nil, `[]`, client.CodeMalformedJSON},
		{"empty body needs JSON", "POST", count, nil, ``, client.CodeMalformedJSON},
		{"missing field", "POST", count, nil, `{}`, client.CodeValidation},
		{"null field", "POST", count, nil, `{"note":null}`, client.CodeValidation},
		{"money precision", "POST", count, nil, `{"note":"a","amount":1.001}`, client.CodeValidation},
		{"body too large", "POST", count, nil, huge, client.CodeBodyTooLarge},
		{"text/plain", "POST", count, map[string]string{"Content-Type": "text/plain"}, `{"note":"a"}`, client.CodeUnsupportedMediaType},
		{"no content type", "POST", count, map[string]string{"Content-Type": "<none>"}, `{"note":"a"}`, client.CodeUnsupportedMediaType},
		{"unknown route", "GET", ts.url + "/v1/nothing/here", nil, "", client.CodeNotFound},
		{"unknown POST route", "POST", ts.url + "/v9/nothing", nil, `{}`, client.CodeNotFound},
		{"wrong method", "DELETE", ts.url + "/v1/test/user", nil, "", client.CodeMethodNotAllowed},
		{"panic", "GET", ts.url + "/v1/test/panic", nil, "", client.CodeInternal},
		{"idempotency key too long", "POST", count, map[string]string{"Idempotency-Key": strings.Repeat("k", 256)}, `{"note":"a"}`, client.CodeValidation},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			resp := do(t, tt.method, tt.url, tt.headers, tt.body)
			wantError(t, resp, tt.want)
			if strings.Contains(string(resp.raw), "hunter2") || strings.Contains(string(resp.raw), "goroutine") {
				t.Errorf("error body leaks internals: %s", resp.raw)
			}
		})
	}
}

func TestErrorMessagesAndContextData(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	tok := ts.fixtures(t).Users[0].AccessToken
	count := ts.url + "/v1/test/count?accessToken=" + tok

	resp := do(t, "POST", count, nil, `{"note":5}`)
	if msg, _ := resp.body["message"].(string); !strings.Contains(msg, `"note"`) {
		t.Errorf("400001 message %q does not name the field", msg)
	}
	resp = do(t, "POST", count, nil, `{"items":[{"price":1},{},{"price":null}]}`)
	wantError(t, resp, client.CodeValidation)
	want := map[string]any{"note": "required", "items[1].price": "required", "items[2].price": "required"}
	if got := resp.body["contextData"]; !equalJSON(got, want) {
		t.Errorf("contextData = %v, want %v", got, want)
	}
	resp = do(t, "POST", count, nil, `{"note":"a","items":[{"price":1.5},{"price":2.125}]}`)
	wantError(t, resp, client.CodeValidation)
	if got := resp.body["contextData"].(map[string]any); got["items[1].price"] == nil || len(got) != 1 {
		t.Errorf("contextData = %v, want items[1].price", got)
	}
}

func TestChunkedBodyTooLarge(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	tok := ts.fixtures(t).Users[0].AccessToken
	// An io.Reader of unknown length makes the client send it chunked, so
	// the server only learns the size by reading.
	body := io.MultiReader(strings.NewReader(`{"note":"`), strings.NewReader(strings.Repeat("x", api.MaxBodyBytes)), strings.NewReader(`"}`))
	req, _ := http.NewRequest("POST", ts.url+"/v1/test/count?accessToken="+tok, body)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("status %d, want 413", resp.StatusCode)
	}
}

// TestChunkedBodyTooLargeUnreadByHandler sends an oversized chunked body to
// endpoints whose handlers never read a body: it must still be a 413001, and
// nothing may be created.
func TestChunkedBodyTooLargeUnreadByHandler(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	for _, path := range []string{"/sandbox/users", "/sandbox/reset"} {
		body := io.MultiReader(strings.NewReader(`{"x":"`), strings.NewReader(strings.Repeat("x", api.MaxBodyBytes)), strings.NewReader(`"}`))
		req, _ := http.NewRequest("POST", ts.url+path, body)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Sandbox-Admin-Key", testAdminKey)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusRequestEntityTooLarge {
			t.Errorf("%s: status %d, want 413", path, resp.StatusCode)
		}
	}
}

func TestPostWithoutBodyNeedsNoContentType(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	resp := do(t, "POST", ts.url+"/sandbox/users", map[string]string{"X-Sandbox-Admin-Key": testAdminKey}, "")
	if resp.status != http.StatusCreated {
		t.Fatalf("status %d: %s", resp.status, resp.raw)
	}
}

func TestRequestIDs(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	seen := map[string]bool{}
	for _, path := range []string{"/v2/test/public", "/v2/test/public", "/nope", "/v1/test/panic", "/sandbox/ca.pem"} {
		resp := do(t, "GET", ts.url+path, nil, "")
		id := resp.header.Get("X-Request-Id")
		if len(id) != 32 || seen[id] {
			t.Errorf("%s: X-Request-Id %q is missing or repeated", path, id)
		}
		seen[id] = true
		if ri := resp.requestInfo(); ri != nil && ri["requestId"] != nil {
			t.Errorf("%s: requestInfo.requestId = %v, want null", path, ri["requestId"])
		}
	}
}

func TestSuccessRequestInfo(t *testing.T) {
	t.Parallel()
	now := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	ts := newTestServer(t, func(c *Config) { c.Now = func() time.Time { return now } })
	tok := ts.fixtures(t).Users[0].AccessToken
	tests := []struct {
		url, status string
		version     float64
	}{
		{ts.url + "/v2/test/public", "missing", 2},
		{ts.url + "/v2/test/public?accessToken=" + tok, "authenticated", 2},
		{ts.url + "/v2/test/public?accessToken=nope", "invalid", 2},
		{userURL(ts.url, tok), "authenticated", 1},
	}
	for _, tt := range tests {
		resp := do(t, "GET", tt.url, nil, "")
		ri := resp.requestInfo()
		want := map[string]any{"accessTokenStatus": tt.status, "serverTime": float64(now.Unix()), "requestId": nil, "apiVersion": tt.version}
		if !equalJSON(ri, want) {
			t.Errorf("requestInfo = %v, want %v", ri, want)
		}
	}
}

func TestRateLimit(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, func(c *Config) { c.RateLimit = 0.001; c.RateBurst = 2 })
	f := ts.fixtures(t)
	url := userURL(ts.url, f.Users[0].AccessToken)
	for i := range 2 {
		if resp := do(t, "GET", url, nil, ""); resp.status != http.StatusOK {
			t.Fatalf("request %d: status %d", i, resp.status)
		}
	}
	resp := do(t, "GET", url, nil, "")
	wantError(t, resp, client.CodeTooManyRequests)
	if ra, err := strconv.Atoi(resp.header.Get("Retry-After")); err != nil || ra < 1 {
		t.Errorf("Retry-After = %q, want whole seconds >= 1", resp.header.Get("Retry-After"))
	}
	// Another credential has its own bucket; admin endpoints are exempt.
	if resp := do(t, "GET", userURL(ts.url, f.Users[1].AccessToken), nil, ""); resp.status != http.StatusOK {
		t.Errorf("other user: status %d", resp.status)
	}
	for range 3 {
		if resp := do(t, "GET", ts.url+"/sandbox/fixtures", map[string]string{"X-Sandbox-Admin-Key": testAdminKey}, ""); resp.status != http.StatusOK {
			t.Errorf("admin: status %d", resp.status)
		}
	}
}

// The rate limit's bucket is the caller the guard verified: what else a
// request presents changes nothing, and made-up credentials are limited by
// the address they come from.
func TestRateLimitKeyedByVerifiedCaller(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, func(c *Config) { c.RateLimit = 0.001; c.RateBurst = 2 })
	f := ts.fixtures(t)
	url := userURL(ts.url, f.Users[0].AccessToken)
	for i := range 3 {
		extra := map[string]string{
			"Authorization":       "Bearer random-" + strconv.Itoa(i),
			"X-Vendor-API-Key":    "random-" + strconv.Itoa(i),
			"X-Sandbox-Admin-Key": "random-" + strconv.Itoa(i),
		}
		resp := do(t, "GET", url, extra, "")
		if want := map[bool]int{true: 200, false: 429}[i < 2]; resp.status != want {
			t.Errorf("user request %d with other credential headers: status %d, want %d", i, resp.status, want)
		}
	}
	for i := range 3 {
		resp := do(t, "GET", userURL(ts.url, "made-up-"+strconv.Itoa(i)), nil, "")
		if i < 2 {
			wantError(t, resp, client.CodeAccessTokenInvalid)
			continue
		}
		wantError(t, resp, client.CodeTooManyRequests)
	}
	// Unknown routes count against the address too.
	wantError(t, do(t, "GET", ts.url+"/v9/nothing", nil, ""), client.CodeTooManyRequests)
	// Another user has a bucket of their own.
	if resp := do(t, "GET", userURL(ts.url, f.Users[1].AccessToken), nil, ""); resp.status != http.StatusOK {
		t.Errorf("other user: status %d", resp.status)
	}
}

func TestRateLimitOffByDefault(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	for i := range 50 {
		if resp := do(t, "GET", ts.url+"/v2/test/public", nil, ""); resp.status != http.StatusOK {
			t.Fatalf("request %d: status %d", i, resp.status)
		}
	}
}

func TestAccessLogOmitsSecrets(t *testing.T) {
	t.Parallel()
	var buf syncbuf.Buffer
	ts := newTestServer(t, func(c *Config) {
		c.Logger = slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	})
	f := ts.fixtures(t)
	tok := f.Users[0].AccessToken
	key := f.APIKeys[0].APIKey
	resp := do(t, "GET", userURL(ts.url, tok)+"&other=querysecret", nil, "")
	do(t, "GET", ts.url+"/v3/test/location/1/bills", map[string]string{"X-Vendor-API-Key": key}, "")
	do(t, "GET", ts.url+"/v1/test/panic?accessToken="+tok, nil, "")
	do(t, "POST", ts.url+"/v1/test/count?accessToken="+tok, nil, `{"note":"a"}`)
	do(t, "GET", ts.url+"/sandbox/fixtures", map[string]string{"X-Sandbox-Admin-Key": testAdminKey}, "")

	log := buf.String()
	for _, secret := range []string{tok, key, testAdminKey, "querysecret", "accessToken"} {
		if strings.Contains(log, secret) {
			t.Errorf("log contains %q:\n%s", secret, log)
		}
	}
	id := resp.header.Get("X-Request-Id")
	for _, want := range []string{"method=GET", "route=/v1/test/user", "status=200", "request_id=" + id, "duration="} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %q:\n%s", want, log)
		}
	}
	if !strings.Contains(log, "panic in handler") || !strings.Contains(log, "status=500") {
		t.Errorf("panic not logged:\n%s", log)
	}
}
