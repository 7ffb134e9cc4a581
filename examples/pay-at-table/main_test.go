package main

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/refserver/refservertest"
)

func TestRun(t *testing.T) {
	t.Parallel()
	env := refservertest.Start(t)
	args := []string{"-base-url", env.URL, "-admin-key", env.AdminKey, "-check", "4242"}
	var out bytes.Buffer
	if err := run(t.Context(), args, &out, io.Discard); err != nil {
		t.Fatalf("run: %v\noutput:\n%s", err, out.String())
	}
	for _, want := range []string{
		"check 4242 is open",
		"added card",
		"paid 20.00 + 2.00 tip",
		"404006",
		"tokenising the card for",
		"paid 15.50 + 1.50 tip",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "4111111111111111") {
		t.Error("output shows the card number")
	}

	// A second visit (a new check) on the same demo wallet: recovery now
	// reuses the entry that the first run added instead of tokenising again.
	out.Reset()
	if err := run(t.Context(), []string{"-base-url", env.URL, "-admin-key", env.AdminKey, "-check", "4243"}, &out, io.Discard); err != nil {
		t.Fatalf("second run: %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "404006") || strings.Contains(out.String(), "tokenising the card for") {
		t.Errorf("second run output:\n%s", out.String())
	}

	// A wrong admin key stops the run at the fixture, with the typed error.
	err := run(t.Context(), []string{"-base-url", env.URL, "-admin-key", "not-the-key"}, io.Discard, io.Discard)
	if !errors.Is(err, client.ErrAdminKeyInvalid) || !strings.Contains(err.Error(), "reading the demo fixture") {
		t.Errorf("run with a wrong admin key: %v, want 401005 while reading the demo fixture", err)
	}
}

func TestRunFlags(t *testing.T) {
	t.Parallel()
	var ue usageError
	for _, args := range [][]string{{"-nope"}, {"extra"}} {
		err := run(t.Context(), args, io.Discard, io.Discard)
		if !errors.As(err, &ue) {
			t.Errorf("%v: err = %v, want a usage error", args, err)
		}
	}
}
