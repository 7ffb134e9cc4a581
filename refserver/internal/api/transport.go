package api

import "net/http"

// WrapTransport returns a copy of hc whose transport is wrap applied to
// hc's own (http.DefaultTransport when hc has none). It is how the server
// marks its outgoing calls (SelfCalls, and package outbound's trace
// context) while the client it was given stays as it is.
func WrapTransport(hc *http.Client, wrap func(next http.RoundTripper) http.RoundTripper) *http.Client {
	c := *hc
	next := c.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	c.Transport = wrap(next)
	return &c
}
