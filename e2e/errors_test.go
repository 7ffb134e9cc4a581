package e2e_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hospo-dev/hospo-go/bills"
	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/refserver/refservertest"
	"github.com/hospo-dev/hospo-go/sandbox"
	"github.com/hospo-dev/hospo-go/wallet"
)

// errorText returns what err says without its request id, failing the test
// unless err is an *client.APIError that ends with one (the id differs on
// every run; the rest of the text must not).
func errorText(t *testing.T, err error) string {
	t.Helper()
	var apiErr *client.APIError
	if !errors.As(err, &apiErr) {
		t.Fatalf("err = %v, want an *client.APIError", err)
	}
	msg := err.Error()
	suffix := " (request id " + apiErr.RequestID + ")"
	if apiErr.RequestID == "" || !strings.HasSuffix(msg, suffix) {
		t.Fatalf("%q does not end with its request id", msg)
	}
	return strings.TrimSuffix(msg, suffix)
}

// wantErrorText fails the test unless err is code and says want (request
// id aside).
func wantErrorText(t *testing.T, err error, code client.Code, want string) {
	t.Helper()
	if !errors.Is(err, code) {
		t.Fatalf("err = %v, want %d", err, code)
	}
	if got := errorText(t, err); got != want {
		t.Errorf("Error() = %q\n            want %q", got, want)
	}
}

// A base URL with a path in front of the API's (an /api that is not
// there) reaches no route: the error names the route asked for and says
// to check the base URL.
func TestErrorTextWrongBaseURLPath(t *testing.T) {
	t.Parallel()
	env := refservertest.Start(t)
	token := env.Fixtures(t).Users[0].AccessToken
	w := wallet.NewService(env.Client(t, client.WithBaseURL(env.URL+"/api"), client.WithAccessToken(token)))
	_, err := w.GetWallet(context.Background())
	wantErrorText(t, err, client.CodeNotFound,
		"hospo: GET /api/v1/user/me: HTTP 404: 404001 No such route: no route GET /api/v1/user/me; check the client's base URL and its path")
	if strings.Contains(err.Error(), token) {
		t.Errorf("the error carries the access token: %v", err)
	}
}

// A 400002 lists every failing field, the missing ones and the wrong ones,
// in one answer.
func TestErrorTextValidationListsEveryField(t *testing.T) {
	t.Parallel()
	env := refservertest.Start(t)
	d := env.NewDiner(t)
	_, err := d.Client.Do(context.Background(), &client.Request{
		Method: http.MethodPost,
		Path:   "payments/v1/payment",
		Body:   json.RawMessage(`{"locationId":1,"amount":0,"tip":-1}`),
		Auth:   client.AuthAccessToken,
	}, nil)
	wantErrorText(t, err, client.CodeValidation, "hospo: POST /payments/v1/payment: HTTP 400: 400002 Validation failed: "+
		"amount: must be greater than 0; cardId: required; checkNumber: required; tip: must not be negative")
}

// A 409003 tells when the POS last sent a heartbeat, or that it never
// did, and what the POS must do.
func TestErrorTextLocationOffline(t *testing.T) {
	t.Parallel()
	env := refservertest.Start(t)
	ctx := context.Background()
	sb := sandbox.NewService(env.Client(t, client.WithAdminKey(env.AdminKey)))
	d := env.NewDiner(t)
	d.AddCard(t, visaNumber, wallet.ProviderB)
	pay := func(v *refservertest.Venue) error {
		_, err := d.Wallet.CreatePayment(ctx, wallet.CreatePaymentRequest{
			LocationID: v.ID, CheckNumber: 1, CardID: d.Card.CardID,
			Amount: client.MustParseMoney("1.00"), Tip: client.MustParseMoney("0"),
		})
		return err
	}
	const todo = "; the location's POS must send a heartbeat in the last 6m0s (possync.Service.Heartbeat, or a running possync.Agent) before it takes payments"

	quiet := env.NewVenue(t, refservertest.VenueConfig{Name: "Quiet"})
	quiet.PushCheck(t, quiet.OpenCheck(1, "10.00"))
	wantErrorText(t, pay(quiet), client.CodeLocationOffline,
		"hospo: POST /payments/v1/payment: HTTP 409: 409003 Location offline: last heartbeat never"+todo)

	v := env.NewVenue(t, refservertest.VenueConfig{Name: "Gone quiet"})
	v.PushCheck(t, v.OpenCheck(1, "10.00"))
	v.Heartbeat(t)
	loc, err := d.Wallet.GetLocation(ctx, v.ID)
	if err != nil || loc.LastHeartbeat == nil {
		t.Fatalf("location %+v, %v; want a last heartbeat", loc, err)
	}
	if _, err := sb.AdvanceClock(ctx, 7*time.Minute); err != nil {
		t.Fatal(err)
	}
	wantErrorText(t, pay(v), client.CodeLocationOffline,
		"hospo: POST /payments/v1/payment: HTTP 409: 409003 Location offline: last heartbeat "+
			loc.LastHeartbeat.UTC().Format(time.RFC3339)+todo)
}

// A 404006 names the gateway the card lacks a token for.
func TestErrorTextCardNotTokenised(t *testing.T) {
	t.Parallel()
	env := refservertest.Start(t)
	v := env.NewVenue(t, refservertest.VenueConfig{Gateway: wallet.ProviderD})
	v.PushCheck(t, v.OpenCheck(1, "10.00"))
	v.Heartbeat(t)
	d := env.NewDiner(t)
	d.AddCard(t, visaNumber, wallet.ProviderB)
	_, err := d.Wallet.CreatePayment(context.Background(), wallet.CreatePaymentRequest{
		LocationID: v.ID, CheckNumber: 1, CardID: d.Card.CardID,
		Amount: client.MustParseMoney("1.00"), Tip: client.MustParseMoney("0"),
	})
	wantErrorText(t, err, client.CodeCardNotTokenised, "hospo: POST /payments/v1/payment: HTTP 404: 404006 Payment card not tokenised: "+
		"the card has no providerD token; add one for providerD (wallet.Service.AddCard) or pay with wallet.Service.PayWithRecovery")
}

