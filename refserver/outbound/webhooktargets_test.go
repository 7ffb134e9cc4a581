package outbound

import (
	"errors"
	"testing"
)

// Deliveries refuse to connect to a forbidden address, which the dialer
// sees once the webhook's name is resolved.
func TestRefuseForbiddenTarget(t *testing.T) {
	t.Parallel()
	for addr, refused := range map[string]bool{
		"169.254.169.254:80":          true,
		"[fe80::1%eth0]:443":          true,
		"[::ffff:169.254.169.254]:80": true,
		"[fd00:ec2::254]:80":          true,
		"127.0.0.1:8080":              false,
		"[::1]:80":                    false,
		"192.168.1.20:80":             false,
	} {
		err := refuseForbiddenTarget("tcp", addr, nil)
		if got := errors.Is(err, errForbiddenTarget); got != refused {
			t.Errorf("%s: %v", addr, err)
		}
	}
	if webhookPolicy().Temporary(errForbiddenTarget) {
		t.Error("a forbidden target is retried")
	}
}
