package wallet

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/hospo-dev/hospo-go/client"
)

// ProviderDKey is the key descriptor of GET /v2/payment/providerD/keys
// (interface section 2.4). The service keeps the private half, which
// decrypts the token the provider issues for this key.
type ProviderDKey struct {
	Key ProviderDKeyInfo `json:"key"`
	// TokenisationURI is the provider's tokenisation endpoint for this
	// environment. It must be https; TokeniseProviderD refuses any other.
	TokenisationURI string `json:"tokenisationUri"`
}

// ProviderDKeyInfo identifies the key: KeyID goes with the card data to the
// provider, JWK is its public half.
type ProviderDKeyInfo struct {
	KeyID string `json:"keyId"`
	JWK   JWK    `json:"jwk"`
}

// ProviderDTokenRequest is the body that the client posts to providerD's
// tokenisationUri (contract section 6). It holds the full card number and
// CVC, so it exists only for the length of one call and prints masked.
type ProviderDTokenRequest struct {
	KeyID       string `json:"keyId"`
	Number      string `json:"number"`
	ExpiryMonth int    `json:"expiryMonth"`
	ExpiryYear  int    `json:"expiryYear"`
	CVC         string `json:"cvc"`
}

// String masks the number and hides the CVC.
func (r ProviderDTokenRequest) String() string {
	return fmt.Sprintf("ProviderDTokenRequest{KeyID:%s Card:%s}", r.KeyID,
		CardDetails{Number: r.Number, CVC: r.CVC, ExpiryMonth: r.ExpiryMonth, ExpiryYear: r.ExpiryYear})
}

// Format prints the masked form for every verb.
func (r ProviderDTokenRequest) Format(f fmt.State, _ rune) { _, _ = f.Write([]byte(r.String())) }

// ProviderDTokenResponse is providerD's answer: Token is a JWE to the key of
// the request's keyId, to be passed as InsertCardRequest.ProviderDToken.
type ProviderDTokenResponse struct {
	Token string `json:"token"`
}

// ProviderDKeyResponse is the body of GET /v2/payment/providerD/keys.
type ProviderDKeyResponse struct {
	ProviderDKey
	RequestInfo client.RequestInfo `json:"requestInfo"`
}

// ErrInsecureTokenisationURI is returned by TokeniseProviderD when the
// tokenisationUri is not an https URL. The interface requires the
// tokenisation call to run over HTTPS; card data is never sent otherwise.
var ErrInsecureTokenisationURI = errors.New("wallet: providerD tokenisationUri is not https; card data not sent")

// ErrInsecureProviderClient is returned when the HTTP client given with
// WithProviderHTTPClient skips certificate verification.
var ErrInsecureProviderClient = errors.New("wallet: provider HTTP client skips TLS verification; card data not sent")

// errProviderRedirect stops a provider call at a redirect: card data goes
// to the tokenisationUri the service named and nowhere else.
var errProviderRedirect = errors.New("wallet: provider answered with a redirect; not followed")

// ProviderDKeys gets a fresh providerD key. A key serves one token and
// expires after 15 minutes; TokeniseProviderD gets one itself.
//
// GET /v2/payment/providerD/keys
func (s *Service) ProviderDKeys(ctx context.Context, opts ...client.Option) (ProviderDKey, error) {
	var out ProviderDKeyResponse
	_, err := s.c.Do(ctx, &client.Request{
		Method: http.MethodGet,
		Route:  "/v2/payment/providerD/keys",
		Auth:   client.AuthAccessToken,
	}, &out, opts...)
	if err != nil {
		return ProviderDKey{}, err
	}
	return out.ProviderDKey, nil
}

