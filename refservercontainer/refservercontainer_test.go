package refservercontainer_test

import (
	"context"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/testcontainers/testcontainers-go"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/possync"
	"github.com/hospo-dev/hospo-go/refservercontainer"
	"github.com/hospo-dev/hospo-go/wallet"
)

// image is the sandbox image under test: REFSERVER_IMAGE, which .ci/run
// sets to the image it built. Without it, or without a container runtime,
// the test skips on a developer's machine and fails in CI.
func image(t *testing.T) string {
	t.Helper()
	img := os.Getenv("REFSERVER_IMAGE")
	runtime := os.Getenv("DOCKER_HOST") != ""
	if _, err := os.Stat("/var/run/docker.sock"); err == nil {
		runtime = true
	}
	var missing []string
	if img == "" {
		missing = append(missing, "REFSERVER_IMAGE (the image to test; .ci/image builds one)")
	}
	if !runtime {
		missing = append(missing, "a container runtime (DOCKER_HOST, or /var/run/docker.sock; podman: podman system service)")
	}
	if len(missing) > 0 {
		msg := "needs " + strings.Join(missing, " and ")
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return img
}

// A whole flow through the container, from this process as an integrator's
// test would: a card added over HTTPS (providerD tokenisation at the
// tokenisationUri the sandbox hands out, through the mapped TLS port), a
// payment, and the POS polling for it and accepting it.
func TestPaymentFlowThroughTheContainer(t *testing.T) {
	img := image(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	c, err := refservercontainer.Run(ctx, img, runtimeOptions()...)
	testcontainers.CleanupContainer(t, c)
	if err != nil {
		t.Fatal(err)
	}

	sb, err := c.Sandbox()
	if err != nil {
		t.Fatal(err)
	}
	fx, err := sb.Fixtures(ctx)
	if err != nil {
		t.Fatal(err)
	}
	loc, ok := fx.Location(wallet.ProviderD)
	if !ok {
		t.Fatal("no providerD location in the demo fixture")
	}

	// The POS is online and has a check to pay.
	posClient, err := c.Client(client.WithAccessToken(loc.POSAccessToken))
	if err != nil {
		t.Fatal(err)
	}
	pos := possync.NewService(posClient)
	if _, err := pos.Heartbeat(ctx, loc.LocationID); err != nil {
		t.Fatal(err)
	}
	total := client.MustParseMoney("18.40")
	check := &possync.Check{
		CheckNumber: 4242, LocationID: loc.LocationID, TableNumber: 3, Status: possync.CheckOpen,
		TotalAmount: total, OutstandingAmount: total,
		MenuItems: []possync.MenuItem{{ID: 1, Name: "Risotto", Quantity: 1, Price: total, PriceSold: total,
			Category: possync.Category{Name: "Mains"}}},
	}
	if _, err := pos.PushCheck(ctx, check); err != nil {
		t.Fatal(err)
	}

	// The diner's card goes to providerD over HTTPS, at the URL the
	// sandbox hands out: the mapped TLS port, not the container's 8443.
	dinerClient, err := c.Client(client.WithAccessToken(fx.Users[0].AccessToken))
	if err != nil {
		t.Fatal(err)
	}
	trust, err := sb.ProviderTrust(ctx)
	if err != nil {
		t.Fatal(err)
	}
	w := wallet.NewService(dinerClient, trust)
	key, err := w.ProviderDKeys(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if u, err := url.Parse(key.TokenisationURI); err != nil || "https://"+u.Host != c.TLSURL {
		t.Fatalf("tokenisationUri %q is not under the mapped TLS port %s", key.TokenisationURI, c.TLSURL)
	}
	card, err := w.AddCard(ctx, wallet.AddCardRequest{
		Card: wallet.CardDetails{Number: "4111111111111111", CVC: "123", ExpiryMonth: 12,
			ExpiryYear: (time.Now().Year() + 2) % 100, HolderName: "Container Diner"},
		Providers: []wallet.Gateway{wallet.ProviderD},
	})
	if err != nil {
		t.Fatalf("adding a providerD card through the container: %v", err)
	}
	paid := client.MustParseMoney("10.00")
	p, err := w.CreatePayment(ctx, wallet.CreatePaymentRequest{
		LocationID: loc.LocationID, CheckNumber: check.CheckNumber, CardID: card.CardID, Amount: paid,
	})
	if err != nil {
		t.Fatal(err)
	}

	// The POS finds the payment in its poll and accepts it; then it is gone.
	polled, err := pos.Payments(ctx, loc.LocationID)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, n := range polled[check.CheckNumber] {
		found = found || n.PaymentID == p.PaymentID
	}
	if !found {
		t.Fatalf("payment %d not in the POS poll: %+v", p.PaymentID, polled)
	}
	if _, err := pos.AcceptPayment(ctx, p.PaymentID); err != nil {
		t.Fatal(err)
	}
	polled, err = pos.Payments(ctx, loc.LocationID)
	if err != nil {
		t.Fatal(err)
	}
	if len(polled[check.CheckNumber]) != 0 {
		t.Errorf("accepted payment still polled: %+v", polled)
	}
}
