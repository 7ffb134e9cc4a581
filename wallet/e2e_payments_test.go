package wallet_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/refserver/refservertest"
	"github.com/hospo-dev/hospo-go/wallet"
)

// payEnv is a server with two online locations, one per tokenising
// provider.
type payEnv struct {
	env        *refservertest.Env
	locB, locD *refservertest.Venue
}

func newPayEnv(t *testing.T) payEnv {
	t.Helper()
	env := refservertest.Start(t)
	p := payEnv{env: env,
		locB: env.NewVenue(t, refservertest.VenueConfig{Name: "Harbour Kitchen", Gateway: wallet.ProviderB}),
		locD: env.NewVenue(t, refservertest.VenueConfig{Name: "Quay Bistro", Gateway: wallet.ProviderD}),
	}
	p.locB.Heartbeat(t)
	p.locD.Heartbeat(t)
	return p
}

// checkNumbers hands out distinct check numbers to parallel subtests.
var checkNumbers = struct {
	next chan int64
}{next: func() chan int64 {
	c := make(chan int64, 1)
	c <- 1000
	return c
}()}

func nextCheck() int64 {
	n := <-checkNumbers.next
	checkNumbers.next <- n + 1
	return n
}

func TestE2EPayments(t *testing.T) {
	t.Parallel()
	pe := newPayEnv(t)
	env := pe.env

	pay := func(loc *refservertest.Venue, check, cardID int64, amount string) wallet.CreatePaymentRequest {
		return wallet.CreatePaymentRequest{LocationID: loc.ID, CheckNumber: check, CardID: cardID,
			Amount: client.MustParseMoney(amount), Tip: client.MustParseMoney("1.00")}
	}

	t.Run("pay, poll, accept", func(t *testing.T) {
		t.Parallel()
		u := env.NewDiner(t)
		c := u.AddCard(t, visaNumber, wallet.ProviderB)
		check := nextCheck()
		pe.locB.PushCheck(t, pe.locB.OpenCheck(check, "30.00"))
		p, err := u.Wallet.CreatePayment(t.Context(), pay(pe.locB, check, c.CardID, "12.50"))
		if err != nil {
			t.Fatalf("CreatePayment: %v", err)
		}
		if p.Status != wallet.PaymentPending || p.Amount.String() != "12.50" || p.Tip.String() != "1.00" ||
			p.CardID != c.CardID || p.BillID == "" || p.CreatedAt.IsZero() {
			t.Errorf("payment = %+v", p)
		}
		polled, err := pe.locB.POS.Payments(t.Context(), pe.locB.ID)
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, n := range polled[check] {
			found = found || (n.PaymentID == p.PaymentID && n.PaymentExTip.String() == "12.50")
		}
		if !found {
			t.Errorf("payment %d not in the POS poll: %+v", p.PaymentID, polled)
		}
		if _, err := pe.locB.POS.AcceptPayment(t.Context(), p.PaymentID); err != nil {
			t.Fatal(err)
		}
		got, err := u.Wallet.GetPayment(t.Context(), p.PaymentID)
		if err != nil || got.Status != wallet.PaymentAccepted || got.PaymentID != p.PaymentID {
			t.Errorf("GetPayment = %+v, %v", got, err)
		}
	})

	t.Run("same idempotency key pays once", func(t *testing.T) {
		t.Parallel()
		u := env.NewDiner(t)
		c := u.AddCard(t, visaNumber, wallet.ProviderD)
		check := nextCheck()
		pe.locD.PushCheck(t, pe.locD.OpenCheck(check, "20.00"))
		req := pay(pe.locD, check, c.CardID, "20.00")
		p1, err := u.Wallet.CreatePayment(t.Context(), req, client.WithIdempotencyKey("table-4-pay"))
		if err != nil {
			t.Fatal(err)
		}
		p2, err := u.Wallet.CreatePayment(t.Context(), req, client.WithIdempotencyKey("table-4-pay"))
		if err != nil || p2.PaymentID != p1.PaymentID {
			t.Errorf("replay = %+v, %v; want payment %d", p2, err, p1.PaymentID)
		}
		// The whole outstanding is pending now: a new key cannot pay again.
		if _, err := u.Wallet.CreatePayment(t.Context(), req); !errors.Is(err, client.ErrAmountExceedsOutstanding) {
			t.Errorf("second payment: %v, want 409002", err)
		}
	})

	t.Run("404006 then recovery", func(t *testing.T) {
		t.Parallel()
		u := env.NewDiner(t)
		c := u.AddCard(t, visaNumber, wallet.ProviderB)
		check := nextCheck()
		pe.locD.PushCheck(t, pe.locD.OpenCheck(check, "40.00"))
		req := pay(pe.locD, check, c.CardID, "15.00")
		_, err := u.Wallet.CreatePayment(t.Context(), req)
		if !errors.Is(err, client.ErrCardNotTokenised) {
			t.Fatalf("err = %v, want 404006", err)
		}
		// interface.md section 7 gives the message word for word.
		var apiErr *client.APIError
		if errors.As(err, &apiErr) && (apiErr.Message != "Payment card not tokenised." ||
			string(apiErr.ContextData) != `{"gateway":"providerD"}`) {
			t.Errorf("404006 message %q, contextData %s", apiErr.Message, apiErr.ContextData)
		}
		asked := 0
		rr := wallet.RecoveryRequest{
			Payment: req, IdempotencyKey: "check-" + strconv.FormatInt(check, 10),
			CardDetails: func(_ context.Context, gw wallet.Gateway) (wallet.CardDetails, error) {
				asked++
				return refservertest.Card(visaNumber), nil
			},
		}
		p, err := u.Wallet.PayWithRecovery(t.Context(), rr)
		if err != nil {
			t.Fatalf("PayWithRecovery: %v", err)
		}
		if p.CardID == c.CardID || asked != 1 {
			t.Errorf("paid with card %d (asked %d times), want a new entry", p.CardID, asked)
		}
		// Running it again (a crash after paying, then a re-run) pays
		// nothing new and adds no card.
		p2, err := u.Wallet.PayWithRecovery(t.Context(), rr)
		if err != nil || p2.PaymentID != p.PaymentID {
			t.Errorf("re-run = %+v, %v; want payment %d again", p2, err, p.PaymentID)
		}
		usr, _ := u.Wallet.GetWallet(t.Context())
		if len(usr.Wallet) != 2 || asked != 1 {
			t.Errorf("wallet has %d entries and details were asked %d times; want 2 and 1", len(usr.Wallet), asked)
		}
	})

	t.Run("errors", func(t *testing.T) {
		t.Parallel()
		u := env.NewDiner(t)
		other := env.NewDiner(t)
		cB := u.AddCard(t, visaNumber, wallet.ProviderB)
		otherCard := other.AddCard(t, visaNumber, wallet.ProviderB)
		declined := u.AddCard(t, declineNumber, wallet.ProviderB, wallet.ProviderD)
		cancelled := u.AddCard(t, mcNumber, wallet.ProviderB)
		if st := env.AdminDo(t, http.MethodPost, "/sandbox/cards/"+strconv.FormatInt(cancelled.CardID, 10)+"/status",
			map[string]any{"cardStatusId": int(wallet.CardStatusUserCancelled)}, nil); st != 200 {
			t.Fatalf("set status: %d", st)
		}
		offline := env.NewVenue(t, refservertest.VenueConfig{Name: "Closed Cafe", Gateway: wallet.ProviderB}) // no heartbeat
		check := nextCheck()
		pe.locB.PushCheck(t, pe.locB.OpenCheck(check, "10.00"))
		offline.PushCheck(t, offline.OpenCheck(check, "10.00"))

		tests := []struct {
			name string
			req  wallet.CreatePaymentRequest
			want error
		}{
			{"unknown location", pay(&refservertest.Venue{ID: 999999}, check, cB.CardID, "1.00"), client.ErrNotFound},
			{"unknown check", pay(pe.locB, 999999, cB.CardID, "1.00"), client.ErrNotFound},
			{"unknown card", pay(pe.locB, check, 999999, "1.00"), client.ErrNotFound},
			{"another user's card", pay(pe.locB, check, otherCard.CardID, "1.00"), client.ErrNotFound},
			{"not tokenised", pay(pe.locD, nextCheckPushed(t, pe.locD), cB.CardID, "1.00"), client.ErrCardNotTokenised},
			{"offline", pay(offline, check, cB.CardID, "1.00"), client.ErrLocationOffline},
			{"card not usable", pay(pe.locB, check, cancelled.CardID, "1.00"), client.ErrCardNotUsable},
			{"over outstanding", pay(pe.locB, check, cB.CardID, "10.01"), client.ErrAmountExceedsOutstanding},
			{"declined", pay(pe.locB, check, declined.CardID, "1.00"), client.ErrPaymentDeclined},
			{"zero amount", pay(pe.locB, check, cB.CardID, "0"), client.ErrValidation},
		}
		for _, tt := range tests {
			_, err := u.Wallet.CreatePayment(t.Context(), tt.req)
			if !errors.Is(err, tt.want) {
				t.Errorf("%s: err = %v, want %v", tt.name, err, tt.want)
			}
		}

		// Pending payments count against the outstanding amount.
		if _, err := u.Wallet.CreatePayment(t.Context(), pay(pe.locB, check, cB.CardID, "6.00")); err != nil {
			t.Fatal(err)
		}
		if _, err := u.Wallet.CreatePayment(t.Context(), pay(pe.locB, check, cB.CardID, "4.01")); !errors.Is(err, client.ErrAmountExceedsOutstanding) {
			t.Errorf("over outstanding minus pending: %v", err)
		}
		p, err := u.Wallet.CreatePayment(t.Context(), pay(pe.locB, check, cB.CardID, "4.00"))
		if err != nil {
			t.Fatalf("exactly the rest: %v", err)
		}
		// Another user's payment is not found.
		if _, err := other.Wallet.GetPayment(t.Context(), p.PaymentID); !errors.Is(err, client.ErrNotFound) {
			t.Errorf("another user's payment: %v", err)
		}
		if _, err := u.Wallet.GetPayment(t.Context(), 999999); !errors.Is(err, client.ErrNotFound) {
			t.Errorf("unknown payment: %v", err)
		}
	})

	t.Run("body validation", func(t *testing.T) {
		t.Parallel()
		u := env.NewDiner(t)
		tests := []struct {
			body string
			want map[string]string
		}{
			{`{"locationId":1,"checkNumber":1,"cardId":1,"amount":1.234,"tip":0}`, map[string]string{"amount": "must have at most 2 decimal places"}},
			{`{"locationId":1,"checkNumber":1,"cardId":1,"amount":-1,"tip":-0.01}`, map[string]string{"amount": "must be greater than 0", "tip": "must not be negative"}},
			{`{"amount":1}`, map[string]string{"locationId": "required", "checkNumber": "required", "cardId": "required", "tip": "required"}},
		}
		for _, tt := range tests {
			_, err := u.Client.Do(t.Context(), &client.Request{Method: http.MethodPost, Path: "payments/v1/payment",
				Body: json.RawMessage(tt.body), Auth: client.AuthAccessToken}, nil)
			var apiErr *client.APIError
			if !errors.As(err, &apiErr) || apiErr.Code != client.CodeValidation {
				t.Errorf("%s: err = %v", tt.body, err)
				continue
			}
			got := apiErr.FieldErrors()
			for k, v := range tt.want {
				if got[k] != v {
					t.Errorf("%s: field errors %v, want %v", tt.body, got, tt.want)
					break
				}
			}
		}
	})
}

