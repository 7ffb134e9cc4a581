package main

import (
	"context"
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hospo-dev/hospo-go/internal/syncbuf"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/refserver/refservertest"
	"github.com/hospo-dev/hospo-go/wallet"
)

// TestPOSAgent runs the simulated POS against an in-process sandbox; a
// diner pays part of check 1001 through the service, and the POS saves and
// accepts the payment.
func TestPOSAgent(t *testing.T) {
	env := refservertest.Start(t)
	fx := env.Fixtures(t)
	index := -1
	for i, l := range fx.Locations {
		if l.Gateway == "providerB" {
			index = i
		}
	}
	if index < 0 || len(fx.Users) == 0 {
		t.Fatalf("demo fixture without a providerB location or a user: %+v", fx)
	}
	loc := fx.Locations[index].LocationID

	var out syncbuf.Buffer
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{
			"-base-url", env.URL, "-admin-key", env.AdminKey, "-location", itoa(index),
			"-tables", "2", "-tick", "5ms", "-poll", "20ms", "-cash-after", "0",
		}, &out, io.Discard)
	}()

	w := wallet.NewService(env.Client(t, client.WithAccessToken(fx.Users[0].AccessToken)))
	card, err := w.AddCard(ctx, wallet.AddCardRequest{
		Card:      wallet.CardDetails{Number: "4111111111111111", CVC: "737", ExpiryMonth: 3, ExpiryYear: 37, HolderName: "A Diner"},
		Providers: []wallet.Gateway{wallet.ProviderB},
	})
	if err != nil {
		t.Fatalf("AddCard: %v", err)
	}
	// Pay as soon as the check is on the service with enough outstanding
	// and the POS's heartbeat has made the location online.
	var paymentID int64
	deadline := time.Now().Add(30 * time.Second)
	for paymentID == 0 {
		p, err := w.CreatePayment(ctx, wallet.CreatePaymentRequest{
			LocationID: loc, CheckNumber: 1001, CardID: card.CardID,
			Amount: client.MustParseMoney("1.00"), Tip: client.MustParseMoney("0.10"),
		})
		switch {
		case err == nil:
			paymentID = p.PaymentID
		case time.Now().After(deadline):
			t.Fatalf("could not pay check 1001: %v\nPOS output:\n%s", err, out.String())
		case errors.Is(err, client.ErrNotFound), errors.Is(err, client.ErrLocationOffline),
			errors.Is(err, client.ErrAmountExceedsOutstanding):
			time.Sleep(5 * time.Millisecond) // not pushed or not online yet
		default:
			t.Fatalf("CreatePayment: %v", err)
		}
	}
	for {
		p, err := w.GetPayment(ctx, paymentID)
		if err != nil {
			t.Fatal(err)
		}
		if p.Status == wallet.PaymentAccepted {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("payment still %s\nPOS output:\n%s", p.Status, out.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("run: %v", err)
	}
	got := out.String()
	for _, want := range []string{
		"POS for location " + itoa(int(loc)),
		"payment " + itoa(int(paymentID)) + " of 1.00 (tip 0.10) saved on check 1001",
		"payments accepted",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}

	// A wrong admin key stops the POS at the fixture, with the typed error;
	// so does a location the fixture does not have.
	err = run(context.Background(), []string{"-base-url", env.URL, "-admin-key", "not-the-key"}, io.Discard, io.Discard)
	if !errors.Is(err, client.ErrAdminKeyInvalid) || !strings.Contains(err.Error(), "reading the sandbox fixtures") {
		t.Errorf("run with a wrong admin key: %v, want 401005 while reading the fixtures", err)
	}
	err = run(context.Background(), []string{"-base-url", env.URL, "-admin-key", env.AdminKey, "-location", itoa(len(fx.Locations))}, io.Discard, io.Discard)
	if want := "the sandbox has " + itoa(len(fx.Locations)) + " demo locations"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("run with -location out of range: %v, want %q", err, want)
	}
}

func TestRunFlags(t *testing.T) {
	tests := [][]string{
		{},                                  // no admin key
		{"-admin-key", "k", "-tables", "0"}, // no tables
		{"-nope"},
	}
	for _, args := range tests {
		if err := run(context.Background(), args, io.Discard, io.Discard); err == nil {
			t.Errorf("run(%q) succeeded", args)
		}
	}
}

func itoa[T ~int | ~int64](n T) string { return strconv.FormatInt(int64(n), 10) }
