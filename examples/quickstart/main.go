// Command quickstart pays a check in the local sandbox. It plays the
// location's POS (a heartbeat and an open check), adds a test card to the
// wallet of the first of the two demo users and pays part of the check
// with it.
//
//	go run ./refserver/cmd/refserver   # in another terminal
//	go run ./examples/quickstart
//
// HOSPO_BASE_URL and HOSPO_ADMIN_KEY override the sandbox's URL and admin
// key (by default the local sandbox's own).
package main

import (
	"context"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/possync"
	"github.com/hospo-dev/hospo-go/sandbox"
	"github.com/hospo-dev/hospo-go/wallet"
)

func main() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := run(ctx, os.Getenv("HOSPO_BASE_URL"), os.Getenv("HOSPO_ADMIN_KEY")); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, baseURL, adminKey string) error {
	if baseURL == "" {
		baseURL = client.SandboxURL
	}
	if adminKey == "" {
		adminKey = "sandbox-admin-key"
	}

	// The sandbox's admin API hands out the demo credentials.
	admin, err := client.New(client.WithBaseURL(baseURL), client.WithAdminKey(adminKey))
	if err != nil {
		return err
	}
	fx, err := sandbox.NewService(admin).Fixtures(ctx)
	if err != nil {
		return err
	}
	loc, _ := fx.Location(wallet.ProviderB)
	diner := fx.Users[0]

	// Play the location's POS: it is online and has a check to pay.
	pos, err := client.New(client.WithBaseURL(baseURL), client.WithAccessToken(loc.POSAccessToken))
	if err != nil {
		return err
	}
	till := possync.NewService(pos)
	if _, err := till.Heartbeat(ctx, loc.LocationID); err != nil {
		return err
	}
	total := client.MustParseMoney("24.50")
	check := &possync.Check{
		CheckNumber: time.Now().Unix() % 1_000_000, LocationID: loc.LocationID, TableNumber: 4,
		Status: possync.CheckOpen, TotalAmount: total, OutstandingAmount: total,
		MenuItems: []possync.MenuItem{{ID: 1, Name: "Fish and chips", Quantity: 1, Price: total,
			PriceSold: total, Category: possync.Category{Name: "Mains"}}},
	}
	if _, err := till.PushCheck(ctx, check); err != nil {
		return err
	}

	// The diner adds a sandbox test card and pays half the check.
	c, err := client.New(client.WithBaseURL(baseURL), client.WithAccessToken(diner.AccessToken))
	if err != nil {
		return err
	}
	w := wallet.NewService(c)
	card, err := w.AddCard(ctx, wallet.AddCardRequest{
		Card:      wallet.CardDetails{Number: "4111111111111111", CVC: "123", ExpiryMonth: 12, ExpiryYear: 2030, HolderName: "A Diner"},
		Providers: []wallet.Gateway{wallet.ProviderB},
	})
	if err != nil {
		return err
	}
	p, err := w.CreatePayment(ctx, wallet.CreatePaymentRequest{
		LocationID: loc.LocationID, CheckNumber: check.CheckNumber,
		CardID: card.CardID, Amount: client.MustParseMoney("12.25"),
	})
	if err != nil {
		return err
	}
	fmt.Printf("payment %d: %s paid on check %d at %s\n", p.PaymentID, p.Amount, check.CheckNumber, loc.Name)
	return nil
}
