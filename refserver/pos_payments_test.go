package refserver_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/possync"
	"github.com/hospo-dev/hospo-go/wallet"
)

// payer is a user with a providerB card.
type payer struct {
	w      *wallet.Service
	cardID int64
}

func newPayer(t *testing.T, f *posFixture) payer {
	t.Helper()
	_, tok := f.env.NewUser(t)
	w := wallet.NewService(f.env.Client(t, client.WithAccessToken(tok)))
	card, err := w.AddCard(context.Background(), wallet.AddCardRequest{
		Card:      wallet.CardDetails{Number: "4111111111111111", CVC: "123", ExpiryMonth: 1, ExpiryYear: 38, HolderName: "A Diner"},
		Providers: []wallet.Gateway{wallet.ProviderB},
	})
	if err != nil {
		t.Fatalf("AddCard: %v", err)
	}
	return payer{w: w, cardID: card.CardID}
}

func (p payer) pay(t *testing.T, loc, checkNumber int64, amount, tip string) int64 {
	t.Helper()
	pm, err := p.w.CreatePayment(context.Background(), wallet.CreatePaymentRequest{
		LocationID: loc, CheckNumber: checkNumber, CardID: p.cardID,
		Amount: client.MustParseMoney(amount), Tip: client.MustParseMoney(tip),
	})
	if err != nil {
		t.Fatalf("CreatePayment: %v", err)
	}
	return pm.PaymentID
}

func TestPaymentsPollAndAccept(t *testing.T) {
	t.Parallel()
	f := newPOSFixture(t)
	ctx := context.Background()
	if _, err := f.svc.Heartbeat(ctx, f.loc); err != nil {
		t.Fatal(err)
	}
	for _, n := range []int64{10, 11} {
		c := fixtureCheck(t, f.loc)
		c.CheckNumber = n
		if _, err := f.svc.PushCheck(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	u := newPayer(t, f)
	p1 := u.pay(t, f.loc, 10, "5.00", "0.50")
	p2 := u.pay(t, f.loc, 11, "3.00", "0")
	p3 := u.pay(t, f.loc, 10, "1.25", "0.10")

	money := client.MustParseMoney
	want := map[int64][]possync.PaymentNotification{
		10: {{PaymentID: p1, PaymentExTip: money("5.00"), Tip: money("0.50")}, {PaymentID: p3, PaymentExTip: money("1.25"), Tip: money("0.10")}},
		11: {{PaymentID: p2, PaymentExTip: money("3.00"), Tip: money("0")}},
	}
	got, err := f.svc.Payments(ctx, f.loc)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got, cmp.Comparer(func(a, b client.Money) bool { return a == b })); diff != "" {
		t.Errorf("poll (-want +got):\n%s", diff)
	}

	// The wire form: check numbers as keys, exact money.
	resp, err := http.Get(f.env.URL + "/v1/pos/push-pull/payments/" + itoa(f.loc) + "?accessToken=" + f.token)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var wire struct {
		Checks      map[string]json.RawMessage `json:"checks"`
		RequestInfo client.RequestInfo         `json:"requestInfo"`
	}
	if err := json.Unmarshal(raw, &wire); err != nil {
		t.Fatal(err)
	}
	if got := string(wire.Checks["11"]); got != `[{"paymentId":`+itoa(p2)+`,"paymentExTip":3.00,"tip":0.00}]` {
		t.Errorf("checks[\"11\"] = %s", got)
	}
	if wire.RequestInfo.APIVersion != 1 || wire.RequestInfo.AccessTokenStatus != "authenticated" {
		t.Errorf("requestInfo %+v", wire.RequestInfo)
	}

	// Accepting is idempotent.
	for range 2 {
		res, err := f.svc.AcceptPayment(ctx, p1)
		if err != nil || res.PaymentID != p1 || res.Status != "accepted" || res.RequestInfo.APIVersion != 1 {
			t.Fatalf("accept: %+v, %v", res, err)
		}
	}
	// Another location's POS cannot accept (or learn about) this payment.
	other := possync.NewService(f.env.Client(t, client.WithAccessToken(f.otherTok)))
	if _, err := other.AcceptPayment(ctx, p2); !errors.Is(err, client.ErrNotFound) {
		t.Errorf("accept by another location: %v, want 404001", err)
	}
	delete(want, 10)
	want[10] = []possync.PaymentNotification{{PaymentID: p3, PaymentExTip: money("1.25"), Tip: money("0.10")}}
	got, err = f.svc.Payments(ctx, f.loc)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got, cmp.Comparer(func(a, b client.Money) bool { return a == b })); diff != "" {
		t.Errorf("poll after accepting %d (-want +got):\n%s", p1, diff)
	}
	pm, err := u.w.GetPayment(ctx, p1)
	if err != nil || pm.Status != wallet.PaymentAccepted {
		t.Errorf("payment %d: %+v, %v", p1, pm, err)
	}
	if pm, _ := u.w.GetPayment(ctx, p2); pm.Status != wallet.PaymentPending {
		t.Errorf("payment %d after another location's accept: %s", p2, pm.Status)
	}
}