// TokeniseProviderD tokenises card for providerD and returns the token for
// InsertCardRequest.ProviderDToken. It gets a key from the service
// (ProviderDKeys, with opts), refuses a tokenisationUri that is not https,
// and posts the card straight from this process to the provider, as the
// interface requires: the card details never pass through the service.
//
// The provider call uses the client of WithProviderHTTPClient or
// WithProviderRootCAs (system roots otherwise), is made once (a retry could
// not reuse the single-use key) and follows no redirect. When the
// provider's certificate is signed by no trusted authority, as the
// sandbox's is, the error says how to trust it. A provider error is
// returned as a wrapped *client.APIError, so
// errors.Is(err, client.ErrValidation) and FieldErrors work.
func (s *Service) TokeniseProviderD(ctx context.Context, card CardDetails, opts ...client.Option) (string, error) {
	if err := card.Validate(); err != nil {
		return "", err
	}
	hc, err := s.providerClient()
	if err != nil {
		return "", err
	}
	key, err := s.ProviderDKeys(ctx, opts...)
	if err != nil {
		return "", err
	}
	u, err := url.Parse(key.TokenisationURI)
	if err != nil || u.Scheme != "https" || u.Host == "" {
		return "", ErrInsecureTokenisationURI
	}
	body, err := json.Marshal(ProviderDTokenRequest{
		KeyID:       key.Key.KeyID,
		Number:      card.Number,
		ExpiryMonth: card.ExpiryMonth,
		ExpiryYear:  card.expiryYY(),
		CVC:         card.CVC,
	})
	if err != nil {
		return "", fmt.Errorf("wallet: providerD tokenisation: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), bytes.NewReader(body))
	if err != nil {
		return "", fmt.Errorf("wallet: providerD tokenisation: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", client.DefaultUserAgent)
	resp, err := hc.Do(req)
	if err != nil {
		// *url.Error names the tokenisationUri, which holds no secret; the
		// body with the card data is never part of an error.
		return "", fmt.Errorf("wallet: providerD tokenisation: %w%s", err, trustHint(err))
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return "", fmt.Errorf("wallet: providerD tokenisation: %w", decodeProviderError(resp))
	}
	var out ProviderDTokenResponse
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&out); err != nil {
		return "", fmt.Errorf("wallet: providerD tokenisation: decoding response: %w", err)
	}
	if out.Token == "" {
		return "", errors.New("wallet: providerD tokenisation: empty token")
	}
	return out.Token, nil
}

// trustHint says what to do about a provider certificate that no trusted
// authority signed. In practice that is the sandbox's self-signed HTTPS
// listener reached without its certificate, and Go's error does not say so.
func trustHint(err error) string {
	if !errors.As(err, new(x509.UnknownAuthorityError)) {
		return ""
	}
	return " (if this is the sandbox, trust its self-signed certificate: pass the option of" +
		" sandbox.Service.ProviderTrust to wallet.NewService, or use WithProviderRootCAs)"
}

// providerClient returns the client for provider calls: the configured one
// (or one with the system roots), refusing one that skips verification, with
// redirects turned off and a bound on the whole call.
func (s *Service) providerClient() (*http.Client, error) {
	base := s.provider
	if base == nil {
		base = &http.Client{}
	}
	if t, ok := base.Transport.(*http.Transport); ok && t.TLSClientConfig != nil && t.TLSClientConfig.InsecureSkipVerify {
		return nil, ErrInsecureProviderClient
	}
	hc := *base
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return errProviderRedirect }
	if hc.Timeout == 0 {
		hc.Timeout = client.DefaultTimeout
	}
	return &hc, nil
}

// providerClientWithRoots returns a client that trusts exactly pool.
func providerClientWithRoots(pool *x509.CertPool) *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	return &http.Client{Transport: t, Timeout: 30 * time.Second}
}

// decodeProviderError turns a provider's error response into an APIError.
// The sandbox providers answer with the service's error body; for any other
// body only the status is kept, since a foreign body could echo what was
// sent.
func decodeProviderError(resp *http.Response) *client.APIError {
	e := &client.APIError{HTTPStatus: resp.StatusCode, RequestID: resp.Header.Get(client.HeaderRequestID)}
	var body struct {
		Code          client.Code        `json:"code"`
		Message       string             `json:"message"`
		ContextData   json.RawMessage    `json:"contextData"`
		DisplayString *string            `json:"displayString"`
		RequestInfo   client.RequestInfo `json:"requestInfo"`
	}
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if json.Unmarshal(raw, &body) == nil && body.Code != 0 {
		e.Code = body.Code
		e.Message = body.Code.Message()
		if e.Message == "" {
			e.Message = "provider error"
		}
		if len(body.ContextData) > 0 && string(body.ContextData) != "null" {
			e.ContextData = body.ContextData
		}
		e.DisplayString = body.DisplayString
		e.RequestInfo = body.RequestInfo
		return e
	}
	e.Message = "provider error: " + http.StatusText(resp.StatusCode)
	return e
}
