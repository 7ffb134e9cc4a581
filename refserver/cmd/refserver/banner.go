package main

import (
	"fmt"
	"io"
	"net"
	"strings"

	"github.com/hospo-dev/hospo-go/refserver/sandbox"
)

// publicAddr is addr as a URL host: an unspecified address (0.0.0.0, ::)
// becomes 127.0.0.1, which reaches it from the same machine.
func publicAddr(addr net.Addr) string {
	host, port, err := net.SplitHostPort(addr.String())
	if err != nil {
		return addr.String()
	}
	if ip := net.ParseIP(host); ip == nil || ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port)
}

// isExposed reports whether addr is not loopback-only: whether other
// machines may reach it.
func isExposed(addr net.Addr) bool {
	host, _, err := net.SplitHostPort(addr.String())
	if err != nil {
		return true
	}
	ip := net.ParseIP(host)
	return ip == nil || !ip.IsLoopback()
}

// printBanner shows how to reach the server and the demo credentials. They
// go to stdout for the developer, never to the log.
func printBanner(w io.Writer, o options, baseURL, tlsURL, caPath string, f sandbox.Fixtures) {
	var b strings.Builder
	fmt.Fprintf(&b, "hospo reference server\n")
	fmt.Fprintf(&b, "  HTTP       %s\n", baseURL)
	fmt.Fprintf(&b, "  HTTPS      %s\n", tlsURL)
	fmt.Fprintf(&b, "  Console    %s/console (log in with the admin key)\n", baseURL)
	if caPath != "" {
		fmt.Fprintf(&b, "  CA cert    %s (also at %s/sandbox/ca.pem)\n", caPath, baseURL)
	} else {
		fmt.Fprintf(&b, "  CA cert    %s/sandbox/ca.pem (in memory)\n", baseURL)
	}
	fmt.Fprintf(&b, "  Database   %s\n", o.db)
	fmt.Fprintf(&b, "  Admin key  %s (header X-Sandbox-Admin-Key)\n", o.adminKey)
	fmt.Fprintf(&b, "\nDemo users (query parameter accessToken):\n")
	for _, u := range f.Users {
		fmt.Fprintf(&b, "  user %-3d  %s\n", u.UserID, u.AccessToken)
	}
	fmt.Fprintf(&b, "Demo locations (POS access token for the push-pull endpoints):\n")
	for _, l := range f.Locations {
		fmt.Fprintf(&b, "  location %-3d  %-16s %-10s %s\n", l.LocationID, l.Name, l.Gateway, l.POSAccessToken)
	}
	fmt.Fprintf(&b, "Demo vendor API keys (header X-Vendor-API-Key):\n")
	for _, k := range f.APIKeys {
		ids := make([]string, len(k.LocationIDs))
		for i, id := range k.LocationIDs {
			ids[i] = fmt.Sprint(id)
		}
		fmt.Fprintf(&b, "  %s  locations %s\n", k.APIKey, strings.Join(ids, ","))
	}
	_, _ = io.WriteString(w, b.String())
}
