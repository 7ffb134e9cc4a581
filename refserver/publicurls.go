package refserver

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/hospo-dev/hospo-go/refserver/internal/api"
	"github.com/hospo-dev/hospo-go/refserver/store"
)

// PublicURLs are the base URLs by which clients reach the server, which
// the server hands out (providerD's tokenisationUri is under TLSURL). They
// differ from Config.BaseURL and Config.TLSURL when the server sits behind
// mapped ports: a container's 8443 is the host's 32769, and only the host
// knows which.
type PublicURLs struct {
	URL    string `json:"url"`    // the http base URL
	TLSURL string `json:"tlsUrl"` // the https base URL
}

// PublicURLs returns the base URLs the server hands out now.
func (s *Server) PublicURLs() PublicURLs { return *s.public.Load() }

// SetPublicURLs changes the base URLs the server hands out; an empty field
// keeps its URL. Each must be an absolute URL of its scheme (http, https)
// with a host and nothing after it but a port, and its host one the admin
// API answers (Config.AdminHosts, a loopback name, or the host of a URL
// the server was configured with), which the TLS certificate names too.
// Invalid URLs are a 400002 naming the fields, and change nothing.
func (s *Server) SetPublicURLs(u PublicURLs) error {
	next := s.PublicURLs()
	bad := map[string]string{}
	for _, f := range []struct {
		name, scheme, value string
		into                *string
	}{{"url", "http", u.URL, &next.URL}, {"tlsUrl", "https", u.TLSURL, &next.TLSURL}} {
		if f.value == "" {
			continue
		}
		v, err := s.checkPublicURL(f.scheme, f.value)
		if err != nil {
			bad[f.name] = err.Error()
			continue
		}
		*f.into = v
	}
	if len(bad) > 0 {
		return api.Invalid(bad)
	}
	s.public.Store(&next)
	s.log.Info("public URLs", "url", next.URL, "tlsUrl", next.TLSURL)
	return nil
}

// checkPublicURL returns raw without a trailing slash when it is a public
// base URL of scheme the server may hand out.
func (s *Server) checkPublicURL(scheme, raw string) (string, error) {
	raw, err := baseURL(scheme, raw)
	if err != nil {
		return "", err
	}
	if u, _ := url.Parse(raw); !api.HostsAllowed(s.adminHosts())(u.Host) {
		return "", fmt.Errorf("host %q is not one the server answers under; start it with that host among its admin hosts (refserver -admin-host), so that its certificate names it", u.Hostname())
	}
	return raw, nil
}

// configPublicURL checks raw, the Config field named field, as a base URL
// of scheme, and returns it, or def (the URL the server answers under)
// when raw is empty.
func configPublicURL(field, scheme, raw, def string) (string, error) {
	if raw == "" {
		return def, nil
	}
	u, err := baseURL(scheme, raw)
	if err != nil {
		return "", fmt.Errorf("refserver: Config.%s %w", field, err)
	}
	return u, nil
}

// baseURL returns raw without a trailing slash when it is a base URL of
// scheme: a scheme, a host and perhaps a port.
func baseURL(scheme, raw string) (string, error) {
	raw = strings.TrimRight(raw, "/")
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != scheme || u.Hostname() == "" {
		return "", fmt.Errorf("must be an absolute %s URL with a host, such as %s://localhost:32768", scheme, scheme)
	}
	if u.Path != "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return "", fmt.Errorf("must be a scheme, a host and a port, without a path, query or user")
	}
	return raw, nil
}

// handleGetPublicURLs is GET /sandbox/public-urls. The URLs live in
// memory: the Read only answers.
func (s sandboxAPI) handleGetPublicURLs(*http.Request) (api.Read, error) {
	return func(*store.Tx) (any, error) { return s.PublicURLs(), nil }, nil
}

// handleSetPublicURLs is PUT /sandbox/public-urls (SetPublicURLs), which a
// container's launcher calls once it knows the ports it mapped.
func (s sandboxAPI) handleSetPublicURLs(r *http.Request) (api.Write, error) {
	var req PublicURLs
	if _, err := api.Decode(r, &req); err != nil {
		return nil, err
	}
	if err := s.SetPublicURLs(req); err != nil {
		return nil, err
	}
	// The URLs live in memory, not in the transaction: the Write only
	// gives the answer its idempotency record.
	return func(*store.Tx) (any, error) { return s.PublicURLs(), nil }, nil
}
