package sandbox

import (
	"context"
	"encoding/pem"
	"errors"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/wallet"
)

// newProvider starts a TLS server answering providerD tokenisation, and
// returns it with its certificate in PEM.
func newProvider(t *testing.T) (*httptest.Server, string) {
	t.Helper()
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"token":"providerD-token"}`)
	}))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv, string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}))
}

func TestCACertificate(t *testing.T) {
	t.Parallel()
	_, certPEM := newProvider(t)
	s, mt := newMockService(t)
	var rec recorder
	mt.RegisterResponder(http.MethodGet, testBase+"sandbox/ca.pem", rec.respond(200, "application/x-pem-file", certPEM))

	got, err := s.CACertificate(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != certPEM {
		t.Errorf("certificate = %q, want %q", got, certPEM)
	}
	c := rec.last(t)
	if c.Method != http.MethodGet || c.Path != "/prefix/sandbox/ca.pem" {
		t.Errorf("request = %s %s", c.Method, c.Path)
	}
	// Public: no credential goes with it.
	if c.Header.Get(client.HeaderAdminKey) != "" {
		t.Error("the admin key was sent for the public certificate")
	}
	if pool, err := s.CertPool(context.Background()); err != nil || pool == nil {
		t.Errorf("CertPool = %v, %v", pool, err)
	}
}

func TestCACertificateNotASandbox(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		body string
		want error
	}{
		{"an HTML page", "<html>hello</html>", ErrNoCertificate},
		{"a PEM key", "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n", ErrNoCertificate},
		{"too large", strings.Repeat("x", maxCAPEM+1), errCertTooLarge},
	}
	for _, tt := range tests {
		s, mt := newMockService(t)
		mt.RegisterResponder(http.MethodGet, testBase+"sandbox/ca.pem", new(recorder).respond(200, "text/html", tt.body))
		if _, err := s.CertPool(context.Background()); !errors.Is(err, tt.want) {
			t.Errorf("%s: err = %v, want %v", tt.name, err, tt.want)
		}
		if _, err := s.ProviderTrust(context.Background()); !errors.Is(err, tt.want) {
			t.Errorf("%s: ProviderTrust err = %v, want %v", tt.name, err, tt.want)
		}
	}
}

// ProviderTrust's option lets a wallet tokenise at a provider whose
// certificate is the one served as the sandbox's.
func TestProviderTrust(t *testing.T) {
	t.Parallel()
	provider, certPEM := newProvider(t)
	s, mt := newMockService(t)
	mt.RegisterResponder(http.MethodGet, testBase+"sandbox/ca.pem", new(recorder).respond(200, "application/x-pem-file", certPEM))
	trust, err := s.ProviderTrust(context.Background())
	if err != nil {
		t.Fatal(err)
	}

	wc, err := client.New(client.WithBaseURL(testBase), client.WithHTTPClient(&http.Client{Transport: mt}), client.WithAccessToken("usr_x"))
	if err != nil {
		t.Fatal(err)
	}
	mt.RegisterResponder(http.MethodGet, testBase+"v2/payment/providerD/keys", new(recorder).json(200,
		`{"key":{"keyId":"kid-1","jwk":{"kty":"RSA","use":"enc","kid":"kid-1","n":"AQAB","e":"AQAB"}},"tokenisationUri":"`+provider.URL+`/tokenise",`+
			`"requestInfo":{"accessTokenStatus":"authenticated","serverTime":1700000000,"requestId":null,"apiVersion":2}}`))
	card := wallet.CardDetails{Number: "4111111111111111", CVC: "123", ExpiryMonth: 12, ExpiryYear: time.Now().Year() + 2}

	tok, err := wallet.NewService(wc, trust).TokeniseProviderD(context.Background(), card)
	if err != nil || tok != "providerD-token" {
		t.Fatalf("with ProviderTrust: token %q, err %v", tok, err)
	}
	// Without it the call fails, and says what to do.
	_, err = wallet.NewService(wc).TokeniseProviderD(context.Background(), card)
	if err == nil || !strings.Contains(err.Error(), "ProviderTrust") {
		t.Errorf("without ProviderTrust: err = %v, want a hint naming it", err)
	}
}
