package wallet

import (
	"testing"
	"time"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/internal/sdktest"
)

// testToken is the user access token of the mock client.
const testToken = "user-token-1"

// newMockService returns a Service whose service and provider calls go to
// one fresh mock.
func newMockService(t testing.TB) (*Service, *sdktest.Mock) {
	t.Helper()
	m := sdktest.NewMock()
	c, err := client.New(
		client.WithBaseURL(sdktest.BaseURL),
		client.WithHTTPClient(m.HTTPClient),
		client.WithAccessToken(testToken),
		client.WithRetryPolicy(client.RetryPolicy{MaxRetries: 1, MinBackoff: time.Microsecond, MaxBackoff: time.Millisecond}),
	)
	if err != nil {
		t.Fatalf("client.New: %v", err)
	}
	return NewService(c, WithProviderHTTPClient(m.HTTPClient)), m
}

var requestInfoJSON = sdktest.RequestInfo(1)
