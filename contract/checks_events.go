package contract

import (
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/events"
	"github.com/hospo-dev/hospo-go/wallet"
)

// hookURL is where the run's webhooks point: a name that never resolves,
// so that no one receives the run's test deliveries.
const hookURL = "https://contract.invalid/hospo-contract"

// webhookShape is a webhook subscription (contract section 8).
var webhookShape = shape{"webhookId": "string", "url": "string", "events": "array", "description": "string", "createdAt": "int"}

// eventShape is the envelope of an event read from the feed.
var eventShape = shape{"id": "string", "type": "string", "createdAt": "int", "locationId": "int|null", "data": "object", "cursor": "string"}

// createWebhook subscribes the vendor to every event at hookURL and
// deletes the webhook when the check ends.
func (t *T) createWebhook(opts ...client.Option) *events.CreatedWebhook {
	ev := t.vendor().Events
	h, err := ev.CreateWebhook(t.ctx, events.CreateWebhookRequest{URL: hookURL, Events: []events.Type{events.AllTypes},
		Description: "hospo-contract check"}, opts...)
	t.ok(err, "create a webhook")
	id := h.Webhook.WebhookID
	t.Cleanup(func() {
		err := ev.DeleteWebhook(t.ctx, id)
		if err != nil && !errors.Is(err, client.CodeNotFound) {
			t.Errorf("clean-up: delete webhook %s: %v", id, err)
		}
	})
	return h
}

// feedOf returns the events of the types given that the vendor's feed
// holds, reading every page.
func (t *T) feedOf(v *vendor, types ...events.Type) []events.Event {
	var out []events.Event
	q := events.FeedQuery{Types: types, Limit: events.MaxLimit}
	for range 100 {
		page, err := v.Events.ListEvents(t.ctx, q)
		t.ok(err, "read the event feed")
		out = append(out, page.Events...)
		if len(page.Events) == 0 || page.NextCursor == nil || *page.NextCursor == q.After {
			return out
		}
		q.After = *page.NextCursor
	}
	t.Fatalf("the event feed did not end within 100 pages")
	return nil
}

// findEvent returns the event of type typ whose data has member equal to
// want, ending the check when there is none.
func (t *T) findEvent(list []events.Event, typ events.Type, member string, want any) events.Event {
	wantJSON, _ := json.Marshal(want)
	for _, e := range list {
		var data map[string]json.RawMessage
		if e.Type == typ && json.Unmarshal(e.Data, &data) == nil && string(data[member]) == string(wantJSON) {
			return e
		}
	}
	t.Fatalf("event feed: no %s event with data.%s = %s among %d events", typ, member, wantJSON, len(list))
	return events.Event{}
}

