package wallet

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/internal/sdktest"
)

const providerURL = "https://provider.test/sandbox/providerD/tokenise"

func keyJSON(uri string) string {
	return `{"key":{"keyId":"kid-1","jwk":{"kty":"RSA","use":"enc","kid":"kid-1","n":"AQAB","e":"AQAB"}},"tokenisationUri":"` + uri + `",` + requestInfoJSON + `}`
}

var testCard = CardDetails{Number: testNumber, CVC: "987", ExpiryMonth: 4, ExpiryYear: 2031, HolderName: "A Diner"}

func TestProviderDKeys(t *testing.T) {
	t.Parallel()
	s, m := newMockService(t)
	rec := m.Reply(http.MethodGet, "v2/payment/providerD/keys", 200, keyJSON(providerURL))
	k, err := s.ProviderDKeys(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	sdktest.TestPath(t, rec.Last(t), http.MethodGet, "/prefix/v2/payment/providerD/keys")
	want := ProviderDKey{Key: ProviderDKeyInfo{KeyID: "kid-1", JWK: JWK{Kty: "RSA", Use: "enc", Kid: "kid-1", N: "AQAB", E: "AQAB"}}, TokenisationURI: providerURL}
	if k != want {
		t.Errorf("key = %+v, want %+v", k, want)
	}
}

func TestTokeniseProviderD(t *testing.T) {
	t.Parallel()
	s, m := newMockService(t)
	m.Reply(http.MethodGet, "v2/payment/providerD/keys", 200, keyJSON(providerURL))
	prov := m.Reply(http.MethodPost, providerURL, 200, `{"token":"jwe.token.here"}`)

	tok, err := s.TokeniseProviderD(context.Background(), testCard)
	if err != nil {
		t.Fatalf("TokeniseProviderD: %v", err)
	}
	if tok != "jwe.token.here" {
		t.Errorf("token = %q", tok)
	}
	c := prov.Last(t)
	sdktest.TestPath(t, c, http.MethodPost, "/sandbox/providerD/tokenise")
	// Straight to the provider: no service credential goes with the card.
	if len(c.Query) != 0 || c.Header.Get("Idempotency-Key") != "" {
		t.Errorf("provider request carries service data: query %v headers %v", c.Query, c.Header)
	}
	sdktest.TestJSONBody(t, c, `{"keyId":"kid-1","number":"4111111111111111","expiryMonth":4,"expiryYear":31,"cvc":"987"}`)
}

func TestTokeniseProviderDRefusesInsecureURI(t *testing.T) {
	t.Parallel()
	for _, uri := range []string{
		"http://provider.test/sandbox/providerD/tokenise",
		"HTTP://provider.test/x",
		"//provider.test/x",
		"/sandbox/providerD/tokenise",
		"ftp://provider.test/x",
		"https:///no-host",
		"",
	} {
		t.Run(uri, func(t *testing.T) {
			t.Parallel()
			s, m := newMockService(t)
			m.Reply(http.MethodGet, "v2/payment/providerD/keys", 200, keyJSON(uri))
			_, err := s.TokeniseProviderD(context.Background(), testCard)
			if !errors.Is(err, ErrInsecureTokenisationURI) {
				t.Fatalf("err = %v, want ErrInsecureTokenisationURI", err)
			}
			// Only the key request went out; the card went nowhere.
			if n := m.Calls(); n != 1 {
				t.Errorf("%d requests sent, want 1 (the key)", n)
			}
		})
	}
}

func TestTokeniseProviderDProviderError(t *testing.T) {
	t.Parallel()
	s, m := newMockService(t)
	m.Reply(http.MethodGet, "v2/payment/providerD/keys", 200, keyJSON(providerURL))
	prov := m.Reply(http.MethodPost, providerURL, 400, sdktest.ErrorBody(client.CodeValidation, `{"keyId":"key already used"}`))
	_, err := s.TokeniseProviderD(context.Background(), testCard)
	var apiErr *client.APIError
	if !errors.Is(err, client.ErrValidation) || !errors.As(err, &apiErr) {
		t.Fatalf("err = %v, want a 400002 APIError", err)
	}
	if got := apiErr.FieldErrors()["keyId"]; got != "key already used" {
		t.Errorf("FieldErrors = %v", apiErr.FieldErrors())
	}
	if strings.Contains(err.Error(), testNumber) || strings.Contains(err.Error(), "987") {
		t.Errorf("error leaks card data: %v", err)
	}
	if prov.Count() != 1 {
		t.Errorf("provider called %d times, want exactly once (a key is single-use)", prov.Count())
	}
}

func TestTokeniseProviderDForeignErrorBody(t *testing.T) {
	t.Parallel()
	s, m := newMockService(t)
	m.Reply(http.MethodGet, "v2/payment/providerD/keys", 200, keyJSON(providerURL))
	m.Reply(http.MethodPost, providerURL, 502, `<html>bad gateway 4111111111111111</html>`)
	_, err := s.TokeniseProviderD(context.Background(), testCard)
	var apiErr *client.APIError
	if !errors.As(err, &apiErr) || apiErr.HTTPStatus != 502 || apiErr.Code != 0 {
		t.Fatalf("err = %v", err)
	}
	if strings.Contains(err.Error(), testNumber) {
		t.Errorf("error echoes the foreign body: %v", err)
	}
}

func TestTokeniseProviderDNoRedirect(t *testing.T) {
	t.Parallel()
	s, m := newMockService(t)
	m.Reply(http.MethodGet, "v2/payment/providerD/keys", 200, keyJSON(providerURL))
	m.Handle(http.MethodPost, providerURL, func(r *http.Request) (*http.Response, error) {
		resp := sdktest.JSONResponse(307, `{}`)
		resp.Header.Set("Location", "http://evil.test/steal")
		return resp, nil
	})
	elsewhere := m.Reply(http.MethodPost, "http://evil.test/steal", 200, `{"token":"x"}`)
	_, err := s.TokeniseProviderD(context.Background(), testCard)
	if err == nil {
		t.Fatal("redirect followed")
	}
	if elsewhere.Count() != 0 {
		t.Error("card data sent to the redirect target")
	}
}

func TestTokeniseProviderDRefusesInsecureClient(t *testing.T) {
	t.Parallel()
	c, err := client.New(client.WithBaseURL(sdktest.BaseURL), client.WithAccessToken(testToken))
	if err != nil {
		t.Fatal(err)
	}
	insecure := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	s := NewService(c, WithProviderHTTPClient(insecure))
	if _, err := s.TokeniseProviderD(context.Background(), testCard); !errors.Is(err, ErrInsecureProviderClient) {
		t.Fatalf("err = %v, want ErrInsecureProviderClient", err)
	}
}

func TestTokeniseProviderDValidatesFirst(t *testing.T) {
	t.Parallel()
	s, m := newMockService(t)
	bad := testCard
	bad.Number = "4111111111111112"
	if _, err := s.TokeniseProviderD(context.Background(), bad); !errors.Is(err, client.ErrValidation) {
		t.Fatalf("err = %v", err)
	}
	if n := m.Calls(); n != 0 {
		t.Errorf("%d requests sent for an invalid card", n)
	}
}

func TestJWK(t *testing.T) {
	t.Parallel()
	priv, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	j := NewJWK(&priv.PublicKey, "k", "enc")
	pub, err := j.RSAPublicKey()
	if err != nil || !pub.Equal(&priv.PublicKey) {
		t.Fatalf("round trip: %v", err)
	}
	for name, bad := range map[string]JWK{
		"kty":      {Kty: "EC", N: j.N, E: j.E},
		"small":    {Kty: "RSA", N: "AQAB", E: "AQAB"},
		"bad n":    {Kty: "RSA", N: "!!", E: j.E},
		"even e":   {Kty: "RSA", N: j.N, E: "AQAC"},
		"no e":     {Kty: "RSA", N: j.N},
		"e toobig": {Kty: "RSA", N: j.N, E: "AQABAQAB"},
	} {
		if _, err := bad.RSAPublicKey(); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
