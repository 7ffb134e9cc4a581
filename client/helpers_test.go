package client

import (
	"testing"
	"time"

	"github.com/hospo-dev/hospo-go/internal/sdktest"
)

// fastRetry keeps retry tests quick without changing what they prove.
var fastRetry = RetryPolicy{
	MaxRetries:    3,
	MinBackoff:    time.Microsecond,
	MaxBackoff:    time.Millisecond,
	MaxRetryAfter: time.Millisecond,
}

// newMockClient returns a Client of a fresh mock service, plus the mock.
// opts come after the test defaults.
func newMockClient(t testing.TB, opts ...Option) (*Client, *sdktest.Mock) {
	t.Helper()
	m := sdktest.NewMock()
	base := []Option{
		WithBaseURL(sdktest.BaseURL),
		WithHTTPClient(m.HTTPClient),
		WithRetryPolicy(fastRetry),
	}
	c, err := New(append(base, opts...)...)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return c, m
}