// nextCheckPushed pushes a fresh check at loc and returns its number.
func nextCheckPushed(t *testing.T, loc *refservertest.Venue) int64 {
	t.Helper()
	n := nextCheck()
	loc.PushCheck(t, loc.OpenCheck(n, "10.00"))
	return n
}

// A stale heartbeat takes the location offline: the clock moves, so this
// has a server of its own.
func TestE2ELocationOnline(t *testing.T) {
	t.Parallel()
	env := refservertest.Start(t)
	loc := env.NewVenue(t, refservertest.VenueConfig{Name: "Harbour Kitchen", Gateway: wallet.ProviderB})
	u := env.NewDiner(t)

	// A new location offline until its first heartbeat and online after
	// it, and the details' shape: the contract's checks.
	env.CheckContract(t, "pos/heartbeat", "location/details")

	loc.Heartbeat(t)
	l, err := u.Wallet.GetLocation(t.Context(), loc.ID)
	if err != nil {
		t.Fatal(err)
	}
	if l.POSStatus != wallet.POSStatusOnline || l.LastHeartbeat == nil || l.UniversalPOS != nil ||
		l.LocationPaymentDetails.Gateway != wallet.ProviderB || l.Name != "Harbour Kitchen" {
		t.Fatalf("after a heartbeat: %+v", l)
	}
	hb := l.LastHeartbeat.Time

	c, err := u.Wallet.AddCard(t.Context(), wallet.AddCardRequest{Card: refservertest.Card(visaNumber), Providers: []wallet.Gateway{wallet.ProviderB}})
	if err != nil {
		t.Fatal(err)
	}
	loc.PushCheck(t, loc.OpenCheck(1, "10.00"))
	req := wallet.CreatePaymentRequest{LocationID: loc.ID, CheckNumber: 1, CardID: c.CardID, Amount: client.MustParseMoney("1.00")}

	// The virtual clock runs on real time plus an offset, so stay clear of
	// the 6-minute edge by more than a slow test run could take.
	env.AdvanceClock(t, 5*time.Minute+30*time.Second)
	if l, _ = u.Wallet.GetLocation(t.Context(), loc.ID); l.POSStatus != wallet.POSStatusOnline {
		t.Errorf("5.5 minutes after the heartbeat: %s, want online", l.POSStatus)
	}
	env.AdvanceClock(t, 91*time.Second)
	if l, _ = u.Wallet.GetLocation(t.Context(), loc.ID); l.POSStatus != wallet.POSStatusOffline || !l.LastHeartbeat.Time.Equal(hb) {
		t.Errorf("7 minutes after the heartbeat: %+v", l)
	}
	if _, err := u.Wallet.CreatePayment(t.Context(), req); !errors.Is(err, client.ErrLocationOffline) {
		t.Errorf("payment while offline: %v", err)
	}
	loc.Heartbeat(t)
	if _, err := u.Wallet.CreatePayment(t.Context(), req); err != nil {
		t.Errorf("payment after a new heartbeat: %v", err)
	}

	if _, err := u.Wallet.GetLocation(t.Context(), 999999); !errors.Is(err, client.ErrNotFound) {
		t.Errorf("unknown location: %v", err)
	}
	// The demo locations have a universal POS registered.
	f := env.Fixtures(t)
	demo, err := u.Wallet.GetLocation(t.Context(), f.Locations[0].LocationID)
	if err != nil || demo.UniversalPOS == nil {
		t.Errorf("demo location: %+v, %v; want universalPos", demo, err)
	}
}
