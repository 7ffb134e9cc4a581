package refserver_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/fulfillment"
	"github.com/hospo-dev/hospo-go/possync"
	"github.com/hospo-dev/hospo-go/refserver/refservertest"
	"github.com/hospo-dev/hospo-go/universalpos"
	"github.com/hospo-dev/hospo-go/wallet"
)

// expectEvent waits for the receiver's next delivery, checks its signature
// and that it is of typ about locationID (nil for none), and returns its
// data decoded as a map.
func expectEvent(t *testing.T, rc *receiver, wh createdWebhook, typ string, locationID *int64) (received, map[string]any) {
	t.Helper()
	r := rc.next(t)
	checkSignature(t, r, wh.Secret, wh.Webhook.WebhookID)
	if r.event.Type != typ {
		t.Fatalf("event type %q, want %q (%s)", r.event.Type, typ, r.body)
	}
	if !cmp.Equal(r.event.LocationID, locationID) {
		t.Errorf("%s: locationId %v, want %v", typ, r.event.LocationID, locationID)
	}
	var data map[string]any
	if err := json.Unmarshal(r.event.Data, &data); err != nil {
		t.Fatalf("%s data: %v", typ, err)
	}
	return r, data
}

func TestWebhookReceivesEachEventType(t *testing.T) {
	t.Parallel()
	env := refservertest.Start(t)
	venue := env.NewVenue(t, refservertest.VenueConfig{})
	key := venue.NewAPIKey(t)
	rc := newReceiver(t)
	wh := createWebhook(t, env, key, rc.URL+"/hooks", "*")
	loc := &venue.ID

	// A new location is offline: its first heartbeat puts it online.
	venue.Heartbeat(t)
	r, data := expectEvent(t, rc, wh, "location.online", loc)
	if data["locationId"] != float64(venue.ID) || data["lastHeartbeat"] != float64(r.event.CreatedAt) {
		t.Errorf("location.online data %v (createdAt %d)", data, r.event.CreatedAt)
	}
	venue.Heartbeat(t) // still online: no event

	venue.PushCheck(t, venue.OpenCheck(1, "20.00"))
	diner := env.NewDiner(t)
	diner.AddCard(t, "4111111111111111", wallet.ProviderB)
	p := diner.Pay(t, venue, 1, "12.50", "1.00")
	_, data = expectEvent(t, rc, wh, "payment.created", loc)
	want := map[string]any{
		"paymentId": float64(p.PaymentID), "locationId": float64(venue.ID), "checkNumber": float64(1),
		"billId": p.BillID, "cardId": float64(p.CardID), "amount": 12.5, "tip": float64(1),
		"status": "pending", "createdAt": float64(p.CreatedAt.Unix()),
	}
	if diff := cmp.Diff(want, data); diff != "" {
		t.Errorf("payment.created data (-want +got):\n%s", diff)
	}

	venue.AcceptAll(t)
	_, data = expectEvent(t, rc, wh, "payment.accepted", loc)
	want["status"] = "accepted"
	if diff := cmp.Diff(want, data); diff != "" {
		t.Errorf("payment.accepted data (-want +got):\n%s", diff)
	}
	// Accepting again succeeds and records nothing.
	if _, err := venue.POS.AcceptPayment(context.Background(), p.PaymentID); err != nil {
		t.Fatal(err)
	}

	closed := venue.OpenCheck(1, "20.00")
	closed.Status = possync.CheckClosed
	closed.OutstandingAmount = client.MustParseMoney("0")
	push := venue.PushCheck(t, closed)
	r, data = expectEvent(t, rc, wh, "bill.closed", loc)
	want = map[string]any{
		"billId": push.BillID, "locationId": float64(venue.ID), "checkNumber": float64(1), "totalAmount": float64(20),
		"lastUpdated": time.Unix(r.event.CreatedAt, 0).UTC().Format("2006-01-02 15:04:05"),
	}
	if diff := cmp.Diff(want, data); diff != "" {
		t.Errorf("bill.closed data (-want +got):\n%s", diff)
	}
	venue.PushCheck(t, closed) // unchanged: no second bill.closed

	if status, body := keyDo(t, env, key, http.MethodPost, "/v1/webhooks/"+wh.Webhook.WebhookID+"/ping", nil, nil); status != http.StatusAccepted || string(body) != "{}" {
		t.Fatalf("ping: %d %s", status, body)
	}
	_, data = expectEvent(t, rc, wh, "ping", nil)
	if diff := cmp.Diff(map[string]any{"webhookId": wh.Webhook.WebhookID}, data); diff != "" {
		t.Errorf("ping data (-want +got):\n%s", diff)
	}

	// Six minutes without a heartbeat: offline, noticed as the clock moves.
	hb := serverTime(t, env)
	env.AdvanceClock(t, 6*time.Minute+2*time.Second)
	_, data = expectEvent(t, rc, wh, "location.offline", loc)
	if data["locationId"] != float64(venue.ID) || data["lastHeartbeat"].(float64) > float64(hb) {
		t.Errorf("location.offline data %v (last heartbeat at most %d)", data, hb)
	}
	// And the next heartbeat puts it online again.
	venue.Heartbeat(t)
	expectEvent(t, rc, wh, "location.online", loc)

	// The feed holds the same events, each once, in order.
	wantTypes := []string{"location.online", "payment.created", "payment.accepted", "bill.closed", "ping",
		"location.offline", "location.online"}
	if diff := cmp.Diff(wantTypes, feedTypes(readFeed(t, env, key, ""))); diff != "" {
		t.Errorf("feed (-want +got):\n%s", diff)
	}
}

