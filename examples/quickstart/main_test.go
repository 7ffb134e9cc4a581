package main

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/possync"
	"github.com/hospo-dev/hospo-go/refserver/refservertest"
	"github.com/hospo-dev/hospo-go/wallet"
)

// TestQuickStart runs the program against a fresh sandbox and checks that
// the location's POS sees the payment it made.
func TestQuickStart(t *testing.T) {
	env := refservertest.Start(t)
	ctx := context.Background()
	if err := run(ctx, env.URL, env.AdminKey); err != nil {
		t.Fatalf("run: %v", err)
	}

	fx := env.Fixtures(t)
	loc, ok := fx.Location(wallet.ProviderB)
	if !ok {
		t.Fatal("the fixture has no providerB location")
	}
	pos := env.Client(t, client.WithAccessToken(loc.POSAccessToken))
	pending, err := possync.NewService(pos).Payments(ctx, loc.LocationID)
	if err != nil {
		t.Fatal(err)
	}
	var paid []string
	for _, ps := range pending {
		for _, p := range ps {
			paid = append(paid, p.PaymentExTip.String())
		}
	}
	if len(paid) != 1 || paid[0] != "12.25" {
		t.Errorf("pending payments at %s: %v, want one of 12.25", loc.Name, paid)
	}
}

// TestReadmeQuickStart holds the README's quick start to this program, so
// that what a newcomer pastes is what TestQuickStart runs.
func TestReadmeQuickStart(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	prog, err := os.ReadFile("main.go")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(readme), "\n## Quick start\n")
	if !ok {
		t.Fatal(`README.md has no "## Quick start" section`)
	}
	_, block, ok := strings.Cut(rest, "```go\n")
	if !ok {
		t.Fatal("the quick start has no ```go block")
	}
	block, _, ok = strings.Cut(block, "```\n")
	if !ok {
		t.Fatal("the quick start's ```go block is not closed")
	}
	if !bytes.Equal([]byte(block), prog) {
		t.Error("README.md's quick start differs from examples/quickstart/main.go: copy the file into the README")
	}
}