// eventChecks cover contract section 8.
var eventChecks = []Check{
	{
		Name: "webhooks/lifecycle", Endpoint: "POST /v1/webhooks, GET /v1/webhooks, DELETE /v1/webhooks/{webhookId}",
		Rule:  "a webhook is created (201, its whsec_ secret shown once), listed, deleted (204) and then unknown (404001)",
		Needs: NeedsAPIKey,
		Run: func(t *T) {
			ev := t.vendor().Events
			h := t.createWebhook()
			t.status(http.StatusCreated)
			t.shape(with(requestInfoShape, under("webhook", webhookShape), shape{"secret": "string"}))
			if !strings.HasPrefix(h.Secret, "whsec_") {
				t.Errorf("secret: does not start with whsec_")
			}
			t.equal("webhook.url", h.Webhook.URL, hookURL)
			list, err := ev.ListWebhooks(t.ctx)
			t.ok(err, "list the webhooks")
			t.shape(with(requestInfoShape, under("webhooks[]", webhookShape)))
			if !slices.ContainsFunc(list, func(w events.Webhook) bool { return w.WebhookID == h.Webhook.WebhookID }) {
				t.Errorf("webhooks: %s not listed", h.Webhook.WebhookID)
			}
			t.ok(ev.DeleteWebhook(t.ctx, h.Webhook.WebhookID), "delete the webhook")
			t.status(http.StatusNoContent)
			list, err = ev.ListWebhooks(t.ctx)
			t.ok(err, "list the webhooks")
			if slices.ContainsFunc(list, func(w events.Webhook) bool { return w.WebhookID == h.Webhook.WebhookID }) {
				t.Errorf("webhooks: %s still listed after its deletion", h.Webhook.WebhookID)
			}
			t.wantError(ev.DeleteWebhook(t.ctx, h.Webhook.WebhookID), client.CodeNotFound)
		},
	},
	{
		Name: "webhooks/unknown-event-type", Endpoint: "POST /v1/webhooks",
		Rule:  "subscribing to an unknown event type is 400002 naming events[0]",
		Needs: NeedsAPIKey,
		Run: func(t *T) {
			b := t.raw(rawRequest{Method: http.MethodPost, Path: "/v1/webhooks", APIKey: t.vendor().Key,
				Body: []byte(`{"url":"` + hookURL + `","events":["contract.no_such_type"]}`)})
			if b.Status == http.StatusCreated {
				// Remove what a deviating service made.
				var h events.CreatedWebhook
				if json.Unmarshal(b.raw, &h) == nil && h.Webhook.WebhookID != "" {
					_ = t.vendor().Events.DeleteWebhook(t.ctx, h.Webhook.WebhookID)
				}
				t.Fatalf("HTTP status: got 201, want 400")
			}
			t.status(client.CodeValidation.HTTPStatus())
			t.errorBody()
			t.named("events[0]")
		},
	},
	{
		Name: "webhooks/ping-deliveries", Endpoint: "POST /v1/webhooks/{webhookId}/ping, GET /v1/webhooks/{webhookId}/deliveries, POST /v1/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver",
		Rule:  "a ping answers 202 {} and shows as a ping delivery; a redelivery answers 202 {}",
		Needs: NeedsAPIKey,
		Run: func(t *T) {
			ev := t.vendor().Events
			h := t.createWebhook()
			t.ok(ev.PingWebhook(t.ctx, h.Webhook.WebhookID), "ping the webhook")
			t.status(http.StatusAccepted)
			ds, err := ev.ListDeliveries(t.ctx, h.Webhook.WebhookID, events.DeliveryQuery{})
			t.ok(err, "list the deliveries")
			t.shape(with(requestInfoShape, under("deliveries[]", shape{
				"deliveryId": "string", "eventId": "string", "type": "string", "status": "string", "attempts": "int",
				"lastStatusCode": "int|null", "lastError": "string|null", "nextAttemptAt": "int|null", "createdAt": "int",
			})))
			// The webhook takes every type, so the location's other events
			// of the moment may be there too: the ping must be, once.
			var pings []events.Delivery
			for _, d := range ds {
				if d.Type == events.TypePing {
					pings = append(pings, d)
				}
			}
			if len(pings) != 1 {
				t.Fatalf("deliveries of type ping: got %d, want 1", len(pings))
			}
			if !strings.HasPrefix(pings[0].EventID, "evt_") {
				t.Errorf("ping delivery's eventId: got %q, want evt_...", pings[0].EventID)
			}
			t.ok(ev.Redeliver(t.ctx, h.Webhook.WebhookID, pings[0].DeliveryID), "redeliver")
			t.status(http.StatusAccepted)
		},
	},
	{
		Name: "webhooks/other-vendor", Endpoint: "DELETE /v1/webhooks/{webhookId}",
		Rule:  "another key's webhook is 404001",
		Needs: NeedsSandbox,
		Run: func(t *T) {
			h := t.createWebhook()
			other := t.vendorOf(t.newKey(t.otherLocation()))
			t.wantError(other.Events.DeleteWebhook(t.ctx, h.Webhook.WebhookID), client.CodeNotFound)
		},
	},
	{
		Name: "events/feed-shape", Endpoint: "GET /v1/events",
		Rule:  "the feed answers { events: [ envelope + cursor ], nextCursor (null before anything was read), requestInfo }, oldest first",
		Needs: NeedsAPIKey,
		Run: func(t *T) {
			page, err := t.vendor().Events.ListEvents(t.ctx, events.FeedQuery{Limit: 20})
			t.ok(err, "read the event feed")
			t.shape(with(requestInfoShape, shape{"nextCursor": "string|null"}, under("events[]", eventShape)))
			if len(page.Events) > 0 && page.NextCursor == nil {
				t.Errorf("nextCursor: null after %d events", len(page.Events))
			}
			for i := 1; i < len(page.Events); i++ {
				if page.Events[i].CreatedAt.Before(page.Events[i-1].CreatedAt.Time) {
					t.Errorf("events[%d].createdAt is before events[%d].createdAt", i, i-1)
				}
			}
			for i, e := range page.Events {
				if !strings.HasPrefix(e.ID, "evt_") {
					t.Errorf("events[%d].id: got %q, want evt_...", i, e.ID)
				}
			}
		},
	},
	{
		Name: "events/bad-cursor", Endpoint: "GET /v1/events",
		Rule:  "a cursor the service never gave is 400003",
		Needs: NeedsAPIKey,
		Run: func(t *T) {
			_, err := t.vendor().Events.ListEvents(t.ctx, events.FeedQuery{After: "contract-not-a-cursor"})
			t.wantError(err, client.CodeInvalidQuery)
		},
	},
	{
		Name: "events/payments", Endpoint: "GET /v1/events",
		Rule:  "a payment makes payment.created and its acceptance payment.accepted, each carrying the payment",
		Needs: NeedsSandbox | MovesMoney,
		Run: func(t *T) {
			s := t.newScene("20.00")
			p := t.pay(s, "4.00", "0")
			_, err := s.v.POS.AcceptPayment(t.ctx, p.PaymentID)
			t.ok(err, "accept the payment")
			list := t.feedOf(t.vendor(), events.TypePaymentCreated, events.TypePaymentAccepted)
			for _, typ := range []events.Type{events.TypePaymentCreated, events.TypePaymentAccepted} {
				e := t.findEvent(list, typ, "paymentId", p.PaymentID)
				got, err := e.Payment()
				t.ok(err, "decode the "+string(typ)+" event's payment")
				t.equal(string(typ)+" data.amount", got.Amount.String(), p.Amount.String())
				if e.LocationID == nil || *e.LocationID != s.v.ID {
					t.Errorf("%s locationId: got %s, want %d", typ, show(e.LocationID), s.v.ID)
				}
			}
		},
	},
	{
		Name: "events/bill-closed", Endpoint: "GET /v1/events",
		Rule:  "a push that closes a bill makes bill.closed with its billId, totalAmount and lastUpdated",
		Needs: NeedsSandbox | WritesData,
		Run: func(t *T) {
			closed, c := t.closedBill()
			e := t.findEvent(t.feedOf(t.vendor(), events.TypeBillClosed), events.TypeBillClosed, "billId", closed.BillID)
			bc, err := e.BillClosed()
			t.ok(err, "decode the bill.closed event")
			t.equal("data.checkNumber", bc.CheckNumber, c.CheckNumber)
			t.equal("data.totalAmount", bc.TotalAmount.String(), c.TotalAmount.String())
		},
	},
	{
		Name: "events/location-online", Endpoint: "POST /v1/pos/push-pull/heartbeat/{locationId}, GET /v1/events",
		Rule:  "a new location's first heartbeat makes location.online, seen only by keys scoped to it",
		Needs: NeedsSandbox | WritesData,
		Run: func(t *T) {
			v := t.newVenue(wallet.ProviderB, true)
			mine := t.vendorOf(t.newKey(v.ID))
			t.findEvent(t.feedOf(mine, events.TypeLocationOnline), events.TypeLocationOnline, "locationId", v.ID)
			for _, e := range t.feedOf(t.vendor(), events.TypeLocationOnline) {
				if e.LocationID != nil && *e.LocationID == v.ID {
					t.Errorf("a key not scoped to location %d sees its event %s", v.ID, e.ID)
				}
			}
		},
	},
	{
		Name: "events/order-status", Endpoint: "GET /v1/events",
		Rule:  "each order status transition makes order.status_changed with the status and previousStatus",
		Needs: NeedsSandbox | WritesData,
		Run: func(t *T) {
			o := t.newOrder()
			t.ok(t.user().Orders.Set(t.ctx, o.OrderID, methods()[3]), "set order-at-table")
			key := t.vendorOf(t.newKey(t.demoLocation()))
			list := t.feedOf(key, events.TypeOrderStatusChanged)
			e := t.findEvent(list, events.TypeOrderStatusChanged, "orderId", o.OrderID)
			sc, err := e.OrderStatusChanged()
			t.ok(err, "decode the order.status_changed event")
			if sc.Status == "" || sc.PreviousStatus == "" {
				t.Errorf("data: status %q, previousStatus %q; want both", sc.Status, sc.PreviousStatus)
			}
		},
	},
}
