package rules

import (
	"errors"
	"testing"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/events"
)

// Link-local and cloud metadata targets are refused unless allowed, in
// every spelling of their address; loopback and private ones are fine.
func TestCheckWebhookRefusesLinkLocalAndMetadataTargets(t *testing.T) {
	t.Parallel()
	for _, u := range []string{
		"http://169.254.169.254/latest/meta-data/",
		"http://169.254.170.2/",
		"http://[fe80::1]/",
		"http://[fe80::1%25eth0]:8080/",
		"http://[::ffff:169.254.169.254]/",
		"http://[fd00:ec2::254]/",
		"http://100.100.100.200/",
		"http://metadata.google.internal/computeMetadata/v1/",
		"https://METADATA.Google.Internal./",
		"http://metadata/",
	} {
		req := events.CreateWebhookRequest{URL: u, Events: []events.Type{events.AllTypes}}
		if err := CheckWebhook(req, nil, false); !errors.Is(err, client.ErrValidation) {
			t.Errorf("%s: %v, want 400002", u, err)
		}
		if err := CheckWebhook(req, nil, true); err != nil {
			t.Errorf("%s allowed: %v", u, err)
		}
	}
	for _, u := range []string{
		"http://127.0.0.1:9/h", "http://localhost:8080/", "http://[::1]/", "http://10.0.0.7/",
		"https://hooks.example.com/", "http://169.255.0.1/", "http://metadata.example.com/",
	} {
		if err := CheckWebhook(events.CreateWebhookRequest{URL: u, Events: []events.Type{events.AllTypes}}, nil, false); err != nil {
			t.Errorf("%s: %v", u, err)
		}
	}
}
