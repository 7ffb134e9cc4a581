package outbound

import (
	"context"
	"errors"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/hospo-dev/hospo-go/universalpos"
)

// posCallTimeout bounds one call to a POS.
const posCallTimeout = 10 * time.Second

// newPOSClient returns a client for a location's universal POS on the
// server's HTTP client, with a timeout per call. opts are applied last, so
// a caller can change retries or timeouts (orders are sent with
// WithRetries(0) because the dispatcher paces its own tries).
func newPOSClient(hc *http.Client, posURL, posToken string, opts ...universalpos.ClientOption) *universalpos.Client {
	base := []universalpos.ClientOption{
		universalpos.WithHTTPClient(hc),
		universalpos.WithTimeout(posCallTimeout),
		universalpos.WithRetries(1),
		universalpos.WithBackoff(200*time.Millisecond, time.Second),
		universalpos.WithUserAgent("hospo-refserver"),
	}
	return universalpos.NewClient(posURL, posToken, append(base, opts...)...)
}

// publicPOSError describes a failed call to a POS for pos_health_message,
// which anyone can read on the location's public details. A transport
// error's own text names the POS's URL (net/http's errors quote it, and
// DNS and TLS errors name the host), which is the vendor's business, so
// only the kind of failure is kept.
func publicPOSError(err error) string {
	var pe *universalpos.Error
	if !errors.As(err, &pe) {
		return "the POS could not be reached"
	}
	if pe.Message != "" || pe.StatusCode != 0 {
		// The client's own descriptions and the POS's status: no URL.
		described := *pe
		described.Err = nil
		return strings.TrimPrefix(described.Error(), "universalpos: ")
	}
	cause := "the connection failed"
	var (
		netErr net.Error
		dnsErr *net.DNSError
		opErr  *net.OpError
		sysErr *os.SyscallError
	)
	switch {
	case errors.As(pe.Err, &dnsErr):
		cause = "the POS's host name did not resolve"
	case errors.As(pe.Err, &netErr) && netErr.Timeout(), errors.Is(pe.Err, context.DeadlineExceeded):
		cause = "timed out"
	case errors.As(pe.Err, &opErr) && opErr.Op == "dial" && errors.As(opErr.Err, &sysErr):
		cause = "cannot connect: " + sysErr.Error() // e.g. "connect: connection refused"
	case errors.As(pe.Err, &opErr) && opErr.Op == "dial":
		cause = "cannot connect"
	}
	if pe.Op == "" {
		return cause
	}
	return pe.Op + ": " + cause
}

// truncateText cuts s to at most n bytes without splitting a UTF-8
// sequence.
func truncateText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "..."
}
