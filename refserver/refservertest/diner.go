package refservertest

import (
	"context"
	"testing"
	"time"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/fulfillment"
	"github.com/hospo-dev/hospo-go/wallet"
)

// Diner is a user of the server with a wallet: it adds cards and pays
// towards the checks of venues.
type Diner struct {
	UserID      int64
	AccessToken string
	Client      *client.Client       // the SDK client with the user's token
	Wallet      *wallet.Service      // trusts the sandbox CA, for providerD
	Order       *fulfillment.Service // orders as the user
	Card        wallet.Card          // the card AddCard added last; zero before
}

// NewDiner creates a user (POST /sandbox/users) with an empty wallet. opts
// are added to the options of the user's SDK client, after the test
// defaults and the access token.
func (e *Env) NewDiner(t testing.TB, opts ...client.Option) *Diner {
	t.Helper()
	id, token := e.NewUser(t)
	c := e.Client(t, append([]client.Option{client.WithAccessToken(token)}, opts...)...)
	return &Diner{
		UserID: id, AccessToken: token, Client: c,
		Wallet: wallet.NewService(c, wallet.WithProviderRootCAs(e.RootCAs)),
		Order:  fulfillment.NewService(c),
	}
}

// Card returns the details of a test card with number, which expires in
// three years. Any Luhn-valid number tokenises in the sandbox; its CVC is
// "739", or "8264" for a 15-digit number (whose network has 4-digit
// codes).
func Card(number string) wallet.CardDetails {
	cvc := "739"
	if len(number) == 15 {
		cvc = "8264"
	}
	return wallet.CardDetails{
		Number: number, CVC: cvc, ExpiryMonth: 7,
		ExpiryYear: (time.Now().UTC().Year() + 3) % 100, HolderName: "Test Diner",
	}
}

// AddCard tokenises Card(number) for gateways, adds it to the diner's
// wallet and makes it d.Card.
func (d *Diner) AddCard(t testing.TB, number string, gateways ...wallet.Gateway) wallet.Card {
	t.Helper()
	c, err := d.Wallet.AddCard(context.Background(), wallet.AddCardRequest{Card: Card(number), Providers: gateways})
	if err != nil {
		t.Fatalf("refservertest: add card for %v: %v", gateways, err)
	}
	d.Card = c
	return c
}

// Pay pays amount and tip (decimals, "12.50") towards check number of v
// with d.Card.
func (d *Diner) Pay(t testing.TB, v *Venue, checkNumber int64, amount, tip string) wallet.Payment {
	t.Helper()
	p, err := d.Wallet.CreatePayment(context.Background(), wallet.CreatePaymentRequest{
		LocationID: v.ID, CheckNumber: checkNumber, CardID: d.Card.CardID,
		Amount: client.MustParseMoney(amount), Tip: client.MustParseMoney(tip),
	})
	if err != nil {
		t.Fatalf("refservertest: pay %s towards check %d of location %d: %v", amount, checkNumber, v.ID, err)
	}
	return p
}