// A 404001 names the kind of thing not found, and says the same of
// another user's (or another vendor's) as of one that does not exist.
func TestErrorTextNotFoundNamesTheKind(t *testing.T) {
	t.Parallel()
	env := refservertest.Start(t)
	ctx := context.Background()
	v := env.NewVenue(t, refservertest.VenueConfig{})
	v.PushCheck(t, v.OpenCheck(1, "10.00"))
	v.Heartbeat(t)
	owner, other := env.NewDiner(t), env.NewDiner(t)
	owner.AddCard(t, visaNumber, wallet.ProviderB)
	other.AddCard(t, visaNumber, wallet.ProviderB)
	paid := owner.Pay(t, v, 1, "1.00", "0")
	pay := func(d *refservertest.Diner, locationID, checkNumber, cardID int64) error {
		_, err := d.Wallet.CreatePayment(ctx, wallet.CreatePaymentRequest{
			LocationID: locationID, CheckNumber: checkNumber, CardID: cardID,
			Amount: client.MustParseMoney("1.00"), Tip: client.MustParseMoney("0"),
		})
		return err
	}
	closed := env.NewVenue(t, refservertest.VenueConfig{})
	c := closed.OpenCheck(1, "0.00")
	c.Status = "closed"
	closed.PushCheck(t, c)
	bill := bills.NewService(env.Client(t, client.WithAPIKey(v.NewAPIKey(t))))
	billID := closedBillID(t, env, closed)

	const pay404 = "hospo: POST /payments/v1/payment: HTTP 404: 404001 "
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"unknown payment", second(owner.Wallet.GetPayment(ctx, paid.PaymentID+1000)),
			"hospo: GET /payments/v1/payment/" + itoa(paid.PaymentID+1000) + ": HTTP 404: 404001 Payment not found."},
		{"another user's payment", second(other.Wallet.GetPayment(ctx, paid.PaymentID)),
			"hospo: GET /payments/v1/payment/" + itoa(paid.PaymentID) + ": HTTP 404: 404001 Payment not found."},
		{"unknown location", pay(owner, 999999, 1, owner.Card.CardID), pay404 + "Location not found."},
		{"unknown card", pay(owner, v.ID, 1, 999999), pay404 + "Card not found."},
		{"another user's card", pay(owner, v.ID, 1, other.Card.CardID), pay404 + "Card not found."},
		{"unknown check", pay(owner, v.ID, 999, owner.Card.CardID), pay404 + "Check not found."},
		{"unknown order", second(owner.Order.Order(ctx, "00000000-0000-4000-8000-000000000000")),
			"fulfillment: get order: hospo: GET /ordering/v3/order/00000000-0000-4000-8000-000000000000: HTTP 404: 404001 Order not found."},
		{"unknown bill", second(bill.Get(ctx, "no-such-bill", nil)),
			"hospo: GET /v3/bill/no-such-bill: HTTP 404: 404001 Bill not found."},
		{"another vendor's bill", second(bill.Get(ctx, billID, nil)),
			"hospo: GET /v3/bill/" + billID + ": HTTP 404: 404001 Bill not found."},
		{"unknown location's details", second(owner.Wallet.GetLocation(ctx, 999999)),
			"hospo: GET /v1/location/999999: HTTP 404: 404001 Location not found."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantErrorText(t, tt.err, client.CodeNotFound, tt.want)
		})
	}
}

// A path that exists, asked with a method it does not take, is a 405001,
// and the Allow header lists the methods it takes.
func TestErrorTextMethodNotAllowed(t *testing.T) {
	t.Parallel()
	env := refservertest.Start(t)
	d := env.NewDiner(t)
	_, err := d.Client.Do(context.Background(), &client.Request{Method: http.MethodDelete, Path: "v1/user/me", Auth: client.AuthAccessToken}, nil)
	wantErrorText(t, err, client.CodeMethodNotAllowed, "hospo: DELETE /v1/user/me: HTTP 405: 405001 Method not allowed.")

	// The Allow header of the API's paths is the contract's check; the
	// admin API's is the sandbox's own.
	env.CheckContract(t, "wire/method-not-allowed")
	for path, want := range map[string]string{"/sandbox/faults": "GET, POST, DELETE"} {
		req, err := http.NewRequest(http.MethodPut, env.URL+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != want {
			t.Errorf("PUT %s: status %d, Allow %q; want 405 and %q", path, resp.StatusCode, resp.Header.Get("Allow"), want)
		}
	}
}

// closedBillID returns the id of the one closed bill of v, which the API
// key of another location may not see.
func closedBillID(t *testing.T, env *refservertest.Env, v *refservertest.Venue) string {
	t.Helper()
	b := bills.NewService(env.Client(t, client.WithAPIKey(v.NewAPIKey(t))))
	now := time.Now().UTC()
	got, err := b.ListClosed(context.Background(), v.ID, now.Add(-24*time.Hour), now.Add(24*time.Hour))
	if err != nil || len(got) != 1 {
		t.Fatalf("closed bills of location %d: %+v, %v", v.ID, got, err)
	}
	return got[0].BillID
}

// second returns the error of a (value, error) pair.
func second[T any](_ T, err error) error { return err }
