package refservertest_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/refserver/refservertest"
	"github.com/hospo-dev/hospo-go/wallet"
)

// TestVenue runs the helpers' whole cycle: a check pushed, paid by two
// diners, one payment accepted.
func TestVenue(t *testing.T) {
	t.Parallel()
	env := refservertest.Start(t)
	v := env.NewVenue(t, refservertest.VenueConfig{Name: "Quay", Gateway: wallet.ProviderD})
	if v.ID == 0 || v.POSToken == "" || v.Name != "Quay" || v.Gateway != wallet.ProviderD {
		t.Fatalf("venue %+v", v)
	}
	if hb := v.Heartbeat(t); hb.Status != "ok" {
		t.Errorf("heartbeat %+v", hb)
	}
	res := v.PushCheck(t, v.OpenCheck(7, "30.00"))
	if res.BillID == "" || res.Version != 1 {
		t.Errorf("push %+v", res)
	}

	alice, bob := env.NewDiner(t), env.NewDiner(t)
	if alice.UserID == bob.UserID || alice.Card.CardID != 0 {
		t.Fatalf("diners %+v %+v", alice, bob)
	}
	alice.AddCard(t, "4111111111111111", v.Gateway)
	bob.AddCard(t, "378282246310005", v.Gateway)
	if !alice.Card.Gateways.ProviderD || bob.Card.Last4Digits != "0005" {
		t.Errorf("cards %+v %+v", alice.Card, bob.Card)
	}
	p1 := alice.Pay(t, v, 7, "10.00", "1.00")
	p2 := bob.Pay(t, v, 7, "5.00", "0")
	v.AcceptAll(t, p2.PaymentID)
	for _, tc := range []struct {
		d    *refservertest.Diner
		id   int64
		want wallet.PaymentStatus
	}{{alice, p1.PaymentID, wallet.PaymentAccepted}, {bob, p2.PaymentID, wallet.PaymentPending}} {
		p, err := tc.d.Wallet.GetPayment(t.Context(), tc.id)
		if err != nil || p.Status != tc.want {
			t.Errorf("payment %d: %+v, %v; want %s", tc.id, p, err, tc.want)
		}
	}

	key := v.NewAPIKey(t)
	if key == "" {
		t.Error("no API key")
	}
	if _, err := v.POS.Heartbeat(t.Context(), v.ID, client.WithAccessToken("not-the-token")); err == nil {
		t.Error("heartbeat with a wrong token succeeded")
	}
}

// TestWaitForMenu waits for a demo location's menu, which the server syncs
// from its built-in universal POS.
func TestWaitForMenu(t *testing.T) {
	t.Parallel()
	env := refservertest.Start(t)
	m := env.WaitForMenu(t, env.Fixtures(t).Locations[0].LocationID)
	if m.SyncedAt.IsZero() || len(m.Menus) == 0 {
		t.Errorf("menu %+v", m)
	}
}

// TestWithoutOpenAPIChecks lets through a response the document does not
// allow (an injected 418), which the checked server reports, and waits for
// the server to be idle.
func TestWithoutOpenAPIChecks(t *testing.T) {
	t.Parallel()
	rec := &recordingTB{TB: t}
	env := refservertest.Start(rec, refservertest.WithoutOpenAPIChecks())
	loc := env.Fixtures(t).Locations[0].LocationID
	fault := map[string]any{"pathPrefix": "/v1/location/", "status": 418, "count": 1}
	if got := env.AdminDo(t, http.MethodPost, "/sandbox/faults", fault, nil); got != http.StatusCreated {
		t.Fatalf("add fault: status %d", got)
	}
	if got := get(t, fmt.Sprintf("%s/v1/location/%d", env.URL, loc)); got != http.StatusTeapot {
		t.Fatalf("status %d, want the injected 418", got)
	}
	env.WaitIdle(t)
	if r := rec.reports(); r != "" {
		t.Errorf("checks are off, but got:\n%s", r)
	}
}
