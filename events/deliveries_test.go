package events_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/events"
	"github.com/hospo-dev/hospo-go/internal/sdktest"
)

func TestListDeliveries(t *testing.T) {
	t.Parallel()
	s, m := newMockService(t)
	rec := m.Reply(http.MethodGet, "v1/webhooks/wh_1/deliveries", 200, `{"deliveries":[
		{"deliveryId":"dl_2","eventId":"evt_2","type":"ping","status":"pending","attempts":2,"lastStatusCode":503,"lastError":"HTTP 503","nextAttemptAt":1700000004,"createdAt":1700000000},
		{"deliveryId":"dl_1","eventId":"evt_1","type":"bill.closed","status":"delivered","attempts":1,"lastStatusCode":204,"lastError":null,"nextAttemptAt":null,"createdAt":1699999999}
	],`+requestInfoJSON+`}`)
	got, err := s.ListDeliveries(context.Background(), "wh_1", events.DeliveryQuery{Status: events.DeliveryPending, Limit: 20})
	if err != nil {
		t.Fatal(err)
	}
	r := rec.Last(t)
	sdktest.TestPath(t, r, http.MethodGet, "/prefix/v1/webhooks/wh_1/deliveries")
	testAPIKey(t, r)
	if d := cmp.Diff(url.Values{"status": {"pending"}, "limit": {"20"}}, r.Query); d != "" {
		t.Errorf("query (-want +got):\n%s", d)
	}
	want := []events.Delivery{
		{DeliveryID: "dl_2", EventID: "evt_2", Type: events.TypePing, Status: events.DeliveryPending, Attempts: 2,
			LastStatusCode: ptr(503), LastError: ptr("HTTP 503"), NextAttemptAt: ptr(unix(1700000004)), CreatedAt: unix(1700000000)},
		{DeliveryID: "dl_1", EventID: "evt_1", Type: events.TypeBillClosed, Status: events.DeliveryDelivered, Attempts: 1,
			LastStatusCode: ptr(204), CreatedAt: unix(1699999999)},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("deliveries (-want +got):\n%s", d)
	}

	// The zero query sends no parameters.
	if _, err := s.ListDeliveries(context.Background(), "wh_1", events.DeliveryQuery{}); err != nil {
		t.Fatal(err)
	}
	if q := rec.Last(t).Query; len(q) != 0 {
		t.Errorf("query of the zero DeliveryQuery = %v", q)
	}
}

func TestRedeliver(t *testing.T) {
	t.Parallel()
	s, m := newMockService(t)
	n := 0
	rec := m.Handle(http.MethodPost, "v1/webhooks/wh_1/deliveries/dl_1/redeliver", func(*http.Request) (*http.Response, error) {
		if n++; n == 1 {
			return sdktest.ErrorResponse(client.CodeTooManyRequests, "Retry-After", "0"), nil
		}
		return sdktest.JSONResponse(202, `{}`), nil
	})
	if err := s.Redeliver(context.Background(), "wh_1", "dl_1"); err != nil {
		t.Fatal(err)
	}
	reqs := rec.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	for _, r := range reqs {
		sdktest.TestPath(t, r, http.MethodPost, "/prefix/v1/webhooks/wh_1/deliveries/dl_1/redeliver")
		testAPIKey(t, r)
	}
	if k := reqs[0].Header.Get(client.HeaderIdempotencyKey); k == "" || k != reqs[1].Header.Get(client.HeaderIdempotencyKey) {
		t.Errorf("the retry did not repeat the Idempotency-Key %q", k)
	}
}
