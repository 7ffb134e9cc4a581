package wallet

import (
	"encoding/json"
	"io"
	"net/http"
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

// testToken is the user access token of the mock client.
const testToken = "user-token-1"

// newMockService returns a Service whose service and provider calls go to
// one fresh httpmock transport.
func newMockService(t testing.TB) (*Service, *httpmock.MockTransport) {
	t.Helper()
	mt := httpmock.NewMockTransport()
	hc := &http.Client{Transport: mt}
	c, err := client.New(
		client.WithBaseURL(testBase),
		client.WithHTTPClient(hc),
		client.WithAccessToken(testToken),
		client.WithRetryPolicy(client.RetryPolicy{MaxRetries: 1, MinBackoff: time.Microsecond, MaxBackoff: time.Millisecond}),
	)
	if err != nil {
		t.Fatalf("client.New: %v", err)
	}
	return NewService(c, WithProviderHTTPClient(hc)), mt
}

// captured is what a recording responder saw of one request.
type captured struct {
	Method  string
	Path    string
	Query   map[string][]string
	Header  http.Header
	Body    map[string]any // nil when the request had no body
	RawBody string
}

// recorder answers with status and body and keeps every request it saw.
type recorder struct {
	mu   sync.Mutex
	reqs []captured
}

func (r *recorder) respond(t testing.TB, status int, body string) httpmock.Responder {
	return func(req *http.Request) (*http.Response, error) {
		c := captured{Method: req.Method, Path: req.URL.Path, Query: req.URL.Query(), Header: req.Header.Clone()}
		if req.Body != nil {
			b, _ := io.ReadAll(req.Body)
			c.RawBody = string(b)
			if len(b) > 0 {
				if err := json.Unmarshal(b, &c.Body); err != nil {
					t.Errorf("request body is not a JSON object: %v", err)
				}
			}
		}
		r.mu.Lock()
		r.reqs = append(r.reqs, c)
		r.mu.Unlock()
		resp := httpmock.NewStringResponse(status, body)
		resp.Header.Set("Content-Type", "application/json")
		return resp, nil
	}
}

func (r *recorder) all() []captured {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]captured(nil), r.reqs...)
}

func (r *recorder) last(t testing.TB) captured {
	t.Helper()
	all := r.all()
	if len(all) == 0 {
		t.Fatal("no request recorded")
	}
	return all[len(all)-1]
}

// errorBody is the service's error body for code.
func errorBody(code client.Code, contextData string) string {
	if contextData == "" {
		contextData = "null"
	}
	b, _ := json.Marshal(code.Message())
	return `{"error":true,"code":` + itoa(int(code)) + `,"message":` + string(b) +
		`,"contextData":` + contextData + `,"displayString":null,"requestInfo":{"accessTokenStatus":"authenticated","serverTime":1700000000,"requestId":null,"apiVersion":0}}`
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

const requestInfoJSON = `"requestInfo":{"accessTokenStatus":"authenticated","serverTime":1700000000,"requestId":null,"apiVersion":1}`

// testMethodPath checks the method and path of a captured request.
func testMethodPath(t testing.TB, c captured, method, path string) {
	t.Helper()
	if c.Method != method || c.Path != path {
		t.Errorf("request = %s %s, want %s %s", c.Method, c.Path, method, path)
	}
}

// testBody compares a captured JSON body with want (decoded the same way).
func testBody(t testing.TB, c captured, want string) {
	t.Helper()
	var w map[string]any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("bad want JSON: %v", err)
	}
	if d := cmp.Diff(w, c.Body); d != "" {
		t.Errorf("request body mismatch (-want +got):\n%s", d)
	}
}
