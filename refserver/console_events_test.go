package refserver_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/hospo-dev/hospo-go/refserver/refservertest"
	"github.com/hospo-dev/hospo-go/wallet"
)

// The events page lists what a heartbeat, a payment and its acceptance
// recorded, newest first, filtered by type and location; the webhooks
// pages list every key's webhooks and their deliveries, escaped and
// without the secret.
func TestConsoleEventsAndWebhooksPages(t *testing.T) {
	t.Parallel()
	env := refservertest.Start(t)
	venue := env.NewVenue(t, refservertest.VenueConfig{})
	other := env.NewVenue(t, refservertest.VenueConfig{})
	key := venue.NewAPIKey(t)
	rc := newReceiver(t)
	const description = `<script>alert("wh")</script>`
	var wh createdWebhook
	if status, body := keyDo(t, env, key, http.MethodPost, "/v1/webhooks",
		map[string]any{"url": rc.URL + "/hooks", "events": []string{"*"}, "description": description}, &wh); status != http.StatusCreated {
		t.Fatalf("create webhook: %d %s", status, body)
	}
	id := wh.Webhook.WebhookID

	venue.Heartbeat(t)
	venue.PushCheck(t, venue.OpenCheck(1, "20.00"))
	diner := env.NewDiner(t)
	diner.AddCard(t, "4111111111111111", wallet.ProviderB)
	diner.Pay(t, venue, 1, "20.00", "0")
	venue.AcceptAll(t)
	other.Heartbeat(t)
	for range 3 { // location.online, payment.created, payment.accepted
		rc.next(t)
	}

	a := loggedInAgent(t, env)
	page := a.mustPage("/console/events")
	if !strings.Contains(page, `href="/console/events" aria-current="page"`) {
		t.Errorf("the navigation does not mark the events page")
	}
	created := strings.Index(page, `data-event-type="payment.created"`)
	accepted := strings.Index(page, `data-event-type="payment.accepted"`)
	online := strings.Count(page, `data-event-type="location.online"`)
	if created < 0 || accepted < 0 || accepted > created || online != 2 {
		t.Errorf("events page: payment.created at %d, payment.accepted at %d (want it first), %d location.online (want 2):\n%s",
			created, accepted, online, page)
	}

	body := a.mustPage("/console/live/events?type=payment.created")
	if strings.Count(body, "data-event-type=") != 1 || !strings.Contains(body, `data-event-type="payment.created"`) ||
		!strings.Contains(body, "status=pending") {
		t.Errorf("type filter: want the one payment.created with its data:\n%s", body)
	}
	body = a.mustPage("/console/live/events?locationId=" + fmtID(other.ID))
	if strings.Count(body, "data-event-type=") != 1 || !strings.Contains(body, `data-event-type="location.online"`) {
		t.Errorf("location filter: want the other venue's location.online alone:\n%s", body)
	}
	body = a.mustPage("/console/live/events?locationId=" + fmtID(venue.ID) + "&type=location.offline")
	if strings.Contains(body, "data-event-type=") || !strings.Contains(body, "No events match.") {
		t.Errorf("both filters: want nothing:\n%s", body)
	}
	for _, q := range []string{"type=%3Cscript%3E", "type=payment", "locationId=0", "locationId=x%22%3E"} {
		body := a.mustPage("/console/events?" + q)
		if !strings.Contains(body, `data-testid="filter-error"`) || strings.Contains(body, "data-event-type=") {
			t.Errorf("filter %s: want an error and no events:\n%s", q, body)
		}
		if strings.Contains(body, "<script>") || strings.Contains(body, `x">`) {
			t.Errorf("filter %s is echoed unescaped", q)
		}
	}

	for _, path := range []string{"/console/webhooks", "/console/live/webhooks", "/console/webhooks/" + id, "/console/live/webhooks/" + id} {
		body := a.mustPage(path)
		if !strings.Contains(body, id) || !strings.Contains(body, rc.URL+"/hooks") {
			t.Errorf("%s lacks the webhook:\n%s", path, body)
		}
		if strings.Contains(body, description) || !strings.Contains(body, `&lt;script&gt;alert(&#34;wh&#34;)&lt;/script&gt;`) {
			t.Errorf("%s does not show the description escaped", path)
		}
		if strings.Contains(body, wh.Secret) || strings.Contains(body, "whsec_") {
			t.Errorf("%s shows the secret", path)
		}
	}
	body = a.mustPage("/console/webhooks/" + id)
	if n := strings.Count(body, `data-delivery-status="delivered"`); n != 3 || strings.Count(body, "data-redeliver=") != 3 ||
		!strings.Contains(body, `href="/console/webhooks" aria-current="page"`) {
		t.Errorf("want 3 delivered deliveries with a Redeliver button each, got %d:\n%s", n, body)
	}
	if resp, _ := a.get("/console/webhooks/wh_nope"); resp.StatusCode != http.StatusNotFound {
		t.Errorf("an unknown webhook's page: %d, want 404", resp.StatusCode)
	}
}

