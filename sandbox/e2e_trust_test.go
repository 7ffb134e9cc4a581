package sandbox_test

import (
	"bytes"
	"context"
	"crypto/x509"
	"errors"
	"strings"
	"testing"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/wallet"
)

func TestE2ECACertificate(t *testing.T) {
	t.Parallel()
	env, sb := startSandbox(t)
	// Public: a client without the admin key gets it too.
	pem, err := sb.CACertificate(context.Background(), client.WithAdminKey(""))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(pem, env.CAPEM) {
		t.Errorf("certificate = %q, want the server's %q", pem, env.CAPEM)
	}
	if _, err := sb.CertPool(context.Background()); err != nil {
		t.Errorf("CertPool: %v", err)
	}
}

// ProviderTrust is all a wallet needs to tokenise at providerD over the
// sandbox's real HTTPS listener; without it the error names the call.
func TestE2EProviderTrustTokenisesWithProviderD(t *testing.T) {
	t.Parallel()
	env, sb := startSandbox(t)
	ctx := context.Background()
	f, err := sb.Fixtures(ctx)
	if err != nil {
		t.Fatal(err)
	}
	userClient := env.Client(t, client.WithAccessToken(f.Users[0].AccessToken))

	_, err = wallet.NewService(userClient).TokeniseProviderD(ctx, testCard())
	if !errors.As(err, new(x509.UnknownAuthorityError)) || !strings.Contains(err.Error(), "sandbox.Service.ProviderTrust") {
		t.Errorf("without trust: err = %v, want unknown authority with a hint naming ProviderTrust", err)
	}

	trust, err := sb.ProviderTrust(ctx)
	if err != nil {
		t.Fatal(err)
	}
	w := wallet.NewService(userClient, trust)
	card, err := w.AddCard(ctx, wallet.AddCardRequest{Card: testCard(), Providers: []wallet.Gateway{wallet.ProviderD}})
	if err != nil {
		t.Fatalf("AddCard with providerD: %v", err)
	}
	if !card.Gateways.ProviderD {
		t.Errorf("card = %+v, want a providerD token", card)
	}
}
