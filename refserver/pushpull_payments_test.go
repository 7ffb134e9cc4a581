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
	"github.com/hospo-dev/hospo-go/refserver/refservertest"
	"github.com/hospo-dev/hospo-go/wallet"
)

func TestPaymentsPollAndAccept(t *testing.T) {
	t.Parallel()
	env := refservertest.Start(t)
	venue := env.NewVenue(t, refservertest.VenueConfig{Name: "Trattoria"})
	other := env.NewVenue(t, refservertest.VenueConfig{Name: "Bistro", Gateway: wallet.ProviderD})
	ctx := context.Background()
	venue.Heartbeat(t)
	for _, n := range []int64{10, 11} {
		c := fixtureCheck(t, venue.ID)
		c.CheckNumber = n
		venue.PushCheck(t, *c)
	}
	u := env.NewDiner(t)
	u.AddCard(t, "4111111111111111", wallet.ProviderB)
	p1 := u.Pay(t, venue, 10, "5.00", "0.50").PaymentID
	p2 := u.Pay(t, venue, 11, "3.00", "0").PaymentID
	p3 := u.Pay(t, venue, 10, "1.25", "0.10").PaymentID

	money := client.MustParseMoney
	want := map[int64][]possync.PaymentNotification{
		10: {{PaymentID: p1, PaymentExTip: money("5.00"), Tip: money("0.50")}, {PaymentID: p3, PaymentExTip: money("1.25"), Tip: money("0.10")}},
		11: {{PaymentID: p2, PaymentExTip: money("3.00"), Tip: money("0")}},
	}
	got, err := venue.POS.Payments(ctx, venue.ID)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got, cmp.Comparer(func(a, b client.Money) bool { return a == b })); diff != "" {
		t.Errorf("poll (-want +got):\n%s", diff)
	}

	// The wire form: check numbers as keys, exact money.
	resp, err := http.Get(env.URL + "/v1/pos/push-pull/payments/" + itoa(venue.ID) + "?accessToken=" + venue.POSToken)
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
		res, err := venue.POS.AcceptPayment(ctx, p1)
		if err != nil || res.PaymentID != p1 || res.Status != "accepted" || res.RequestInfo.APIVersion != 1 {
			t.Fatalf("accept: %+v, %v", res, err)
		}
	}
	// Another location's POS cannot accept (or learn about) this payment.
	if _, err := other.POS.AcceptPayment(ctx, p2); !errors.Is(err, client.ErrNotFound) {
		t.Errorf("accept by another location: %v, want 404001", err)
	}
	delete(want, 10)
	want[10] = []possync.PaymentNotification{{PaymentID: p3, PaymentExTip: money("1.25"), Tip: money("0.10")}}
	got, err = venue.POS.Payments(ctx, venue.ID)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got, cmp.Comparer(func(a, b client.Money) bool { return a == b })); diff != "" {
		t.Errorf("poll after accepting %d (-want +got):\n%s", p1, diff)
	}
	pm, err := u.Wallet.GetPayment(ctx, p1)
	if err != nil || pm.Status != wallet.PaymentAccepted {
		t.Errorf("payment %d: %+v, %v", p1, pm, err)
	}
	if pm, _ := u.Wallet.GetPayment(ctx, p2); pm.Status != wallet.PaymentPending {
		t.Errorf("payment %d after another location's accept: %s", p2, pm.Status)
	}
}
