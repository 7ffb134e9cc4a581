package wallet_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/hospo-dev/hospo-go/internal/syncbuf"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/refserver/refservertest"
	"github.com/hospo-dev/hospo-go/wallet"
)

// Every card flow, successful or refused, leaves no full card number and
// no CVC in the database (file and WAL) or in the server's log.
func TestE2ENoCardDataStoredOrLogged(t *testing.T) {
	t.Parallel()
	var logs syncbuf.Buffer
	env := refservertest.Start(t, func(cfg *refservertest.Options) {
		cfg.Logger = slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	})
	u := env.NewDiner(t)
	ctx := t.Context()
	numbers := []string{visaNumber, mcNumber, amexNumber, declineNumber}

	for _, n := range numbers {
		if _, err := u.Wallet.AddCard(ctx, wallet.AddCardRequest{Card: refservertest.Card(n), Providers: []wallet.Gateway{wallet.ProviderB, wallet.ProviderD}}); err != nil {
			t.Fatalf("AddCard %s: %v", n[:6], err)
		}
	}
	// Refused flows: a Luhn failure at the provider, a mismatching insert,
	// an expired card.
	k, err := u.Wallet.ProviderDKeys(ctx)
	if err != nil {
		t.Fatal(err)
	}
	bad := refservertest.Card(visaNumber)
	bad.Number = "4111111111111129"
	tokenise(t, env.HTTPSClient(), k.TokenisationURI, k.Key.KeyID, bad)
	cse, err := u.Wallet.ProviderBCSE(ctx, refservertest.Card(mcNumber))
	if err != nil {
		t.Fatal(err)
	}
	ins := insertFor(refservertest.Card(visaNumber))
	ins.ProviderBCse = cse
	if _, err := u.Wallet.InsertCard(ctx, ins); err == nil {
		t.Fatal("mismatching insert accepted")
	}
	// Recovery, with the details supplied again.
	loc := env.NewVenue(t, refservertest.VenueConfig{Name: "Quay", Gateway: wallet.ProviderD})
	locB := env.NewVenue(t, refservertest.VenueConfig{Name: "Harbour", Gateway: wallet.ProviderB})
	loc.Heartbeat(t)
	loc.PushCheck(t, loc.OpenCheck(7, "50.00"))
	first, err := u.Wallet.AddCard(ctx, wallet.AddCardRequest{Card: refservertest.Card(visaNumber), Providers: []wallet.Gateway{locB.Gateway}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = u.Wallet.PayWithRecovery(ctx, wallet.RecoveryRequest{
		Payment:        wallet.CreatePaymentRequest{LocationID: loc.ID, CheckNumber: 7, CardID: first.CardID, Amount: client.MustParseMoney("5.00")},
		IdempotencyKey: "secret-scan",
		CardDetails: func(context.Context, wallet.Gateway) (wallet.CardDetails, error) {
			return refservertest.Card(visaNumber), nil
		},
	})
	if err != nil {
		t.Fatalf("PayWithRecovery: %v", err)
	}

	// Reads after the writes, so the WAL holds everything written.
	db := string(env.DBBytes(t))
	log := logs.String()
	if !strings.Contains(db, "providerD_tok_") || !strings.Contains(log, "/v3/user/me/wallet/card/insert") {
		t.Fatalf("the scan does not see the data: db %d bytes, log %d bytes", len(db), len(log))
	}
	for where, text := range map[string]string{"database": db, "log": log} {
		for _, n := range append(numbers, bad.Number) {
			if strings.Contains(text, n) {
				t.Errorf("%s holds the card number %s...", where, n[:6])
			}
		}
		// A CVC is too short to search for alone; look for it as a JSON
		// member and for the member names of raw card data.
		for _, needle := range []string{`"cvc"`, `"number"`, `"` + testCVCs[0] + `"`, `"` + testCVCs[1] + `"`} {
			if strings.Contains(text, needle) {
				t.Errorf("%s holds %s", where, needle)
			}
		}
	}
}
