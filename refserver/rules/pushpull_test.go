package rules

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hospo-dev/hospo-go/possync"
	"github.com/hospo-dev/hospo-go/refserver/internal/api"
	"github.com/hospo-dev/hospo-go/refserver/store"
	"github.com/hospo-dev/hospo-go/wallet"
)

func TestCheckAccept(t *testing.T) {
	t.Parallel()
	for body, want := range map[string]map[string]string{
		`{"paymentId":7}`:    nil,
		`{}`:                 {"paymentId": "required"},
		`{"paymentId":null}`: {"paymentId": "required"},
		`{"paymentId":0}`:    {"paymentId": "must be positive"},
	} {
		var req possync.AcceptRequest
		if err := api.DecodeBytes([]byte(body), &req); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, fieldErrors(t, CheckAccept([]byte(body), &req))); diff != "" {
			t.Errorf("%s: fields (-want +got):\n%s", body, diff)
		}
	}
}

func TestAcceptPayment(t *testing.T) {
	t.Parallel()
	s := newScene(t)
	p := s.pay(t, "1", "0")
	accept := func(loc, id int64) (possync.AcceptResult, error) {
		return run(t, s.db, func(tx *store.Tx) (possync.AcceptResult, error) { return AcceptPayment(tx, loc, id) })
	}
	// Another location's POS cannot accept it, nor tell it from an unknown
	// payment.
	for name, err := range map[string]error{
		"another location's": second(accept(s.loc+1, p.PaymentID)),
		"unknown":            second(accept(s.loc, p.PaymentID+1)),
	} {
		if !notFoundAs(err, "Payment not found.") {
			t.Errorf("%s: err = %v, want 404001 Payment not found.", name, err)
		}
	}
	// Accepting twice is accepting once.
	for range 2 {
		res, err := accept(s.loc, p.PaymentID)
		if err != nil || res != (possync.AcceptResult{PaymentID: p.PaymentID, Status: "accepted"}) {
			t.Fatalf("accept: %+v, %v", res, err)
		}
	}
	got, err := run(t, s.db, func(tx *store.Tx) (wallet.Payment, error) { return GetPayment(tx, s.user, p.PaymentID) })
	if err != nil || got.Status != wallet.PaymentAccepted {
		t.Errorf("payment after accepting: %+v, %v", got, err)
	}
}

func TestHeartbeat(t *testing.T) {
	t.Parallel()
	s := newScene(t)
	s.clock.Advance(POSOnlineWindow + time.Second)
	if loc, err := run(t, s.db, func(tx *store.Tx) (wallet.Location, error) { return GetLocation(tx, s.loc) }); err != nil || loc.POSStatus != wallet.POSStatusOffline {
		t.Fatalf("location before the heartbeat: %+v, %v", loc, err)
	}
	res, err := run(t, s.db, func(tx *store.Tx) (possync.HeartbeatResult, error) { return Heartbeat(tx, s.loc) })
	if err != nil || res.Status != "ok" {
		t.Fatalf("Heartbeat = %+v, %v", res, err)
	}
	loc, err := run(t, s.db, func(tx *store.Tx) (wallet.Location, error) { return GetLocation(tx, s.loc) })
	if err != nil || loc.POSStatus != wallet.POSStatusOnline || !loc.LastHeartbeat.Equal(s.clock.Now()) {
		t.Errorf("location after a heartbeat: %+v, %v", loc, err)
	}
}
