package wallet

import (
	"context"
	"crypto/x509"
	"net/http"

	"github.com/hospo-dev/hospo-go/client"
)

// Service is the wallet area of the API: cards, the user's wallet,
// providerD and providerB tokenisation, location details and payments. It
// is safe for concurrent use.
type Service struct {
	c *client.Client
	// provider is the HTTP client for calls that go straight to a payment
	// provider (providerD's tokenisationUri) rather than to the service.
	provider *http.Client
}

// ServiceOption configures a Service.
type ServiceOption func(*Service)

// WithProviderHTTPClient sets the HTTP client used to reach a payment
// provider directly (the providerD tokenisation call). Use it for proxies or
// custom TLS roots. Certificate verification is still required: a client
// whose transport skips verification is refused at the call. Redirects are
// never followed, whatever the client's CheckRedirect says, so card data
// cannot be sent on to another address.
func WithProviderHTTPClient(hc *http.Client) ServiceOption {
	return func(s *Service) { s.provider = hc }
}

// WithProviderRootCAs makes the provider calls trust exactly the
// certificates in pool, such as the sandbox's CA from GET /sandbox/ca.pem.
// It is the way to reach the sandbox's HTTPS listener without turning
// verification off.
func WithProviderRootCAs(pool *x509.CertPool) ServiceOption {
	return func(s *Service) { s.provider = providerClientWithRoots(pool) }
}

// NewService returns the wallet service over c. The access token of c (or
// a per-call client.WithAccessToken) must be a user's token.
func NewService(c *client.Client, opts ...ServiceOption) *Service {
	s := &Service{c: c}
	for _, o := range opts {
		o(s)
	}
	return s
}

// API is the set of calls of Service, so that code using the wallet can be
// tested with a stand-in for one or all of them.
type API interface {
	InsertCard(ctx context.Context, req InsertCardRequest, opts ...client.Option) ([]Card, error)
	GetWallet(ctx context.Context, opts ...client.Option) (User, error)
	ProviderDKeys(ctx context.Context, opts ...client.Option) (ProviderDKey, error)
	ProviderBPublicKey(ctx context.Context, opts ...client.Option) (JWK, error)
	GetLocation(ctx context.Context, locationID int64, opts ...client.Option) (Location, error)
	CreatePayment(ctx context.Context, req CreatePaymentRequest, opts ...client.Option) (Payment, error)
	GetPayment(ctx context.Context, paymentID int64, opts ...client.Option) (Payment, error)
	TokeniseProviderD(ctx context.Context, card CardDetails, opts ...client.Option) (string, error)
	ProviderBCSE(ctx context.Context, card CardDetails, opts ...client.Option) (string, error)
	AddCard(ctx context.Context, req AddCardRequest, opts ...client.Option) (Card, error)
	PayWithRecovery(ctx context.Context, req RecoveryRequest, opts ...client.Option) (Payment, error)
}

var _ API = (*Service)(nil)