// healthPOS is a universal POS whose health a test switches.
type healthPOS struct {
	switchablePOS
	mu     sync.Mutex
	failed string
}

func (p *healthPOS) Health(context.Context) (universalpos.HealthStatus, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.failed != "" {
		return universalpos.HealthStatus{Status: universalpos.HealthFailed, Message: p.failed}, nil
	}
	return universalpos.HealthStatus{Status: universalpos.HealthOK}, nil
}

func (p *healthPOS) setFailed(msg string) {
	p.mu.Lock()
	p.failed = msg
	p.mu.Unlock()
}

func TestOrderAndPOSHealthEvents(t *testing.T) {
	t.Parallel()
	const token = "health-pos-token"
	pos := &healthPOS{switchablePOS: switchablePOS{menus: smallMenu("9.00")}}
	posSrv := httptest.NewServer(universalpos.NewHandler(pos, universalpos.HandlerOptions{Token: token}))
	defer posSrv.Close()
	env := refservertest.Start(t, fastPOSMonitor)
	venue := env.NewVenue(t, refservertest.VenueConfig{UniversalPOSURL: posSrv.URL, UniversalPOSToken: token})
	env.WaitForMenu(t, venue.ID)
	key := venue.NewAPIKey(t)
	rc := newReceiver(t)
	wh := createWebhook(t, env, key, rc.URL, "order.status_changed", "pos.health_changed")
	loc := &venue.ID

	diner := env.NewDiner(t)
	ctx := context.Background()
	o, err := diner.Order.CreateOrder(ctx, fulfillment.OrderRequest{LocationID: venue.ID,
		Items: []fulfillment.OrderLine{{PLU: "PZ-1", Quantity: 1}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := diner.Order.Set(ctx, o.OrderID, fulfillment.OrderAtTable{TableNumber: 3}); err != nil {
		t.Fatal(err)
	}
	// Deliveries come in no guaranteed order: gather the three.
	got := map[string]map[string]any{}
	for range 3 {
		_, data := expectEvent(t, rc, wh, "order.status_changed", loc)
		got[data["status"].(string)] = data
	}
	posOrderID := "EXT-" + o.OrderID
	for _, step := range []struct {
		prev, status string
		posOrderID   any
	}{
		{"created", "fulfillment_set", nil},
		{"fulfillment_set", "sent_to_pos", nil},
		{"sent_to_pos", "accepted_by_pos", posOrderID},
	} {
		want := map[string]any{"orderId": o.OrderID, "locationId": float64(venue.ID), "status": step.status,
			"previousStatus": step.prev, "posOrderId": step.posOrderID, "reason": nil}
		if diff := cmp.Diff(want, got[step.status]); diff != "" {
			t.Errorf("order.status_changed to %s (-want +got):\n%s", step.status, diff)
		}
	}

	pos.setFailed("printer on fire")
	_, data := expectEvent(t, rc, wh, "pos.health_changed", loc)
	if diff := cmp.Diff(map[string]any{"locationId": float64(venue.ID), "status": "FAILED", "message": "printer on fire"}, data); diff != "" {
		t.Errorf("pos.health_changed to FAILED (-want +got):\n%s", diff)
	}
	pos.setFailed("")
	_, data = expectEvent(t, rc, wh, "pos.health_changed", loc)
	if diff := cmp.Diff(map[string]any{"locationId": float64(venue.ID), "status": "OK", "message": nil}, data); diff != "" {
		t.Errorf("pos.health_changed to OK (-want +got):\n%s", diff)
	}
}

func TestNoEventForRefusedRequestsAndOneForReplays(t *testing.T) {
	t.Parallel()
	env := refservertest.Start(t)
	venue := env.NewVenue(t, refservertest.VenueConfig{})
	key := venue.NewAPIKey(t)
	venue.PushCheck(t, venue.OpenCheck(7, "30.00"))
	diner := env.NewDiner(t)
	card := diner.AddCard(t, "4111111111111111", wallet.ProviderB)

	pay := func(idemKey, amount string) (int, []byte) {
		body, _ := json.Marshal(map[string]any{"locationId": venue.ID, "checkNumber": 7, "cardId": card.CardID,
			"amount": json.Number(amount), "tip": 0})
		h := http.Header{}
		if idemKey != "" {
			h.Set("Idempotency-Key", idemKey)
		}
		return env.Send(t, http.MethodPost, "/payments/v1/payment?accessToken="+diner.AccessToken, h, body)
	}
	// Refused: the location is offline (409003), then too much (409002).
	if status, body := pay("", "5.00"); status != http.StatusConflict {
		t.Fatalf("payment at an offline location: %d %s", status, body)
	}
	venue.Heartbeat(t)
	if status, body := pay("", "99.00"); status != http.StatusConflict {
		t.Fatalf("payment over the outstanding amount: %d %s", status, body)
	}
	// The same request twice under one key: one payment, one event.
	s1, b1 := pay("pay-once", "5.00")
	s2, b2 := pay("pay-once", "5.00")
	if s1 != http.StatusCreated || s2 != s1 || string(b1) != string(b2) {
		t.Fatalf("replay: %d %s then %d %s", s1, b1, s2, b2)
	}
	want := []string{"location.online", "payment.created"}
	if diff := cmp.Diff(want, feedTypes(readFeed(t, env, key, ""))); diff != "" {
		t.Errorf("feed (-want +got):\n%s", diff)
	}
}

func TestWebhookRetriesOnTheVirtualClock(t *testing.T) {
	t.Parallel()
	env := refservertest.Start(t, refservertest.WithFrozenClock())
	venue := env.NewVenue(t, refservertest.VenueConfig{})
	key := venue.NewAPIKey(t)
	rc := newReceiver(t)
	wh := createWebhook(t, env, key, rc.URL, "location.online")
	id := wh.Webhook.WebhookID

	// Nine failures: the tenth attempt, 1+2+...+256 s of virtual time
	// later, delivers. Each wait passes only because the clock moves.
	rc.failNext(9)
	venue.Heartbeat(t)
	for try := 1; try <= 9; try++ {
		r := rc.next(t)
		checkSignature(t, r, wh.Secret, id)
		d := deliveryOf(t, env, key, id, r.event.ID, func(d delivery) bool { return d.Attempts == try && d.LastError != nil })
		backoff := int64(1) << (try - 1)
		now := serverTime(t, env)
		if d.Status != "pending" || d.NextAttemptAt == nil || *d.NextAttemptAt-now > backoff || *d.NextAttemptAt-now < backoff-1 ||
			d.LastStatusCode == nil || *d.LastStatusCode != 500 || d.LastError == nil {
			t.Fatalf("after try %d: %+v (now %d, backoff %d)", try, d, now, backoff)
		}
		env.AdvanceClock(t, time.Duration(backoff)*time.Second)
	}
	r := rc.next(t)
	d := deliveryOf(t, env, key, id, r.event.ID, func(d delivery) bool { return d.Status == "delivered" })
	if d.Attempts != 10 || d.LastStatusCode == nil || *d.LastStatusCode != 200 || d.LastError != nil || d.NextAttemptAt != nil {
		t.Errorf("delivered: %+v", d)
	}

	// Redelivery: one more attempt of the same event, at once.
	path := "/v1/webhooks/" + id + "/deliveries/" + d.DeliveryID + "/redeliver"
	if status, body := keyDo(t, env, key, http.MethodPost, path, nil, nil); status != http.StatusAccepted || string(body) != "{}" {
		t.Fatalf("redeliver: %d %s", status, body)
	}
	again := rc.next(t)
	if again.event.ID != r.event.ID || again.header.Get("Hospo-Event-Id") != r.event.ID {
		t.Errorf("redelivered event %s, want %s", again.event.ID, r.event.ID)
	}
	checkSignature(t, again, wh.Secret, id)
	deliveryOf(t, env, key, id, r.event.ID, func(d delivery) bool { return d.Attempts == 11 && d.Status == "delivered" })
}

func TestWebhookGivesUpAfterFifteenAttempts(t *testing.T) {
	t.Parallel()
	env := refservertest.Start(t, refservertest.WithFrozenClock())
	venue := env.NewVenue(t, refservertest.VenueConfig{})
	key := venue.NewAPIKey(t)
	rc := newReceiver(t)
	// Only location.online: the clock moves past the heartbeat's window,
	// and the location.offline that makes must not join in.
	wh := createWebhook(t, env, key, rc.URL, "location.online")
	id := wh.Webhook.WebhookID
	rc.failNext(1000)
	venue.Heartbeat(t)
	var d delivery
	for try := 1; try <= 15; try++ {
		r := rc.next(t)
		d = deliveryOf(t, env, key, id, r.event.ID, func(d delivery) bool { return d.Attempts == try && d.LastError != nil })
		if try < 15 {
			env.AdvanceClock(t, time.Duration(min(int64(1)<<(try-1), 3600))*time.Second)
		}
	}
	if d.Status != "failed" || d.NextAttemptAt != nil {
		t.Fatalf("after 15 failed attempts: %+v", d)
	}
	if got := listDeliveries(t, env, key, id, "?status=failed"); len(got) != 1 || got[0].DeliveryID != d.DeliveryID {
		t.Errorf("failed deliveries: %+v", got)
	}
	if got := listDeliveries(t, env, key, id, "?status=pending"); len(got) != 0 {
		t.Errorf("pending deliveries: %+v", got)
	}
	// A failed delivery can still be redelivered.
	rc.failNext(0)
	if status, body := keyDo(t, env, key, http.MethodPost, "/v1/webhooks/"+id+"/deliveries/"+d.DeliveryID+"/redeliver", nil, nil); status != http.StatusAccepted {
		t.Fatalf("redeliver: %d %s", status, body)
	}
	rc.next(t)
	deliveryOf(t, env, key, id, d.EventID, func(d delivery) bool { return d.Status == "delivered" && d.Attempts == 16 })
}

func TestWebhooksAndEventsAreScopedToTheKey(t *testing.T) {
	t.Parallel()
	env := refservertest.Start(t)
	a := env.NewVenue(t, refservertest.VenueConfig{Name: "A"})
	b := env.NewVenue(t, refservertest.VenueConfig{Name: "B"})
	keyA, keyB, keyAB := env.NewAPIKey(t, a.ID), env.NewAPIKey(t, b.ID), env.NewAPIKey(t, a.ID, b.ID)
	rc := newReceiver(t)
	whA := createWebhook(t, env, keyA, rc.URL, "*")
	id := whA.Webhook.WebhookID

	a.Heartbeat(t)
	b.Heartbeat(t)
	got := listDeliveries(t, env, keyA, id)
	if len(got) != 1 || got[0].Type != "location.online" {
		t.Fatalf("key A's webhook deliveries: %+v", got)
	}
	feedA, feedAB := readFeed(t, env, keyA, ""), readFeed(t, env, keyAB, "")
	if len(feedA.Events) != 1 || *feedA.Events[0].LocationID != a.ID || feedA.Events[0].ID != got[0].EventID {
		t.Errorf("key A's feed: %+v", feedA.Events)
	}
	if len(feedAB.Events) != 2 {
		t.Errorf("key AB's feed: %+v", feedAB.Events)
	}

	// Key B cannot see, ping, inspect, redeliver or delete A's webhook.
	var list struct {
		Webhooks []json.RawMessage `json:"webhooks"`
	}
	if keyDo(t, env, keyB, http.MethodGet, "/v1/webhooks", nil, &list); len(list.Webhooks) != 0 {
		t.Errorf("key B lists %s", list.Webhooks)
	}
	for _, c := range []struct{ method, path string }{
		{http.MethodPost, "/v1/webhooks/" + id + "/ping"},
		{http.MethodGet, "/v1/webhooks/" + id + "/deliveries"},
		{http.MethodPost, "/v1/webhooks/" + id + "/deliveries/" + got[0].DeliveryID + "/redeliver"},
		{http.MethodDelete, "/v1/webhooks/" + id},
	} {
		status, body := keyDo(t, env, keyB, c.method, c.path, nil, nil)
		if code, _ := errorCode(t, body); status != http.StatusNotFound || code != 404001 {
			t.Errorf("key B: %s %s: %d %s", c.method, c.path, status, body)
		}
	}
	// A ping belongs to its key: B's feed does not show A's.
	keyDo(t, env, keyA, http.MethodPost, "/v1/webhooks/"+id+"/ping", nil, nil)
	if f := readFeed(t, env, keyB, "?types=ping"); len(f.Events) != 0 {
		t.Errorf("key B sees pings: %+v", f.Events)
	}
	if f := readFeed(t, env, keyA, "?types=ping"); len(f.Events) != 1 {
		t.Errorf("key A's pings: %+v", f.Events)
	}

	// The owner deletes it; then it is gone.
	if status, body := keyDo(t, env, keyA, http.MethodDelete, "/v1/webhooks/"+id, nil, nil); status != http.StatusNoContent {
		t.Fatalf("delete: %d %s", status, body)
	}
	if keyDo(t, env, keyA, http.MethodGet, "/v1/webhooks", nil, &list); len(list.Webhooks) != 0 {
		t.Errorf("after delete key A lists %s", list.Webhooks)
	}
	if status, _ := keyDo(t, env, keyA, http.MethodDelete, "/v1/webhooks/"+id, nil, nil); status != http.StatusNotFound {
		t.Errorf("second delete: %d", status)
	}
}

func TestWebhookRequestsAreChecked(t *testing.T) {
	t.Parallel()
	env := refservertest.Start(t)
	key := env.NewAPIKey(t, env.Fixtures(t).Locations[0].LocationID)
	for _, c := range []struct {
		name string
		body any
		want map[string]any
	}{
		{"missing", map[string]any{}, map[string]any{"url": "required", "events": "required"}},
		{"relative url, no events", map[string]any{"url": "/hooks", "events": []string{}},
			map[string]any{"url": "must be an absolute http or https URL", "events": `must name at least one event type, or be ["*"]`}},
		{"ftp and unknown type", map[string]any{"url": "ftp://example.com/x", "events": []string{"payment.created", "payment.exploded"}},
			map[string]any{"url": "must be an absolute http or https URL",
				"events[1]": "must be one of payment.created, payment.accepted, bill.closed, order.status_changed, location.online, location.offline, pos.health_changed, ping or \"*\""}},
		{"star and more", map[string]any{"url": "https://example.com", "events": []string{"*", "ping"}},
			map[string]any{"events": `"*" must be the only element`}},
		{"credentials, long description", map[string]any{"url": "https://me:pw@example.com", "events": []string{"ping"}, "description": strings.Repeat("d", 501)},
			map[string]any{"url": "must not hold a user name or password", "description": "must be at most 500 characters"}},
	} {
		status, body := keyDo(t, env, key, http.MethodPost, "/v1/webhooks", c.body, nil)
		code, ctxData := errorCode(t, body)
		if status != http.StatusBadRequest || code != 400002 {
			t.Errorf("%s: %d %s", c.name, status, body)
			continue
		}
		for k, v := range c.want {
			if ctxData[k] != v {
				t.Errorf("%s: contextData[%q] = %v, want %v (%s)", c.name, k, ctxData[k], v, body)
			}
		}
	}
	// The credential is checked as for bills.
	if status, body := keyDo(t, env, "", http.MethodGet, "/v1/webhooks", nil, nil); status != http.StatusUnauthorized {
		t.Errorf("no key: %d %s", status, body)
	} else if code, _ := errorCode(t, body); code != 401003 {
		t.Errorf("no key: code %d", code)
	}
	if status, body := keyDo(t, env, "no-such-key", http.MethodGet, "/v1/events", nil, nil); status != http.StatusUnauthorized {
		t.Errorf("wrong key: %d %s", status, body)
	} else if code, _ := errorCode(t, body); code != 401004 {
		t.Errorf("wrong key: code %d", code)
	}
	// A valid one with a description.
	var out createdWebhook
	status, body := keyDo(t, env, key, http.MethodPost, "/v1/webhooks",
		map[string]any{"url": "http://127.0.0.1:9/x", "events": []string{"bill.closed"}, "description": "accounts"}, &out)
	if status != http.StatusCreated || out.Webhook.Description == nil || *out.Webhook.Description != "accounts" ||
		len(out.Secret) < 40 || out.Secret[:6] != "whsec_" {
		t.Errorf("create: %d %s", status, body)
	}
}

func TestEventFeed(t *testing.T) {
	t.Parallel()
	env := refservertest.Start(t)
	venue := env.NewVenue(t, refservertest.VenueConfig{})
	key := venue.NewAPIKey(t)

	if f := readFeed(t, env, key, ""); len(f.Events) != 0 || f.NextCursor != nil {
		t.Fatalf("empty feed: %+v", f)
	}
	venue.Heartbeat(t)
	for n := int64(1); n <= 3; n++ {
		c := venue.OpenCheck(n, "10.00")
		c.Status = possync.CheckClosed
		venue.PushCheck(t, c)
	}
	all := readFeed(t, env, key, "")
	if diff := cmp.Diff([]string{"location.online", "bill.closed", "bill.closed", "bill.closed"}, feedTypes(all)); diff != "" {
		t.Fatalf("feed (-want +got):\n%s", diff)
	}
	if *all.NextCursor != all.Events[3].Cursor {
		t.Errorf("nextCursor %q, want the last event's %q", *all.NextCursor, all.Events[3].Cursor)
	}
	// Pages resume after their cursor, with the same events.
	p1 := readFeed(t, env, key, "?limit=2")
	p2 := readFeed(t, env, key, "?limit=2&after="+*p1.NextCursor)
	if diff := cmp.Diff(all.Events, append(p1.Events, p2.Events...)); diff != "" {
		t.Errorf("paged feed (-want +got):\n%s", diff)
	}
	end := readFeed(t, env, key, "?after="+*all.NextCursor)
	if len(end.Events) != 0 || *end.NextCursor != *all.NextCursor {
		t.Errorf("read past the end: %+v", end)
	}
	// Only some types.
	if got := feedTypes(readFeed(t, env, key, "?types=location.online,ping")); !cmp.Equal(got, []string{"location.online"}) {
		t.Errorf("types filter: %v", got)
	}

	// wait holds the request until a new event arrives.
	type result struct {
		page feedPage
		err  error
	}
	done := make(chan result, 1)
	go func() {
		req, _ := http.NewRequest(http.MethodGet, env.URL+"/v1/events?wait=30&after="+*all.NextCursor, nil)
		req.Header.Set("X-Vendor-API-Key", key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			done <- result{err: err}
			return
		}
		defer resp.Body.Close()
		var p feedPage
		err = json.NewDecoder(resp.Body).Decode(&p)
		done <- result{page: p, err: err}
	}()
	env.AdvanceClock(t, 7*time.Minute) // the venue goes offline: a new event
	res := <-done
	if res.err != nil || len(res.page.Events) != 1 || res.page.Events[0].Type != "location.offline" {
		t.Fatalf("waiting read: %+v %v", res.page, res.err)
	}

	// Bad queries are 400003.
	for _, q := range []string{"?limit=0", "?limit=501", "?wait=31", "?types=nope", "?after=garbage"} {
		status, body := keyDo(t, env, key, http.MethodGet, "/v1/events"+q, nil, nil)
		if code, _ := errorCode(t, body); status != http.StatusBadRequest || code != 400003 {
			t.Errorf("%s: %d %s", q, status, body)
		}
	}

	// Seven days on, the cursor is older than the events kept, and the
	// sweep removes them.
	env.AdvanceClock(t, 7*24*time.Hour+time.Minute)
	status, body := keyDo(t, env, key, http.MethodGet, "/v1/events?after="+all.Events[0].Cursor, nil, nil)
	if code, _ := errorCode(t, body); status != http.StatusBadRequest || code != 400003 {
		t.Errorf("expired cursor: %d %s", status, body)
	}
	eventually(t, "the sweep of old events", func() bool { return len(readFeed(t, env, key, "").Events) == 0 })
}

func TestDeliveriesSurviveARestart(t *testing.T) {
	t.Parallel()
	env := refservertest.Start(t, refservertest.WithFrozenClock())
	venue := env.NewVenue(t, refservertest.VenueConfig{})
	key := venue.NewAPIKey(t)
	rc := newReceiver(t)
	wh := createWebhook(t, env, key, rc.URL, "*")
	rc.failNext(1)
	venue.Heartbeat(t)
	first := rc.next(t)
	deliveryOf(t, env, key, wh.Webhook.WebhookID, first.event.ID, func(d delivery) bool { return d.Attempts == 1 && d.LastError != nil })

	env.Restart(t)
	env.AdvanceClock(t, 2*time.Second)
	again := rc.next(t)
	if again.event.ID != first.event.ID || string(again.body) != string(first.body) {
		t.Errorf("after the restart: %s, before: %s", again.body, first.body)
	}
	checkSignature(t, again, wh.Secret, wh.Webhook.WebhookID)
	deliveryOf(t, env, key, wh.Webhook.WebhookID, first.event.ID, func(d delivery) bool { return d.Status == "delivered" && d.Attempts == 2 })
}

// An attempt under way when the server stops was never recorded: the
// restarted server makes it again at once, on a clock that does not move.
func TestDeliveryUnderWayAtARestartIsMadeAgain(t *testing.T) {
	t.Parallel()
	env := refservertest.Start(t, refservertest.WithFrozenClock())
	venue := env.NewVenue(t, refservertest.VenueConfig{})
	key := venue.NewAPIKey(t)
	var (
		first = make(chan string, 1) // the first attempt, held until the server gives up
		later = make(chan string, 10)
		held  atomic.Bool
	)
	rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get("Hospo-Event-Id")
		_, _ = io.Copy(io.Discard, r.Body) // so that the server sees the client go
		if held.CompareAndSwap(false, true) {
			first <- id
			<-r.Context().Done() // the server's shutdown cuts it short
			return
		}
		w.WriteHeader(http.StatusOK)
		later <- id
	}))
	t.Cleanup(rc.Close)
	wh := createWebhook(t, env, key, rc.URL, "*")
	venue.Heartbeat(t)
	var eventID string
	select {
	case eventID = <-first:
	case <-time.After(30 * time.Second):
		t.Fatal("no delivery arrived")
	}
	deliveryOf(t, env, key, wh.Webhook.WebhookID, eventID, func(d delivery) bool { return d.Attempts == 1 && d.NextAttemptAt == nil })

	env.Restart(t)
	select {
	case again := <-later:
		if again != eventID {
			t.Errorf("after the restart: %s, want %s again", again, eventID)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the attempt cut short by the restart was not made again")
	}
	d := deliveryOf(t, env, key, wh.Webhook.WebhookID, eventID, func(d delivery) bool { return d.Status == "delivered" })
	if d.Attempts != 2 {
		t.Errorf("delivered after the restart: %+v", d)
	}
}

// StopWaits (HTTP shutdown) makes a feed request that waits for events
// answer at once with what there is, so that shutdown does not wait up to
// 30 s for it, and a wait asked for afterwards does not wait at all.
func TestStopWaitsEndsFeedWaits(t *testing.T) {
	t.Parallel()
	env := refservertest.Start(t)
	key := env.NewAPIKey(t, env.Fixtures(t).Locations[0].LocationID)
	start := readFeed(t, env, key, "")
	after := ""
	if start.NextCursor != nil {
		after = "&after=" + *start.NextCursor
	}
	done := make(chan int, 1)
	go func() {
		req, _ := http.NewRequest(http.MethodGet, env.URL+"/v1/events?wait=30"+after, nil)
		req.Header.Set("X-Vendor-API-Key", key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			done <- 0
			return
		}
		resp.Body.Close()
		done <- resp.StatusCode
	}()
	eventually(t, "the feed request to wait", func() bool { return env.Server.FeedWaits() == 1 })
	env.Server.StopWaits()
	select {
	case status := <-done:
		if status != http.StatusOK {
			t.Fatalf("waiting feed request: status %d", status)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the waiting feed request did not answer after StopWaits")
	}
	if page := readFeed(t, env, key, "?wait=30"+after); len(page.Events) != 0 {
		t.Errorf("feed after StopWaits: %+v", page)
	}
}

// A feed cursor kept across a sandbox reset, after which sequence numbers
// start again, is a 400003 that says so, not a page that silently skips
// the new events.
func TestFeedCursorAcrossAResetIsStale(t *testing.T) {
	t.Parallel()
	env := refservertest.Start(t)
	f := env.Fixtures(t)
	key, loc := f.APIKeys[0].APIKey, f.Locations[0]
	venue := &refservertest.Venue{ID: loc.LocationID, POS: possync.NewService(env.Client(t, client.WithAccessToken(loc.POSAccessToken)))}
	pushClosed := func(from, to int64) {
		for n := from; n <= to; n++ {
			c := venue.OpenCheck(n, "10.00")
			c.Status = possync.CheckClosed
			venue.PushCheck(t, c)
		}
	}
	pushClosed(1, 8)
	kept := readFeed(t, env, key, "")
	if len(kept.Events) < 8 {
		t.Fatalf("feed before the reset: %v", feedTypes(kept))
	}

	if st := env.AdminDo(t, http.MethodPost, "/sandbox/reset", nil, nil); st != http.StatusOK {
		t.Fatalf("reset: %d", st)
	}
	pushClosed(1, 5)
	status, body := keyDo(t, env, key, http.MethodGet, "/v1/events?after="+*kept.NextCursor, nil, nil)
	code, e := errorCode(t, body)
	if status != http.StatusBadRequest || code != 400003 || !cmp.Equal(e, map[string]any{"after": "reset"}) {
		t.Fatalf("kept cursor after the reset: %d %s", status, body)
	}
	if got := readFeed(t, env, key, ""); len(got.Events) != 5 {
		t.Errorf("feed read again after the reset: %v, want the 5 new bill.closed", feedTypes(got))
	}
}

// A webhook URL of a link-local or metadata address, or with a port that
// cannot be, is refused; and a receiver whose answer has 8 MiB of headers
// has failed the attempt, 2xx or not.
func TestWebhookTargetsAndAnswersAreBounded(t *testing.T) {
	t.Parallel()
	env := refservertest.Start(t, refservertest.WithFrozenClock())
	venue := env.NewVenue(t, refservertest.VenueConfig{})
	key := venue.NewAPIKey(t)
	for _, u := range []string{"http://169.254.169.254/latest/meta-data/", "http://[fe80::1]/", "http://metadata.google.internal/", "http://127.0.0.1:99999/"} {
		status, body := keyDo(t, env, key, http.MethodPost, "/v1/webhooks", map[string]any{"url": u, "events": []string{"*"}}, nil)
		if code, fields := errorCode(t, body); status != http.StatusBadRequest || code != 400002 || fields["url"] == nil {
			t.Errorf("%s: %d %s", u, status, body)
		}
	}

	big := strings.Repeat("x", 8<<10)
	answered := make(chan struct{}, 16)
	rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for i := range 1024 { // 8 MiB of headers
			w.Header().Set("X-Padding-"+strconv.Itoa(i), big)
		}
		w.WriteHeader(http.StatusOK)
		answered <- struct{}{}
	}))
	t.Cleanup(rc.Close)
	wh := createWebhook(t, env, key, rc.URL, "*")
	venue.Heartbeat(t)
	<-answered
	d := listDeliveries(t, env, key, wh.Webhook.WebhookID)
	if len(d) != 1 {
		t.Fatalf("deliveries %+v", d)
	}
	d[0] = deliveryOf(t, env, key, wh.Webhook.WebhookID, d[0].EventID, func(d delivery) bool { return d.Attempts == 1 && d.LastError != nil })
	if d[0].Status == "delivered" || d[0].LastError == nil || !strings.Contains(*d[0].LastError, "header") {
		t.Errorf("delivery answered with 8 MiB of headers: %+v (%v)", d[0], ptrString(d[0].LastError))
	}
}

