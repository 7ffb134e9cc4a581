package client

import (
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"
)

// testBase is under a path prefix, so that a request built with an absolute
// path would miss every responder.
const testBase = "https://api.test/prefix/"

// fastRetry keeps retry tests quick without changing what they prove.
var fastRetry = RetryPolicy{
	MaxRetries:    3,
	MinBackoff:    time.Microsecond,
	MaxBackoff:    time.Millisecond,
	MaxRetryAfter: time.Millisecond,
}

// newMockClient returns a Client whose requests go to a fresh httpmock
// transport, plus that transport. opts come after the test defaults.
func newMockClient(t testing.TB, opts ...Option) (*Client, *httpmock.MockTransport) {
	t.Helper()
	mt := httpmock.NewMockTransport()
	base := []Option{
		WithBaseURL(testBase),
		WithHTTPClient(&http.Client{Transport: mt}),
		WithRetryPolicy(fastRetry),
	}
	c, err := New(append(base, opts...)...)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return c, mt
}

// errorJSON is a service error body for code.
func errorJSON(code Code) string {
	return `{"error":true,"code":` + itoaCode(code) + `,"message":"` + code.Message() +
		`","contextData":null,"displayString":null,"requestInfo":{"accessTokenStatus":"authenticated","serverTime":1700000000,"requestId":null,"apiVersion":0}}`
}

func itoaCode(c Code) string { return strconv.Itoa(int(c)) }

// errorResponder answers with the service's error body for code.
func errorResponder(code Code, header ...string) httpmock.Responder {
	return func(*http.Request) (*http.Response, error) {
		resp := httpmock.NewStringResponse(code.HTTPStatus(), errorJSON(code))
		resp.Header.Set("Content-Type", "application/json")
		resp.Header.Set(HeaderRequestID, "req-"+itoaCode(code))
		for i := 0; i+1 < len(header); i += 2 {
			resp.Header.Set(header[i], header[i+1])
		}
		return resp, nil
	}
}
