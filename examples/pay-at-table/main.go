// Command pay-at-table walks through paying a check at a table with a
// wallet card, against the reference server's demo fixture:
//
//  1. a demo user adds a card, tokenised for the first demo location's
//     payment provider, and pays part of a check there;
//  2. the same card is used at the second demo location, which pays
//     through the other provider: the payment fails with 404006 (card not
//     tokenised for that provider);
//  3. PayWithRecovery looks up the location's provider, tokenises the card
//     for it, adds it to the wallet and pays again, once.
//
// Usage:
//
//	go run ./refserver/cmd/refserver &
//	go run ./examples/pay-at-table [-base-url http://127.0.0.1:8080] [-admin-key sandbox-admin-key]
//
// Flags:
//
//	-base-url   the reference server's base URL (default the local sandbox)
//	-admin-key  the sandbox admin key; when empty, $HOSPO_ADMIN_KEY is used
//	            (default sandbox-admin-key, the local sandbox's own)
//	-check      the check number to use at both locations (default: one
//	            derived from the time, so that every run pays a fresh check)
//
// The demo credentials come from the sandbox package's Fixtures (GET
// /sandbox/fixtures), and its ProviderTrust makes the wallet trust exactly
// the certificate of the sandbox's HTTPS listener, where providerD's
// tokenisation endpoint lives; verification is never turned off.
//
// The program also plays each location's POS (with the location's POS
// access token): it pushes the check and sends a heartbeat, since a
// payment needs a check to pay and an online POS to receive it.
//
// The card is a sandbox test card. A real app takes the details from the
// user, hands them straight to the SDK and never stores or logs them.
//
// The exit status is 2 for bad flags and 1 when a step fails.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"time"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/possync"
	"github.com/hospo-dev/hospo-go/sandbox"
	"github.com/hospo-dev/hospo-go/wallet"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	var ue usageError
	switch {
	case errors.As(err, &ue):
		fmt.Fprintln(os.Stderr, "pay-at-table:", err)
		os.Exit(2)
	case err != nil:
		fmt.Fprintln(os.Stderr, "pay-at-table:", err)
		os.Exit(1)
	}
}

// usageError marks a problem with the flags.
type usageError struct{ error }

// defaultAdminKey is the local sandbox's well-known admin key.
const defaultAdminKey = "sandbox-admin-key"

