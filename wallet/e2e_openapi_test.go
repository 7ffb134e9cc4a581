package wallet_test

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/refserver/openapi"
	"github.com/hospo-dev/hospo-go/refserver/refservertest"
	"github.com/hospo-dev/hospo-go/wallet"
)

// The wallet's requests and the server's answers, errors included, match
// the OpenAPI document: the SDK goes through openapi.ValidatingHandler,
// which reports every mismatch as a test error.
func TestE2EOpenAPIConformance(t *testing.T) {
	t.Parallel()
	tln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	env := refservertest.Start(t, func(cfg *refservertest.Options) { cfg.TLSURL = "https://" + tln.Addr().String() })
	h := openapi.ValidatingHandler(t, env.Server.Handler())
	plain := httptest.NewServer(h)
	t.Cleanup(plain.Close)
	secure := &http.Server{Handler: h}
	go func() { _ = secure.Serve(tls.NewListener(tln, env.Server.TLSConfig())) }()
	t.Cleanup(func() { _ = secure.Close() })

	_, tok := env.NewUser(t)
	c := env.Client(t, client.WithAccessToken(tok), client.WithBaseURL(plain.URL))
	w := wallet.NewService(c, wallet.WithProviderRootCAs(env.RootCAs))
	ctx := t.Context()

	loc := env.NewVenue(t, refservertest.VenueConfig{Name: "Quay", Gateway: wallet.ProviderD})
	loc.Heartbeat(t)
	loc.PushCheck(t, loc.OpenCheck(1, "20.00"))

	cb, err := w.AddCard(ctx, wallet.AddCardRequest{Card: refservertest.Card(visaNumber), Providers: []wallet.Gateway{wallet.ProviderB, wallet.ProviderD}, Nickname: "n"})
	if err != nil {
		t.Fatal(err)
	}
	cB, err := w.AddCard(ctx, wallet.AddCardRequest{Card: refservertest.Card(mcNumber), Providers: []wallet.Gateway{wallet.ProviderB}, Temporary: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.GetWallet(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := w.GetLocation(ctx, loc.ID); err != nil {
		t.Fatal(err)
	}
	f := env.Fixtures(t)
	if _, err := w.GetLocation(ctx, f.Locations[0].LocationID); err != nil {
		t.Fatal(err)
	}
	p, err := w.CreatePayment(ctx, wallet.CreatePaymentRequest{LocationID: loc.ID, CheckNumber: 1, CardID: cb.CardID,
		Amount: client.MustParseMoney("5.00"), Tip: client.MustParseMoney("0.50")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.GetPayment(ctx, p.PaymentID); err != nil {
		t.Fatal(err)
	}
	// Error answers are checked too.
	_, err = w.CreatePayment(ctx, wallet.CreatePaymentRequest{LocationID: loc.ID, CheckNumber: 1, CardID: cB.CardID, Amount: client.MustParseMoney("1.00")})
	if !errors.Is(err, client.ErrCardNotTokenised) {
		t.Fatalf("err = %v", err)
	}
	if _, err := w.PayWithRecovery(ctx, wallet.RecoveryRequest{
		Payment:        wallet.CreatePaymentRequest{LocationID: loc.ID, CheckNumber: 1, CardID: cB.CardID, Amount: client.MustParseMoney("1.00")},
		IdempotencyKey: "openapi",
		CardDetails: func(context.Context, wallet.Gateway) (wallet.CardDetails, error) {
			return refservertest.Card(mcNumber), nil
		},
	}); err != nil {
		t.Fatal(err)
	}
	_, err = w.InsertCard(ctx, wallet.InsertCardRequest{ExpiryMonth: 1, ExpiryYear: 40, First6Digits: "411111", Last4Digits: "1111", ProviderDToken: "x"})
	if !errors.Is(err, client.ErrValidation) {
		t.Fatalf("err = %v", err)
	}
	admin := env.Client(t, client.WithAdminKey(env.AdminKey), client.WithBaseURL(plain.URL))
	if _, err := admin.Do(ctx, &client.Request{Method: http.MethodPost, Path: "sandbox/cards/" + itoa(cB.CardID) + "/status",
		Body: map[string]int{"cardStatusId": 2}, Auth: client.AuthAdminKey}, nil); err != nil {
		t.Fatal(err)
	}
	_, err = w.CreatePayment(ctx, wallet.CreatePaymentRequest{LocationID: loc.ID, CheckNumber: 1, CardID: cB.CardID, Amount: client.MustParseMoney("1.00")})
	if !errors.Is(err, client.ErrCardNotUsable) {
		t.Fatalf("err = %v", err)
	}
}
