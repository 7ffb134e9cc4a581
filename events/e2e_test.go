package events_test

import (
	"bytes"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/events"
	"github.com/hospo-dev/hospo-go/fulfillment"
	"github.com/hospo-dev/hospo-go/possync"
	"github.com/hospo-dev/hospo-go/refserver/refservertest"
	"github.com/hospo-dev/hospo-go/sandbox"
	"github.com/hospo-dev/hospo-go/wallet"
)

// cmpMoney compares money by value.
var cmpMoney = cmp.AllowUnexported(client.Money{})

// Every event type reaches a receiver built with events.NewHandler, with
// the data the contract gives it, decoded by the SDK's accessors; the feed
// holds the same events, once each, in the order they happened.
func TestE2EEachEventType(t *testing.T) {
	t.Parallel()
	// SetDemoPOS has the POS monitor check the POS at once, also while an
	// earlier check of it is running: no periodic check is needed.
	env := refservertest.Start(t, func(c *refservertest.Options) { c.POSHealthInterval = time.Hour })
	w := newWorldOn(t, env)
	ctx := t.Context()
	rc := newReceiver(t)
	wh := w.subscribe(t, rc)
	loc := w.venue.ID

	// A new location is offline: its first heartbeat puts it online.
	w.venue.Heartbeat(t)
	online := rc.waitFor(t, events.TypeLocationOnline, nil)
	ls, err := online.LocationStatus()
	if err != nil || ls.LocationID != loc || ls.LastHeartbeat == nil || !ls.LastHeartbeat.Equal(online.CreatedAt.Time) {
		t.Errorf("location.online = %+v, %v (createdAt %v)", ls, err, online.CreatedAt)
	}
	if online.LocationID == nil || *online.LocationID != loc {
		t.Errorf("location.online about location %v, want %d", online.LocationID, loc)
	}

	// A payment, then the POS accepts it.
	w.venue.PushCheck(t, w.venue.OpenCheck(1, "20.00"))
	diner := w.env.NewDiner(t)
	diner.AddCard(t, "4111111111111111", wallet.ProviderB)
	p := diner.Pay(t, w.venue, 1, "12.50", "1.00")
	got, err := rc.waitFor(t, events.TypePaymentCreated, nil).Payment()
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(p, got, cmpMoney); d != "" {
		t.Errorf("payment.created data (-want +got):\n%s", d)
	}
	w.venue.AcceptAll(t)
	if got, err = rc.waitFor(t, events.TypePaymentAccepted, nil).Payment(); err != nil {
		t.Fatal(err)
	}
	p.Status = wallet.PaymentAccepted
	if d := cmp.Diff(p, got, cmpMoney); d != "" {
		t.Errorf("payment.accepted data (-want +got):\n%s", d)
	}

	// The POS closes the bill.
	closed := w.venue.OpenCheck(1, "20.00")
	closed.Status = possync.CheckClosed
	closed.OutstandingAmount = client.MustParseMoney("0")
	push := w.venue.PushCheck(t, closed)
	ev := rc.waitFor(t, events.TypeBillClosed, nil)
	bc, err := ev.BillClosed()
	if err != nil {
		t.Fatal(err)
	}
	wantBill := events.BillClosed{BillID: push.BillID, LocationID: loc, CheckNumber: 1,
		TotalAmount: client.MustParseMoney("20.00"), LastUpdated: client.BillTime{Time: ev.CreatedAt.Time}}
	if d := cmp.Diff(wantBill, bc, cmpMoney); d != "" {
		t.Errorf("bill.closed data (-want +got):\n%s", d)
	}

	// An order through the sandbox's demo POS, which accepts it.
	if _, err := w.sandbox.SetDemoPOS(ctx, loc, sandbox.DemoPOSRequest{Mode: sandbox.DemoPOSAccept}); err != nil {
		t.Fatal(err)
	}
	w.env.WaitForMenu(t, loc)
	order, err := diner.Order.CreateOrder(ctx, fulfillment.OrderRequest{LocationID: loc, Items: []fulfillment.OrderLine{{PLU: "DRK-002", Quantity: 2}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := diner.Order.Set(ctx, order.OrderID, fulfillment.OrderAtTable{TableNumber: 3}); err != nil {
		t.Fatal(err)
	}
	ev = rc.waitFor(t, events.TypeOrderStatusChanged, func(ev events.Event) bool {
		d, err := ev.OrderStatusChanged()
		return err == nil && d.Status == fulfillment.StatusAcceptedByPOS
	})
	osc, _ := ev.OrderStatusChanged()
	if osc.OrderID != order.OrderID || osc.LocationID != loc || osc.PreviousStatus != fulfillment.StatusSentToPOS ||
		osc.POSOrderID == nil || *osc.POSOrderID == "" || osc.Reason != nil {
		t.Errorf("order.status_changed to accepted_by_pos = %+v", osc)
	}

	// The demo POS goes down, and comes back.
	if _, err := w.sandbox.SetDemoPOS(ctx, loc, sandbox.DemoPOSRequest{Mode: sandbox.DemoPOSOffline}); err != nil {
		t.Fatal(err)
	}
	health, err := rc.waitFor(t, events.TypePOSHealthChanged, nil).POSHealthChanged()
	if err != nil || health.LocationID != loc || health.Status != wallet.POSHealthFailed || health.Message == nil {
		t.Errorf("pos.health_changed to FAILED = %+v, %v", health, err)
	}
	if _, err := w.sandbox.SetDemoPOS(ctx, loc, sandbox.DemoPOSRequest{Mode: sandbox.DemoPOSAccept}); err != nil {
		t.Fatal(err)
	}
	ev = rc.waitFor(t, events.TypePOSHealthChanged, func(ev events.Event) bool {
		d, err := ev.POSHealthChanged()
		return err == nil && d.Status == wallet.POSHealthOK
	})
	if health, _ = ev.POSHealthChanged(); health.LocationID != loc || health.Message != nil {
		t.Errorf("pos.health_changed to OK = %+v", health)
	}

	// A ping belongs to no location.
	if err := w.events.PingWebhook(ctx, wh.Webhook.WebhookID); err != nil {
		t.Fatal(err)
	}
	ev = rc.waitFor(t, events.TypePing, nil)
	if ping, err := ev.Ping(); err != nil || ping.WebhookID != wh.Webhook.WebhookID || ev.LocationID != nil {
		t.Errorf("ping = %+v, %v, location %v", ping, err, ev.LocationID)
	}

	// Six minutes without a heartbeat on the virtual clock: offline.
	if _, err := w.sandbox.AdvanceClock(ctx, 6*time.Minute+2*time.Second); err != nil {
		t.Fatal(err)
	}
	ev = rc.waitFor(t, events.TypeLocationOffline, nil)
	if ls, err := ev.LocationStatus(); err != nil || ls.LocationID != loc || ls.LastHeartbeat == nil ||
		ev.CreatedAt.Sub(ls.LastHeartbeat.Time) <= 6*time.Minute {
		t.Errorf("location.offline = %+v, %v (createdAt %v)", ls, err, ev.CreatedAt)
	}

	// The feed: the same events, once each, oldest first.
	feed := w.feed(t, events.FeedQuery{})
	wantTypes := []events.Type{
		events.TypeLocationOnline, events.TypePaymentCreated, events.TypePaymentAccepted, events.TypeBillClosed,
		events.TypeOrderStatusChanged, events.TypeOrderStatusChanged, events.TypeOrderStatusChanged,
		events.TypePOSHealthChanged, events.TypePOSHealthChanged, events.TypePing, events.TypeLocationOffline,
	}
	if d := cmp.Diff(wantTypes, eventTypes(feed)); d != "" {
		t.Fatalf("feed types (-want +got):\n%s", d)
	}
	var statuses []fulfillment.Status
	for _, fe := range feed {
		if _, err := fe.Decode(); err != nil {
			t.Errorf("feed event %s: %v", fe.ID, err)
		}
		if d, err := fe.OrderStatusChanged(); err == nil {
			statuses = append(statuses, d.PreviousStatus, d.Status)
		}
	}
	wantStatuses := []fulfillment.Status{fulfillment.StatusCreated, fulfillment.StatusFulfillmentSet,
		fulfillment.StatusFulfillmentSet, fulfillment.StatusSentToPOS, fulfillment.StatusSentToPOS, fulfillment.StatusAcceptedByPOS}
	if d := cmp.Diff(wantStatuses, statuses); d != "" {
		t.Errorf("order transitions in the feed (-want +got):\n%s", d)
	}
	// Every event of the feed was delivered, as it is in the feed. (All of
	// them have been waited for above, the order's first two transitions
	// aside.)
	for _, fe := range feed {
		rc.waitFor(t, fe.Type, func(ev events.Event) bool { return ev.ID == fe.ID })
	}
	delivered := map[string]events.Event{}
	for _, ev := range rc.received() {
		delivered[ev.ID] = ev
	}
	for _, fe := range feed {
		d := delivered[fe.ID]
		if d.Type != fe.Type || !d.CreatedAt.Equal(fe.CreatedAt.Time) || !bytes.Equal(d.Data, fe.Data) ||
			!cmp.Equal(d.LocationID, fe.LocationID) || d.Cursor != "" || fe.Cursor == "" {
			t.Errorf("event %s delivered as %+v, in the feed as %+v", fe.ID, d, fe)
		}
	}
	if len(delivered) != len(feed) {
		t.Errorf("%d distinct events delivered, %d in the feed", len(delivered), len(feed))
	}
}

// A delivery carries the headers of the contract and a signature that
// events.Verify accepts; the same body altered, or signed too long ago,
// is refused by Verify and by the handler, which then never sees it.
func TestE2ESignatures(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	rc := newReceiver(t)
	wh := w.subscribe(t, rc, events.TypeLocationOnline)
	w.venue.Heartbeat(t)
	ev := rc.waitFor(t, events.TypeLocationOnline, nil)

	var d rawDelivery
	for _, r := range rc.requests() {
		if r.header.Get(events.HeaderEventID) == ev.ID {
			d = r
		}
	}
	if d.body == nil {
		t.Fatal("the receiver kept no request for the event it handled")
	}
	if ct, id := d.header.Get("Content-Type"), d.header.Get(events.HeaderWebhookID); ct != "application/json" || id != wh.Webhook.WebhookID {
		t.Errorf("Content-Type %q, %s %q", ct, events.HeaderWebhookID, id)
	}
	sig := d.header.Get(events.HeaderSignature)
	if err := events.Verify(d.body, sig, wh.Secret); err != nil {
		t.Errorf("Verify of the delivery: %v", err)
	}

	tampered := bytes.Replace(d.body, []byte(`"location.online"`), []byte(`"location.offline"`), 1)
	if bytes.Equal(tampered, d.body) {
		t.Fatalf("could not tamper with %s", d.body)
	}
	if err := events.Verify(tampered, sig, wh.Secret); !errors.Is(err, events.ErrNoMatchingSignature) {
		t.Errorf("Verify of a tampered body = %v, want ErrNoMatchingSignature", err)
	}
	if err := events.Verify(d.body, sig, "whsec_not-the-secret"); !errors.Is(err, events.ErrNoMatchingSignature) {
		t.Errorf("Verify with another secret = %v, want ErrNoMatchingSignature", err)
	}
	later := func() time.Time { return time.Now().Add(events.DefaultTolerance + time.Minute) }
	if err := events.Verify(d.body, sig, wh.Secret, events.WithClock(later)); !errors.Is(err, events.ErrTimestampOutOfTolerance) {
		t.Errorf("Verify of an old signature = %v, want ErrTimestampOutOfTolerance", err)
	}

	// Replayed at the receiver: refused, never handled twice.
	old := events.Sign(d.body, time.Now().Add(-events.DefaultTolerance-time.Minute), wh.Secret)
	for name, req := range map[string]struct {
		body []byte
		sig  string
	}{"tampered": {tampered, sig}, "old": {d.body, old}} {
		r, err := http.NewRequestWithContext(t.Context(), http.MethodPost, rc.URL+"/hooks", bytes.NewReader(req.body))
		if err != nil {
			t.Fatal(err)
		}
		r.Header.Set(events.HeaderSignature, req.sig)
		resp, err := http.DefaultClient.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("%s delivery answered %d, want 400", name, resp.StatusCode)
		}
	}
	if n := len(rc.received()); n != 1 {
		t.Errorf("the handler saw %d events, want the genuine one only", n)
	}
}

// A refused request records no event; an idempotent replay records none
// more than the first request did.
func TestE2ENoEventForRefusedRequestsAndOneForReplays(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	ctx := t.Context()
	rc := newReceiver(t)
	wh := w.subscribe(t, rc, events.TypePaymentCreated)
	w.venue.Heartbeat(t)
	w.venue.PushCheck(t, w.venue.OpenCheck(1, "20.00"))
	diner := w.env.NewDiner(t)
	card := diner.AddCard(t, "4111111111111111", wallet.ProviderB)
	pay := func(amount string, opts ...client.Option) (wallet.Payment, error) {
		return diner.Wallet.CreatePayment(ctx, wallet.CreatePaymentRequest{LocationID: w.venue.ID, CheckNumber: 1,
			CardID: card.CardID, Amount: client.MustParseMoney(amount), Tip: client.MustParseMoney("0")}, opts...)
	}

	if _, err := pay("25.00"); !errors.Is(err, client.ErrAmountExceedsOutstanding) {
		t.Fatalf("paying more than outstanding: %v, want 409002", err)
	}
	first, err := pay("5.00", client.WithIdempotencyKey("pay-once"))
	if err != nil {
		t.Fatal(err)
	}
	again, err := pay("5.00", client.WithIdempotencyKey("pay-once"))
	if err != nil || again.PaymentID != first.PaymentID {
		t.Fatalf("replay = %+v, %v; want payment %d", again, err, first.PaymentID)
	}

	// Events and deliveries are recorded with the change: no waiting.
	created := w.feed(t, events.FeedQuery{Types: []events.Type{events.TypePaymentCreated}})
	if len(created) != 1 {
		t.Fatalf("%d payment.created events, want 1: %v", len(created), eventIDs(created))
	}
	if p, err := created[0].Payment(); err != nil || p.PaymentID != first.PaymentID || p.Amount.Cmp(client.MustParseMoney("5.00")) != 0 {
		t.Errorf("payment.created = %+v, %v", p, err)
	}
	ds, err := w.events.ListDeliveries(ctx, wh.Webhook.WebhookID, events.DeliveryQuery{})
	if err != nil || len(ds) != 1 || ds[0].EventID != created[0].ID {
		t.Errorf("deliveries = %+v, %v; want the one of %s", ds, err, created[0].ID)
	}
	rc.waitFor(t, events.TypePaymentCreated, nil)
}

// A receiver that fails twice gets the event at the third attempt, each
// retry made due by advancing the virtual clock; Redeliver makes one more
// attempt of the same event.
func TestE2ERetriesAndRedelivery(t *testing.T) {
	t.Parallel()
	w := newWorldOn(t, refservertest.Start(t, refservertest.WithFrozenClock()))
	ctx := t.Context()
	rc := newReceiver(t)
	rc.failNext(2)
	wh := w.subscribe(t, rc, events.TypeLocationOnline)
	id := wh.Webhook.WebhookID
	w.venue.Heartbeat(t)
	feed := w.feed(t, events.FeedQuery{})
	if len(feed) != 1 {
		t.Fatalf("feed %v, want the location.online", eventTypes(feed))
	}
	ev := feed[0]

	for try := 1; try <= 2; try++ {
		d := w.delivery(t, id, ev.ID, func(d events.Delivery) bool { return d.Attempts >= try && d.LastError != nil })
		if d.Status != events.DeliveryPending || d.LastStatusCode == nil || *d.LastStatusCode != http.StatusInternalServerError ||
			d.LastError == nil || d.NextAttemptAt == nil {
			t.Fatalf("after failed attempt %d: %+v", try, d)
		}
		if _, err := w.sandbox.AdvanceClock(ctx, time.Duration(1<<(try-1))*time.Second); err != nil {
			t.Fatal(err)
		}
	}
	d := w.delivery(t, id, ev.ID, func(d events.Delivery) bool { return d.Status == events.DeliveryDelivered })
	if d.Attempts != 3 || d.LastStatusCode == nil || *d.LastStatusCode != http.StatusNoContent || d.LastError != nil || d.NextAttemptAt != nil {
		t.Errorf("delivered: %+v", d)
	}
	if n := rc.count(ev.ID); n != 1 {
		t.Errorf("handled %d times, want 1", n)
	}

	if err := w.events.Redeliver(ctx, id, d.DeliveryID); err != nil {
		t.Fatal(err)
	}
	w.delivery(t, id, ev.ID, func(d events.Delivery) bool { return d.Attempts == 4 && d.Status == events.DeliveryDelivered })
	if n := rc.count(ev.ID); n != 2 {
		t.Errorf("handled %d times after Redeliver, want 2", n)
	}
}

// One API key never sees another location's events in its feed, nor
// another key's webhooks: each call naming one is a 404001.
func TestE2EScoping(t *testing.T) {
	t.Parallel()
	a := newWorld(t)
	b := newWorldOn(t, a.env)
	ctx := t.Context()
	rc := newReceiver(t)
	whA := a.subscribe(t, rc)
	a.venue.Heartbeat(t)
	b.venue.Heartbeat(t)
	closed := b.venue.OpenCheck(7, "9.00")
	closed.Status = possync.CheckClosed
	b.venue.PushCheck(t, closed)
	if err := a.events.PingWebhook(ctx, whA.Webhook.WebhookID); err != nil {
		t.Fatal(err)
	}

	for _, c := range []struct {
		w    *world
		want []events.Type
	}{
		{a, []events.Type{events.TypeLocationOnline, events.TypePing}},
		{b, []events.Type{events.TypeLocationOnline, events.TypeBillClosed}},
	} {
		feed := c.w.feed(t, events.FeedQuery{})
		if d := cmp.Diff(c.want, eventTypes(feed)); d != "" {
			t.Errorf("feed of location %d (-want +got):\n%s", c.w.venue.ID, d)
		}
		for _, ev := range feed {
			if ev.LocationID != nil && *ev.LocationID != c.w.venue.ID {
				t.Errorf("the key of location %d sees event %s of location %d", c.w.venue.ID, ev.ID, *ev.LocationID)
			}
		}
	}

	if hooks, err := b.events.ListWebhooks(ctx); err != nil || len(hooks) != 0 {
		t.Errorf("key B lists %+v, %v; want none", hooks, err)
	}
	online := rc.waitFor(t, events.TypeLocationOnline, nil)
	d := a.delivery(t, whA.Webhook.WebhookID, online.ID, func(events.Delivery) bool { return true })
	other := whA.Webhook.WebhookID
	for name, call := range map[string]func() error{
		"PingWebhook": func() error { return b.events.PingWebhook(ctx, other) },
		"ListDeliveries": func() error {
			_, err := b.events.ListDeliveries(ctx, other, events.DeliveryQuery{})
			return err
		},
		"Redeliver":     func() error { return b.events.Redeliver(ctx, other, d.DeliveryID) },
		"DeleteWebhook": func() error { return b.events.DeleteWebhook(ctx, other) },
	} {
		if err := call(); !errors.Is(err, client.ErrNotFound) {
			t.Errorf("key B: %s of key A's webhook = %v, want 404001", name, err)
		}
	}
	if hooks, err := a.events.ListWebhooks(ctx); err != nil || len(hooks) != 1 || hooks[0].WebhookID != other {
		t.Errorf("key A lists %+v, %v; want its webhook, still there", hooks, err)
	}
}
