package main

import (
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/hospo-dev/hospo-go/refserver/sim"
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

// banner is what the server prints on start: how to reach it, the demo
// credentials and the virtual clock when it is not at real time. It goes to
// stdout for the developer, never to the log.
type banner struct {
	baseURL, tlsURL string
	caPath          string // "" when the certificate is in memory
	db, adminKey    string
	fixtures        sim.Fixtures
	// clockOffset is the virtual clock's lead over real time, kept in the
	// database from an earlier run: a serverTime hours ahead, or bills
	// stamped in the future, are puzzling unless the banner says why.
	clockOffset time.Duration
}

func (bn banner) write(w io.Writer) {
	var b strings.Builder
	fmt.Fprintf(&b, "hospo reference server\n")
	fmt.Fprintf(&b, "  HTTP       %s\n", bn.baseURL)
	fmt.Fprintf(&b, "  HTTPS      %s\n", bn.tlsURL)
	fmt.Fprintf(&b, "  Console    %s/console (log in with the admin key)\n", bn.baseURL)
	if bn.caPath != "" {
		fmt.Fprintf(&b, "  CA cert    %s (also at %s/sandbox/ca.pem)\n", bn.caPath, bn.baseURL)
	} else {
		fmt.Fprintf(&b, "  CA cert    %s/sandbox/ca.pem (in memory)\n", bn.baseURL)
	}
	fmt.Fprintf(&b, "  Database   %s\n", bn.db)
	fmt.Fprintf(&b, "  Admin key  %s (header X-Sandbox-Admin-Key)\n", bn.adminKey)
	if bn.clockOffset > 0 {
		fmt.Fprintf(&b, "  Clock      virtual clock +%s ahead of real time, kept from an earlier run (only a reset sets it back, and it empties the sandbox: POST /sandbox/reset or %s/console/controls)\n",
			bn.clockOffset, bn.baseURL)
	}
	f := bn.fixtures
	ids := make([]int64, len(f.Users))
	for i, u := range f.Users {
		ids[i] = u.UserID
	}
	b.WriteString("\n")
	if len(ids) > 0 {
		// The README names the demo users by id, and so does this line, so
		// that "the demo user" is never ambiguous.
		fmt.Fprintf(&b, "Demo users %s, diners (query parameter accessToken; the examples use user %d):\n", joinIDs(ids), ids[0])
	}
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

// joinIDs lists ids as a sentence does: "1", "1 and 2", "1, 2 and 3".
func joinIDs(ids []int64) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = strconv.FormatInt(id, 10)
	}
	if len(s) < 2 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}