// A delivery's Redeliver button makes one more attempt through the admin
// API; without the session's CSRF token it does nothing.
func TestConsoleRedeliver(t *testing.T) {
	t.Parallel()
	env := refservertest.Start(t)
	venue := env.NewVenue(t, refservertest.VenueConfig{})
	key := venue.NewAPIKey(t)
	rc := newReceiver(t)
	wh := createWebhook(t, env, key, rc.URL, "location.online")
	id := wh.Webhook.WebhookID
	venue.Heartbeat(t)
	first := rc.next(t)
	d := deliveryOf(t, env, key, id, first.event.ID, func(d delivery) bool { return d.Status == "delivered" })

	a := loggedInAgent(t, env)
	page := "/console/webhooks/" + id
	if body := a.mustPage(page); !strings.Contains(body, `data-delivery-id="`+d.DeliveryID+`" data-delivery-status="delivered" data-attempts="1"`) {
		t.Fatalf("the delivery's row is missing:\n%s", body)
	}
	action := "/console/controls/webhooks/" + id + "/deliveries/" + d.DeliveryID + "/redeliver"
	if body := a.mustPage(page); !strings.Contains(body, `action="`+action+`"`) {
		t.Fatalf("the Redeliver form does not post to %s:\n%s", action, body)
	}
	if resp, _ := a.post(action, url.Values{}, nil); resp.StatusCode != http.StatusForbidden {
		t.Errorf("redeliver without the CSRF token: %d, want 403", resp.StatusCode)
	}
	resp, _ := a.post(action, url.Values{"csrf": {a.csrf()}}, nil)
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != page {
		t.Fatalf("redeliver: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	if body := a.mustPage(page); !strings.Contains(body, "is due again") {
		t.Errorf("redelivery is not confirmed:\n%s", body)
	}
	again := rc.next(t)
	if again.event.ID != first.event.ID {
		t.Errorf("redelivered event %s, want %s", again.event.ID, first.event.ID)
	}
	checkSignature(t, again, wh.Secret, id)
	deliveryOf(t, env, key, id, first.event.ID, func(d delivery) bool { return d.Attempts == 2 && d.Status == "delivered" })
	// Only the request with the token reached the admin API.
	l, _ := readJournal(t, env, "limit=200")
	calls := 0
	for _, e := range l.Requests {
		if strings.HasSuffix(e.Route, "/redeliver") {
			calls++
		}
	}
	if calls != 1 {
		t.Errorf("%d redeliver requests in the journal, want 1", calls)
	}

	// An unknown delivery reports the admin API's 404.
	resp, _ = a.post("/console/controls/webhooks/"+id+"/deliveries/dlv_nope/redeliver", url.Values{"csrf": {a.csrf()}}, nil)
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("redeliver of an unknown delivery: %d", resp.StatusCode)
	}
	if body := a.mustPage(page); !strings.Contains(body, "(404001)") {
		t.Errorf("the refusal is not reported:\n%s", body)
	}
	if status := env.AdminDo(t, http.MethodPost, "/sandbox/webhooks/wh_nope/deliveries/"+d.DeliveryID+"/redeliver", nil, nil); status != http.StatusNotFound {
		t.Errorf("admin redeliver of an unknown webhook: %d, want 404", status)
	}
}
