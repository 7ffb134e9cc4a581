package sandbox

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/wallet"
)

func TestPayCheck(t *testing.T) {
	t.Parallel()
	s, mt := newMockService(t)
	var rec recorder
	mt.RegisterResponder(http.MethodPost, testBase+"sandbox/locations/7/checks/31/payments", rec.json(201,
		`{"payment":{"paymentId":4,"locationId":7,"checkNumber":31,"billId":"b-1","cardId":9,"amount":12.50,"tip":1.25,"status":"pending","createdAt":1700000000}}`))

	amount, tip := client.MustParseMoney("12.50"), client.MustParseMoney("1.25")
	tests := []struct {
		name string
		req  PayCheckRequest
		body string
	}{
		{"amount and tip", PayCheckRequest{Amount: &amount, Tip: &tip}, `{"amount":12.50,"tip":1.25}`},
		// Nothing set: the server pays what the check owes.
		{"defaults", PayCheckRequest{}, `{}`},
	}
	for _, tt := range tests {
		p, err := s.PayCheck(context.Background(), 7, 31, tt.req)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		c := rec.last(t)
		testAdminRequest(t, c, http.MethodPost, "/prefix/sandbox/locations/7/checks/31/payments")
		testBody(t, c, tt.body)
		if c.Header.Get("Idempotency-Key") == "" {
			t.Errorf("%s: no Idempotency-Key", tt.name)
		}
		want := wallet.Payment{PaymentID: 4, LocationID: 7, CheckNumber: 31, BillID: "b-1", CardID: 9,
			Amount: amount, Tip: tip, Status: wallet.PaymentPending, CreatedAt: client.UnixTime{Time: time.Unix(1700000000, 0).UTC()}}
		if d := cmp.Diff(want, p, cmp.Comparer(func(a, b client.Money) bool { return a == b }),
			cmp.Comparer(func(a, b client.UnixTime) bool { return a.Equal(b.Time) })); d != "" {
			t.Errorf("%s: payment (-want +got):\n%s", tt.name, d)
		}
	}
}

func TestPayCheckErrors(t *testing.T) {
	t.Parallel()
	s, mt := newMockService(t)
	mt.RegisterResponder(http.MethodPost, testBase+"sandbox/locations/7/checks/31/payments",
		(&recorder{}).json(409, errorBody(client.CodeLocationOffline, "", `{"lastHeartbeat":null,"offlineAfterSeconds":360}`)))
	if _, err := s.PayCheck(context.Background(), 7, 31, PayCheckRequest{}); !errors.Is(err, client.ErrLocationOffline) {
		t.Errorf("err = %v, want ErrLocationOffline", err)
	}
}

func TestSetDiners(t *testing.T) {
	t.Parallel()
	s, mt := newMockService(t)
	var rec recorder
	mt.RegisterResponder(http.MethodPut, testBase+"sandbox/locations/7/diners", rec.json(200,
		`{"locationId":7,"everySeconds":60,"split":3,"tipPercent":10,"nextRunAt":1700000060,"lastRunAt":null,"lastError":null}`))

	tests := []struct {
		name string
		req  DinersRequest
		body string
	}{
		{"every field", DinersRequest{EverySeconds: 60, Split: 3, TipPercent: 10}, `{"everySeconds":60,"split":3,"tipPercent":10}`},
		// Zero split and tip are left out: the server's defaults (1, 0) apply.
		{"defaults", DinersRequest{EverySeconds: 60}, `{"everySeconds":60}`},
		// everySeconds is always sent, so that a forgotten one is a 400002.
		{"no interval", DinersRequest{}, `{"everySeconds":0}`},
	}
	for _, tt := range tests {
		d, err := s.SetDiners(context.Background(), 7, tt.req)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		c := rec.last(t)
		testAdminRequest(t, c, http.MethodPut, "/prefix/sandbox/locations/7/diners")
		testBody(t, c, tt.body)
		if d.LocationID != 7 || d.Split != 3 || d.NextRunAt.Unix() != 1700000060 || d.LastRunAt != nil || d.LastError != nil {
			t.Errorf("%s: diners = %+v", tt.name, d)
		}
	}
}

func TestDiners(t *testing.T) {
	t.Parallel()
	s, mt := newMockService(t)
	var rec recorder
	mt.RegisterResponder(http.MethodGet, testBase+"sandbox/locations/7/diners", rec.json(200,
		`{"locationId":7,"everySeconds":60,"split":1,"tipPercent":0,"nextRunAt":1700000120,"lastRunAt":1700000060,"lastError":"Location offline."}`))
	d, err := s.Diners(context.Background(), 7)
	if err != nil {
		t.Fatal(err)
	}
	testAdminRequest(t, rec.last(t), http.MethodGet, "/prefix/sandbox/locations/7/diners")
	if d.LastRunAt == nil || d.LastRunAt.Unix() != 1700000060 || d.LastError == nil || *d.LastError != "Location offline." {
		t.Errorf("diners = %+v", d)
	}

	mt.RegisterResponder(http.MethodGet, testBase+"sandbox/locations/8/diners",
		rec.json(404, errorBody(client.CodeNotFound, "Diners not found.", "")))
	if _, err := s.Diners(context.Background(), 8); !errors.Is(err, client.ErrNotFound) {
		t.Errorf("err = %v, want ErrNotFound", err)
	}
}

func TestStopDiners(t *testing.T) {
	t.Parallel()
	s, mt := newMockService(t)
	var rec recorder
	mt.RegisterResponder(http.MethodDelete, testBase+"sandbox/locations/7/diners", rec.respond(204, "", ""))
	if err := s.StopDiners(context.Background(), 7); err != nil {
		t.Fatal(err)
	}
	c := rec.last(t)
	testAdminRequest(t, c, http.MethodDelete, "/prefix/sandbox/locations/7/diners")
	testBody(t, c, "")
}