func ptrString(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}

// An API key has at most rules.MaxWebhooksPerKey webhooks; one more is a
// 400002 naming url, and another key is not affected.
func TestWebhooksPerKeyAreLimited(t *testing.T) {
	t.Parallel()
	env := refservertest.Start(t)
	venue := env.NewVenue(t, refservertest.VenueConfig{})
	key, other := venue.NewAPIKey(t), venue.NewAPIKey(t)
	for range 16 {
		createWebhook(t, env, key, "http://127.0.0.1:9/h", "*")
	}
	status, body := keyDo(t, env, key, http.MethodPost, "/v1/webhooks", map[string]any{"url": "http://127.0.0.1:9/h", "events": []string{"*"}}, nil)
	if code, fields := errorCode(t, body); status != http.StatusBadRequest || code != 400002 || fields["url"] == nil {
		t.Fatalf("17th webhook: %d %s", status, body)
	}
	createWebhook(t, env, other, "http://127.0.0.1:9/h", "*")
}

// The deliveries list counts an attempt while it is under way: a receiver
// that holds the request sees the delivery pending with that attempt
// counted (and no status or error yet, those of the attempt before
// cleared), as it does right after answering, before the outcome is
// recorded.
func TestDeliveryListCountsTheAttemptUnderWay(t *testing.T) {
	t.Parallel()
	env := refservertest.Start(t, refservertest.WithFrozenClock())
	venue := env.NewVenue(t, refservertest.VenueConfig{})
	key := venue.NewAPIKey(t)
	var (
		arrived  = make(chan string)
		release  = make(chan int)
		answered = make(chan struct{}, 1)
	)
	rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case arrived <- r.Header.Get("Hospo-Event-Id"):
		case <-r.Context().Done():
			return
		}
		select {
		case code := <-release:
			w.WriteHeader(code)
		case <-r.Context().Done():
			return
		}
		answered <- struct{}{}
	}))
	t.Cleanup(rc.Close)
	wh := createWebhook(t, env, key, rc.URL, "location.online")
	id := wh.Webhook.WebhookID
	venue.Heartbeat(t)

	for try, code := range []int{http.StatusInternalServerError, http.StatusOK} {
		eventID := <-arrived
		var d delivery
		for _, x := range listDeliveries(t, env, key, id) {
			if x.EventID == eventID {
				d = x
			}
		}
		if d.Status != "pending" || d.Attempts != try+1 || d.LastStatusCode != nil || d.LastError != nil || d.NextAttemptAt != nil {
			t.Fatalf("while attempt %d is under way: %+v", try+1, d)
		}
		release <- code
		<-answered
		if got := listDeliveries(t, env, key, id); len(got) != 1 || got[0].Attempts != try+1 {
			t.Fatalf("right after the receiver answered attempt %d: %+v", try+1, got)
		}
		if code != http.StatusOK {
			deliveryOf(t, env, key, id, eventID, func(d delivery) bool { return d.LastError != nil })
			// The clock call answers once the retry it made due has run, and
			// the receiver holds that retry until this test reads it: so the
			// advance goes on beside the test.
			advanced := make(chan struct{})
			go func() {
				defer close(advanced)
				env.AdvanceClock(t, time.Second)
			}()
			t.Cleanup(func() { <-advanced })
			continue
		}
		d = deliveryOf(t, env, key, id, eventID, func(d delivery) bool { return d.Status == "delivered" })
		if d.Attempts != 2 || d.LastStatusCode == nil || *d.LastStatusCode != http.StatusOK {
			t.Errorf("delivered: %+v", d)
		}
	}
}
