package api

import (
	"net"
	"net/http"
	"net/netip"
	"strings"

	"github.com/hospo-dev/hospo-go/client"
)

// OnlyHosts returns middleware that answers a request only when its Host
// header (port aside, case and a trailing dot ignored) is a loopback name
// (localhost, an address of 127.0.0.0/8, ::1) or one of names; any other
// is a 403001. Wrapped around the sandbox admin API and the console, it
// stops DNS rebinding: a web page whose own host name an attacker points
// at this machine reaches it with that name in the Host header, and the
// browser's same-origin rules would otherwise let the page read the
// answers.
func (rd *Responder) OnlyHosts(names []string) func(http.Handler) http.Handler {
	allowed := HostsAllowed(names)
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !allowed(r.Host) {
				rd.Error(w, r, ErrMsg(client.CodeForbidden,
					"This host name may not reach the sandbox admin API or console; use a loopback name (127.0.0.1, localhost) or one the server allows."))
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

// HostsAllowed returns the test of OnlyHosts: whether a Host header or a
// URL's host (port aside, case and a trailing dot ignored) is a loopback
// name or one of names.
func HostsAllowed(names []string) func(host string) bool {
	allowed := make(map[string]bool, len(names))
	for _, n := range names {
		allowed[normalHost(n)] = true
	}
	return func(host string) bool {
		h := normalHost(host)
		return isLoopbackHost(h) || allowed[h]
	}
}

// normalHost returns the host name of a Host header or URL host: without
// port or IPv6 brackets, lower case, without a trailing dot.
func normalHost(h string) string {
	if host, _, err := net.SplitHostPort(h); err == nil {
		h = host
	}
	h = strings.TrimSuffix(strings.TrimPrefix(h, "["), "]")
	return strings.TrimSuffix(strings.ToLower(h), ".")
}

// isLoopbackHost reports whether h (normalHost'ed) names this machine's
// loopback interface.
func isLoopbackHost(h string) bool {
	if h == "localhost" {
		return true
	}
	ip, err := netip.ParseAddr(h)
	return err == nil && ip.Unmap().IsLoopback()
}
