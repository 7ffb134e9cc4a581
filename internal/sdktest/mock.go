// Package sdktest holds the helpers that the SDK packages' unit tests share:
// a fake service behind an httpmock transport under a path prefix, a record
// of the requests it answered, the service's error bodies, and a poll for
// conditions that come true in the background.
//
//	m := sdktest.NewMock()
//	c, _ := client.New(client.WithBaseURL(sdktest.BaseURL), client.WithHTTPClient(m.HTTPClient))
//	rec := m.Reply("GET", "v1/location/3", 200, body)
//	... call the SDK with c ...
//	sdktest.TestPath(t, rec.Last(t), "GET", "/prefix/v1/location/3")
//
// It is imported only by tests. It does not import the client package, so
// that the client's own tests can use it too; error codes are taken as any
// integer type with the catalogue's methods.
package sdktest

import (
	"net/http"
	"strings"
	"sync/atomic"

	"github.com/jarcoal/httpmock"
)

// BaseURL is the base URL that SDK clients of a Mock are given. Its path
// prefix makes a request built with an absolute path ("/v1/...") miss every
// responder, as go-github's tests do.
const BaseURL = "https://api.test/prefix/"

// Mock is a fake service: responders on an httpmock transport, reached
// through HTTPClient. A request that no responder matches fails with an
// error naming it.
type Mock struct {
	// Transport holds the responders, for what Handle does not cover
	// (RegisterRegexpResponder, RegisterNoResponder).
	Transport *httpmock.MockTransport
	// HTTPClient sends every request to Transport; give it to the SDK
	// client (client.WithHTTPClient).
	HTTPClient *http.Client

	calls atomic.Int64
}

// NewMock returns a Mock with no responders.
func NewMock() *Mock {
	m := &Mock{Transport: httpmock.NewMockTransport()}
	m.HTTPClient = &http.Client{Transport: counting{m}}
	return m
}

// counting counts every request, including those no responder matches
// (which the MockTransport's own count leaves out), so that "nothing was
// sent" means nothing.
type counting struct{ m *Mock }

func (c counting) RoundTrip(r *http.Request) (*http.Response, error) {
	c.m.calls.Add(1)
	return c.m.Transport.RoundTrip(r)
}

// resolve returns the absolute URL of path: path itself when it is
// absolute (another host, such as a payment provider's), otherwise path
// under BaseURL.
func resolve(path string) string {
	if strings.HasPrefix(path, "http://") || strings.HasPrefix(path, "https://") {
		return path
	}
	return BaseURL + strings.TrimPrefix(path, "/")
}

// Handle answers method and path (under BaseURL, or path itself when it is
// an absolute URL) with r and returns the record of the requests r
// answered.
func (m *Mock) Handle(method, path string, r httpmock.Responder) *Recorder {
	rec := new(Recorder)
	m.Transport.RegisterResponder(method, resolve(path), rec.Record(r))
	return rec
}

// Reply answers method and path (as Handle takes it) with status and
// body, a JSON document, and returns the record of the requests it
// answered.
func (m *Mock) Reply(method, path string, status int, body string) *Recorder {
	return m.Handle(method, path, Responder(status, body))
}

// Calls returns how many requests were sent through HTTPClient, answered
// or not.
func (m *Mock) Calls() int { return int(m.calls.Load()) }

// JSONResponse is a response of status with body and the JSON content type.
func JSONResponse(status int, body string) *http.Response {
	resp := httpmock.NewStringResponse(status, body)
	resp.Header.Set("Content-Type", "application/json")
	return resp
}

// Responder answers every request with JSONResponse(status, body).
func Responder(status int, body string) httpmock.Responder {
	return func(*http.Request) (*http.Response, error) { return JSONResponse(status, body), nil }
}