// testCard is a sandbox test card (any Luhn-valid number tokenises).
func testCard(now time.Time) wallet.CardDetails {
	return wallet.CardDetails{
		Number:      "4111111111111111",
		CVC:         "123",
		ExpiryMonth: 12,
		ExpiryYear:  (now.Year() + 3) % 100,
		HolderName:  "Demo Diner",
	}
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("pay-at-table", flag.ContinueOnError)
	fs.SetOutput(stderr)
	baseURL := fs.String("base-url", client.SandboxURL, "the reference server's base URL")
	adminKey := fs.String("admin-key", "", "sandbox admin key (default $HOSPO_ADMIN_KEY, else "+defaultAdminKey+")")
	checkFlag := fs.Int64("check", 0, "check number to pay (default: derived from the time)")
	if err := fs.Parse(args); err != nil {
		return usageError{err}
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Errorf("unexpected arguments %q", fs.Args())}
	}
	if *adminKey == "" {
		*adminKey = os.Getenv("HOSPO_ADMIN_KEY")
	}
	if *adminKey == "" {
		*adminKey = defaultAdminKey
	}
	check := *checkFlag
	if check <= 0 {
		check = time.Now().Unix() % 1_000_000_000
	}

	// The demo credentials and the sandbox's certificate.
	admin, err := client.New(client.WithBaseURL(*baseURL), client.WithAdminKey(*adminKey))
	if err != nil {
		return usageError{err}
	}
	sb := sandbox.NewService(admin)
	fx, err := sb.Fixtures(ctx)
	if err != nil {
		return fmt.Errorf("reading the demo fixture: %w", err)
	}
	if len(fx.Users) == 0 || len(fx.Locations) < 2 {
		return errors.New("the demo fixture needs a user and two locations")
	}
	if fx.Locations[0].Gateway == fx.Locations[1].Gateway {
		return errors.New("the demo locations use the same provider; nothing to recover")
	}
	trust, err := sb.ProviderTrust(ctx)
	if err != nil {
		return fmt.Errorf("trusting the sandbox's certificate: %w", err)
	}

	// The user's side: one client and the wallet service.
	userClient, err := client.New(client.WithBaseURL(*baseURL), client.WithAccessToken(fx.Users[0].AccessToken))
	if err != nil {
		return err
	}
	w := wallet.NewService(userClient, trust)

	// The POS side of both locations: a check to pay and a heartbeat.
	first, second := fx.Locations[0], fx.Locations[1]
	for _, l := range fx.Locations[:2] {
		pos, err := client.New(client.WithBaseURL(*baseURL), client.WithAccessToken(l.POSAccessToken))
		if err != nil {
			return err
		}
		if err := openCheck(ctx, possync.NewService(pos), l.LocationID, check); err != nil {
			return fmt.Errorf("%s: %w", l.Name, err)
		}
	}
	fmt.Fprintf(stdout, "check %d is open at %s (%s) and %s (%s)\n", check, first.Name, first.Gateway, second.Name, second.Gateway)

	// 1. Add a card for the first location's provider and pay there.
	details := testCard(time.Now())
	c, err := w.AddCard(ctx, wallet.AddCardRequest{
		Card:      details,
		Providers: []wallet.Gateway{first.Gateway},
		Nickname:  "demo card",
	})
	if err != nil {
		return fmt.Errorf("adding the card: %w", err)
	}
	fmt.Fprintf(stdout, "added card %d ending %s for %s\n", c.CardID, c.Last4Digits, first.Gateway)

	key := "pay-at-table-" + strconv.FormatInt(check, 10)
	p, err := w.CreatePayment(ctx, wallet.CreatePaymentRequest{
		LocationID: first.LocationID, CheckNumber: check, CardID: c.CardID,
		Amount: client.MustParseMoney("20.00"), Tip: client.MustParseMoney("2.00"),
	}, client.WithIdempotencyKey(key+"-first"))
	if err != nil {
		return fmt.Errorf("paying at %s: %w", first.Name, err)
	}
	fmt.Fprintf(stdout, "paid %s + %s tip at %s: payment %d %s\n", p.Amount, p.Tip, first.Name, p.PaymentID, p.Status)

	// 2. The same card at the second location: not tokenised there.
	req := wallet.CreatePaymentRequest{
		LocationID: second.LocationID, CheckNumber: check, CardID: c.CardID,
		Amount: client.MustParseMoney("15.50"), Tip: client.MustParseMoney("1.50"),
	}
	_, err = w.CreatePayment(ctx, req)
	if !errors.Is(err, client.ErrCardNotTokenised) {
		return fmt.Errorf("paying at %s: want 404006, got %v", second.Name, err)
	}
	fmt.Fprintf(stdout, "paying at %s: 404006, the card has no %s token\n", second.Name, second.Gateway)

	// 3. Recover: tokenise for the second location's provider and pay.
	p, err = w.PayWithRecovery(ctx, wallet.RecoveryRequest{
		Payment:        req,
		IdempotencyKey: key + "-second",
		CardDetails: func(_ context.Context, gw wallet.Gateway) (wallet.CardDetails, error) {
			// An app would ask the user to enter the card again here.
			fmt.Fprintf(stdout, "tokenising the card for %s\n", gw)
			return details, nil
		},
		Nickname: "demo card",
	})
	if err != nil {
		return fmt.Errorf("recovering at %s: %w", second.Name, err)
	}
	fmt.Fprintf(stdout, "paid %s + %s tip at %s with card %d: payment %d %s\n",
		p.Amount, p.Tip, second.Name, p.CardID, p.PaymentID, p.Status)
	return nil
}

// openCheck pushes an open check of 50.00 and a heartbeat for a location,
// as its POS would.
func openCheck(ctx context.Context, pos *possync.Service, locationID, number int64) error {
	total := client.MustParseMoney("50.00")
	_, err := pos.PushCheck(ctx, &possync.Check{
		TableNumber: 12, CheckNumber: number, LocationID: locationID, StaffID: "demo", Guests: 2,
		Status: possync.CheckOpen, TotalAmount: total, OutstandingAmount: total,
		MenuItems: []possync.MenuItem{{
			ID: 1, Name: "Tasting menu", Quantity: 2,
			Price: client.MustParseMoney("25.00"), PriceSold: client.MustParseMoney("25.00"),
			Category: possync.Category{Name: "Mains"},
		}},
	})
	if err != nil {
		return fmt.Errorf("pushing the check: %w", err)
	}
	if _, err := pos.Heartbeat(ctx, locationID); err != nil {
		return fmt.Errorf("heartbeat: %w", err)
	}
	return nil
}
