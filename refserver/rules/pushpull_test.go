package rules

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hospo-dev/hospo-go/client"
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

func TestPendingPayments(t *testing.T) {
	t.Parallel()
	s := newScene(t)
	first := s.pay(t, "1", "0.50")
	second := s.pay(t, "2", "0")
	pending := func() map[int64][]possync.PaymentNotification {
		t.Helper()
		got, err := run(t, s.db, func(tx *store.Tx) (map[int64][]possync.PaymentNotification, error) {
			return PendingPayments(tx, s.loc)
		})
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	want := map[int64][]possync.PaymentNotification{s.check: {
		{PaymentID: first.PaymentID, PaymentExTip: client.MustParseMoney("1"), Tip: client.MustParseMoney("0.50")},
		{PaymentID: second.PaymentID, PaymentExTip: client.MustParseMoney("2"), Tip: client.MustParseMoney("0")},
	}}
	if diff := cmp.Diff(want, pending(), exactMoney); diff != "" {
		t.Errorf("pending, oldest first (-want +got):\n%s", diff)
	}
	// An accepted payment is no longer pending; another location has none.
	if _, err := run(t, s.db, func(tx *store.Tx) (possync.AcceptResult, error) {
		return AcceptPayment(tx, s.loc, first.PaymentID)
	}); err != nil {
		t.Fatal(err)
	}
	want[s.check] = want[s.check][1:]
	if diff := cmp.Diff(want, pending(), exactMoney); diff != "" {
		t.Errorf("pending after accepting the first (-want +got):\n%s", diff)
	}
	others, err := run(t, s.db, func(tx *store.Tx) (map[int64][]possync.PaymentNotification, error) {
		return PendingPayments(tx, s.loc+1)
	})
	if err != nil || len(others) != 0 {
		t.Errorf("another location's pending payments: %v, %v", others, err)
	}
}
