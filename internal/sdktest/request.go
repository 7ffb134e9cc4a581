package sdktest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jarcoal/httpmock"
)

// Request is what a responder saw of one request.
type Request struct {
	Method string
	Path   string // the URL's path, BaseURL's prefix included
	Query  url.Values
	Header http.Header
	Body   []byte // nil when the request had no body
}

// JSON returns the body decoded into a generic value (map[string]any for
// an object), or nil when there is no body. A body that is not JSON fails
// t.
func (r Request) JSON(t testing.TB) any {
	t.Helper()
	if len(r.Body) == 0 {
		return nil
	}
	var v any
	if err := json.Unmarshal(r.Body, &v); err != nil {
		t.Fatalf("%s %s: request body is not JSON: %v: %q", r.Method, r.Path, err, r.Body)
	}
	return v
}

// Object returns the body decoded as a JSON object. A body that is absent
// or not an object fails t.
func (r Request) Object(t testing.TB) map[string]any {
	t.Helper()
	m, ok := r.JSON(t).(map[string]any)
	if !ok {
		t.Fatalf("%s %s: request body is not a JSON object: %q", r.Method, r.Path, r.Body)
	}
	return m
}

// Recorder keeps the requests that the responders it wraps answered. The
// zero value is ready; it is safe for concurrent use.
type Recorder struct {
	mu   sync.Mutex
	reqs []Request
}

// Record returns a responder that records each request and then answers
// with next. The body is read whole and handed on to next unchanged.
func (rec *Recorder) Record(next httpmock.Responder) httpmock.Responder {
	return func(r *http.Request) (*http.Response, error) {
		c := Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.Query(), Header: r.Header.Clone()}
		if r.Body != nil {
			b, err := io.ReadAll(r.Body)
			if err != nil {
				return nil, err
			}
			if len(b) > 0 {
				c.Body = b
			}
			r.Body = io.NopCloser(bytes.NewReader(b))
		}
		rec.mu.Lock()
		rec.reqs = append(rec.reqs, c)
		rec.mu.Unlock()
		return next(r)
	}
}

// Requests returns the requests recorded so far, oldest first.
func (rec *Recorder) Requests() []Request {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return append([]Request(nil), rec.reqs...)
}

// Count returns how many requests were recorded.
func (rec *Recorder) Count() int {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return len(rec.reqs)
}

// Last returns the latest request, failing t when there is none.
func (rec *Recorder) Last(t testing.TB) Request {
	t.Helper()
	all := rec.Requests()
	if len(all) == 0 {
		t.Fatal("no request recorded")
	}
	return all[len(all)-1]
}

// TestPath checks the method and the path (BaseURL's prefix included) of
// r.
func TestPath(t testing.TB, r Request, method, path string) {
	t.Helper()
	if r.Method != method || r.Path != path {
		t.Errorf("request = %s %s, want %s %s", r.Method, r.Path, method, path)
	}
}

// TestJSONBody checks that the body of r is the JSON document want,
// comparing the decoded values (so member order and spacing do not
// matter).
func TestJSONBody(t testing.TB, r Request, want string) {
	t.Helper()
	var w any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("want is not JSON: %v", err)
	}
	if d := cmp.Diff(w, r.JSON(t)); d != "" {
		t.Errorf("request body mismatch (-want +got):\n%s", d)
	}
}
