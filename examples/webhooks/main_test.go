package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"regexp"
	"strings"
	"testing"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/events"
	"github.com/hospo-dev/hospo-go/refserver/refservertest"
)

// TestWebhooks runs the program against a fresh sandbox: it prints the
// three events of its payment and check, and leaves no webhook behind.
func TestWebhooks(t *testing.T) {
	t.Parallel()
	env := refservertest.Start(t)
	var out bytes.Buffer
	if err := run(context.Background(), []string{"-base-url", env.URL, "-admin-key", env.AdminKey}, &out, io.Discard); err != nil {
		t.Fatalf("run: %v\noutput:\n%s", err, out.String())
	}
	for _, want := range []string{
		`(?m)^subscribed webhook wh_\w+ at http://127\.0\.0\.1:\d+/hooks/hospo$`,
		`(?m)^payment\.created evt_\w+ payment \d+: 24\.50 \+ tip 0\.00 on check \d+ at location \d+, pending$`,
		`(?m)^payment\.accepted evt_\w+ payment \d+: 24\.50 \+ tip 0\.00 on check \d+ at location \d+, accepted$`,
		`(?m)^bill\.closed evt_\w+ bill \S+: check \d+ at location \d+ closed, total 24\.50$`,
	} {
		if !regexp.MustCompile(want).MatchString(out.String()) {
			t.Errorf("output lacks %s:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "whsec_") {
		t.Errorf("the output shows the secret:\n%s", out.String())
	}

	// The webhook is deleted on the way out.
	fx := env.Fixtures(t)
	for _, k := range fx.APIKeys {
		hooks, err := events.NewService(env.Client(t, client.WithAPIKey(k.APIKey))).ListWebhooks(context.Background())
		if err != nil || len(hooks) != 0 {
			t.Errorf("key %s: webhooks %v, %v; want none", k.APIKey, hooks, err)
		}
	}
}

// A wrong API key fails the run before anything happens.
func TestWebhooksWrongKey(t *testing.T) {
	t.Parallel()
	env := refservertest.Start(t)
	err := run(context.Background(), []string{"-base-url", env.URL, "-admin-key", env.AdminKey, "-api-key", "wrong"}, io.Discard, io.Discard)
	if !errors.Is(err, client.ErrAPIKeyInvalid) {
		t.Errorf("run with a wrong key = %v, want 401004", err)
	}
}

func TestFlags(t *testing.T) {
	t.Setenv("HOSPO_ADMIN_KEY", "")
	t.Setenv("HOSPO_API_KEY", "from-env")
	cfg, err := parseFlags(nil, io.Discard)
	if err != nil || cfg.adminKey != defaultAdminKey || cfg.apiKey != "from-env" || cfg.listen != "127.0.0.1:0" {
		t.Errorf("defaults: %+v, %v", cfg, err)
	}
	for _, args := range [][]string{{"-timeout", "0s"}, {"extra"}, {"-timeout", "soon"}} {
		var ue usageError
		if _, err := parseFlags(args, io.Discard); !errors.As(err, &ue) {
			t.Errorf("%q: %v, want a usage error", args, err)
		}
	}
}
