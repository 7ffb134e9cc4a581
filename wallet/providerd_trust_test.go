package wallet

import (
	"context"
	"crypto/x509"
	"errors"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/jarcoal/httpmock"

	"github.com/hospo-dev/hospo-go/client"
)

// A provider whose certificate no trusted authority signed (the sandbox's
// self-signed listener, reached without its certificate) fails with Go's
// error, kept for errors.As, and a hint naming the call that fixes it.
func TestTokeniseProviderDUntrustedCertificateHint(t *testing.T) {
	t.Parallel()
	provider := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Error("the provider was reached without verifying its certificate")
	}))
	provider.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshake is expected
	provider.StartTLS()
	defer provider.Close()

	// The service's calls go to a mock; the provider call goes out for real,
	// with the system roots, which do not hold the test server's.
	const base = "https://api.test/prefix/"
	mt := httpmock.NewMockTransport()
	c, err := client.New(client.WithBaseURL(base), client.WithHTTPClient(&http.Client{Transport: mt}), client.WithAccessToken("user-token"))
	if err != nil {
		t.Fatal(err)
	}
	s := NewService(c)
	keys := func(uri string) {
		mt.RegisterResponder(http.MethodGet, base+"v2/payment/providerD/keys", httpmock.NewStringResponder(200, keyJSON(uri)))
	}

	keys(provider.URL + "/sandbox/providerD/tokenise")
	_, err = s.TokeniseProviderD(context.Background(), testCard)
	if !errors.As(err, new(x509.UnknownAuthorityError)) {
		t.Fatalf("err = %v, want an x509.UnknownAuthorityError in the chain", err)
	}
	for _, want := range []string{"certificate signed by unknown authority", "sandbox.Service.ProviderTrust", "WithProviderRootCAs"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("err = %q, want it to mention %q", err, want)
		}
	}

	// Other failures get no such hint.
	keys("https://127.0.0.1:1/tokenise")
	_, err = s.TokeniseProviderD(context.Background(), testCard)
	if err == nil || strings.Contains(err.Error(), "ProviderTrust") {
		t.Errorf("connection refused: err = %v, want no trust hint", err)
	}
}
