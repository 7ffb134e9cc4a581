package sandbox

import (
	"context"
	"net/http"

	"github.com/hospo-dev/hospo-go/client"
)

// PublicURLs are the base URLs the sandbox hands out (providerD's
// tokenisationUri is under TLSURL): by default those it listens on. Behind
// mapped ports, a container's say, a launcher sets the ones that reach it.
type PublicURLs struct {
	URL    string `json:"url,omitempty"`    // the http base URL
	TLSURL string `json:"tlsUrl,omitempty"` // the https base URL
}

// PublicURLs returns the base URLs the sandbox hands out.
//
// GET /sandbox/public-urls
func (s *Service) PublicURLs(ctx context.Context, opts ...client.Option) (PublicURLs, error) {
	var out PublicURLs
	_, err := s.c.Do(ctx, &client.Request{
		Method: http.MethodGet,
		Route:  "/sandbox/public-urls",
		Auth:   client.AuthAdminKey,
	}, &out, opts...)
	return out, err
}

// SetPublicURLs changes the base URLs the sandbox hands out, and returns
// them as they now stand; an empty field keeps its URL. Each host must be
// one the sandbox's admin API answers under (a loopback name, or one it
// was started with: refserver -admin-host), or the answer is a 400002.
//
// PUT /sandbox/public-urls
func (s *Service) SetPublicURLs(ctx context.Context, u PublicURLs, opts ...client.Option) (PublicURLs, error) {
	var out PublicURLs
	_, err := s.c.Do(ctx, &client.Request{
		Method: http.MethodPut,
		Route:  "/sandbox/public-urls",
		Body:   u,
		Auth:   client.AuthAdminKey,
	}, &out, opts...)
	return out, err
}
