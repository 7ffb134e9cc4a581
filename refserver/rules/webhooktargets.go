package rules

import (
	"net/netip"
	"net/url"
	"strings"
)

// Webhook targets the server refuses to call unless it is told to
// (Config.AllowLinkLocalWebhooks): link-local addresses, which is where
// cloud providers serve their instance metadata (credentials included),
// and the other well-known metadata addresses and names. Loopback and
// private addresses stay allowed: a receiver on the developer's own
// machine is what the sandbox is for. A name is checked when the webhook
// is made; the address it resolves to, at every delivery
// (ForbiddenTargetAddr), so that a name pointing at such an address is
// refused too.

// metadataAddrs are cloud metadata addresses outside the link-local
// ranges: AWS's IPv6 endpoint and Alibaba Cloud's.
var metadataAddrs = []netip.Addr{
	netip.MustParseAddr("fd00:ec2::254"),
	netip.MustParseAddr("100.100.100.200"),
}

// metadataHosts are the names of cloud metadata services.
var metadataHosts = []string{
	"metadata.google.internal", "metadata.goog", "metadata",
	"instance-data", "instance-data.ec2.internal",
}

// ForbiddenTargetAddr reports whether a webhook may not be delivered to
// ip: a link-local address (169.254.0.0/16, fe80::/10, link-local
// multicast) or a cloud metadata address, IPv4-mapped forms included.
func ForbiddenTargetAddr(ip netip.Addr) bool {
	ip = ip.Unmap().WithZone("")
	if ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() {
		return true
	}
	for _, m := range metadataAddrs {
		if ip == m {
			return true
		}
	}
	return false
}

// reasonForbiddenTarget is the 400002 reason of such a URL.
const reasonForbiddenTarget = "must not be a link-local or cloud metadata address (start the server with -webhook-allow-link-local to allow one)"

// webhookTargetProblem returns the reason a webhook URL, which has passed
// events.CreateWebhookRequest.Validate, names a forbidden target, or "".
func webhookTargetProblem(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	for _, m := range metadataHosts {
		if host == m {
			return reasonForbiddenTarget
		}
	}
	if ip, err := netip.ParseAddr(host); err == nil && ForbiddenTargetAddr(ip) {
		return reasonForbiddenTarget
	}
	return ""
}
