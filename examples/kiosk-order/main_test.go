package main

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/refserver/refservertest"
)

// TestKioskOrder runs the example against an in-process sandbox with the
// built-in demo POS.
func TestKioskOrder(t *testing.T) {
	t.Parallel()
	env := refservertest.Start(t)
	var out strings.Builder
	err := run(context.Background(), []string{"-base-url", env.URL, "-admin-key", env.AdminKey, "-timeout", "60s"}, &out)
	if err != nil {
		t.Fatalf("run: %v\noutput:\n%s", err, out.String())
	}
	t.Log(out.String())
	if !strings.Contains(out.String(), "accepted by the POS as ") {
		t.Errorf("output:\n%s", out.String())
	}

	// A wrong admin key stops the kiosk at the fixture, with the typed error.
	err = run(context.Background(), []string{"-base-url", env.URL, "-admin-key", "not-the-key"}, &strings.Builder{})
	if !errors.Is(err, client.ErrAdminKeyInvalid) || !strings.Contains(err.Error(), "read the demo fixture") {
		t.Errorf("run with a wrong admin key: %v, want 401005 while reading the demo fixture", err)
	}
}

// Without -admin-key or $HOSPO_ADMIN_KEY the kiosk uses the local
// sandbox's own key, as every example does.
func TestKioskOrderDefaultsToTheSandboxAdminKey(t *testing.T) {
	t.Setenv("HOSPO_ADMIN_KEY", "")
	env := refservertest.Start(t, func(c *refservertest.Options) { c.AdminKey = defaultAdminKey })
	var out strings.Builder
	if err := run(context.Background(), []string{"-base-url", env.URL, "-timeout", "60s"}, &out); err != nil {
		t.Fatalf("run without -admin-key: %v\n%s", err, out.String())
	}
}
