package sandbox

import (
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jarcoal/httpmock"

	"github.com/hospo-dev/hospo-go/client"
)

// testBase is under a path prefix, so that a request built with an absolute
// path would miss every responder.
const testBase = "https://api.test/prefix/"

// testAdminKey is the admin key of the mock client. It is long enough to be
// redacted wherever it appears.
const testAdminKey = "test-admin-key-0123456789"

// newMockService returns a Service whose calls go to a fresh httpmock
// transport. opts come after the test defaults.
func newMockService(t testing.TB, opts ...client.Option) (*Service, *httpmock.MockTransport) {
	t.Helper()
	mt := httpmock.NewMockTransport()
	c, err := client.New(append([]client.Option{
		client.WithBaseURL(testBase),
		client.WithHTTPClient(&http.Client{Transport: mt}),
		client.WithAdminKey(testAdminKey),
		client.WithRetryPolicy(client.RetryPolicy{MaxRetries: 1, MinBackoff: time.Microsecond, MaxBackoff: time.Millisecond}),
	}, opts...)...)
	if err != nil {
		t.Fatalf("client.New: %v", err)
	}
	return NewService(c), mt
}

// captured is what a recording responder saw of one request.
type captured struct {
	Method  string
	Path    string
	Query   map[string][]string
	Header  http.Header
	RawBody string
}

// recorder answers with status and body and keeps every request it saw.
type recorder struct {
	mu   sync.Mutex
	reqs []captured
}

func (r *recorder) respond(status int, contentType, body string) httpmock.Responder {
	return func(req *http.Request) (*http.Response, error) {
		c := captured{Method: req.Method, Path: req.URL.Path, Query: req.URL.Query(), Header: req.Header.Clone()}
		if req.Body != nil {
			b, _ := io.ReadAll(req.Body)
			c.RawBody = string(b)
		}
		r.mu.Lock()
		r.reqs = append(r.reqs, c)
		r.mu.Unlock()
		resp := httpmock.NewStringResponse(status, body)
		resp.Header.Set("Content-Type", contentType)
		return resp, nil
	}
}

// json answers with a JSON body.
func (r *recorder) json(status int, body string) httpmock.Responder {
	return r.respond(status, "application/json", body)
}

func (r *recorder) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.reqs)
}

func (r *recorder) last(t testing.TB) captured {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.reqs) == 0 {
		t.Fatal("no request recorded")
	}
	return r.reqs[len(r.reqs)-1]
}

// testAdminRequest checks the method and path of a captured request and
// that it carried the admin key and nothing else of a credential.
func testAdminRequest(t testing.TB, c captured, method, path string) {
	t.Helper()
	if c.Method != method || c.Path != path {
		t.Errorf("request = %s %s, want %s %s", c.Method, c.Path, method, path)
	}
	if got := c.Header.Get(client.HeaderAdminKey); got != testAdminKey {
		t.Errorf("%s = %q, want the admin key", client.HeaderAdminKey, got)
	}
	if _, ok := c.Query[client.QueryAccessToken]; ok || c.Header.Get(client.HeaderAPIKey) != "" {
		t.Errorf("request carries another credential: query %v", c.Query)
	}
}

// testBody compares a captured JSON body with want (both decoded);
// want "" means no body.
func testBody(t testing.TB, c captured, want string) {
	t.Helper()
	if want == "" {
		if c.RawBody != "" {
			t.Errorf("body = %s, want none", c.RawBody)
		}
		return
	}
	var w, g any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("bad want JSON: %v", err)
	}
	if err := json.Unmarshal([]byte(c.RawBody), &g); err != nil {
		t.Fatalf("request body %q is not JSON: %v", c.RawBody, err)
	}
	if d := cmp.Diff(w, g); d != "" {
		t.Errorf("request body mismatch (-want +got):\n%s", d)
	}
}

// errorBody is the service's error body for code.
func errorBody(code client.Code, message, contextData string) string {
	if contextData == "" {
		contextData = "null"
	}
	if message == "" {
		message = code.Message()
	}
	msg, _ := json.Marshal(message)
	return `{"error":true,"code":` + strconv.Itoa(int(code)) + `,"message":` + string(msg) +
		`,"contextData":` + contextData + `,"displayString":null,"requestInfo":{"accessTokenStatus":"missing","serverTime":1700000000,"requestId":null,"apiVersion":0}}`
}
