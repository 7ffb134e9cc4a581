package events_test

import (
	"testing"
	"time"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/events"
	"github.com/hospo-dev/hospo-go/internal/sdktest"
)

// testKey is the vendor API key of the mock client.
const testKey = "test-api-key"

// newMockService returns a Service of a fresh mock, with one quick retry.
func newMockService(t testing.TB) (*events.Service, *sdktest.Mock) {
	t.Helper()
	m := sdktest.NewMock()
	c, err := client.New(
		client.WithBaseURL(sdktest.BaseURL),
		client.WithHTTPClient(m.HTTPClient),
		client.WithAPIKey(testKey),
		client.WithRetryPolicy(client.RetryPolicy{MaxRetries: 1, MinBackoff: time.Microsecond, MaxBackoff: time.Millisecond}),
	)
	if err != nil {
		t.Fatalf("client.New: %v", err)
	}
	return events.NewService(c), m
}

// testAPIKey checks that r carries the mock client's API key.
func testAPIKey(t testing.TB, r sdktest.Request) {
	t.Helper()
	if got := r.Header.Get(client.HeaderAPIKey); got != testKey {
		t.Errorf("%s = %q, want %q", client.HeaderAPIKey, got, testKey)
	}
}

var requestInfoJSON = sdktest.RequestInfo(1)
