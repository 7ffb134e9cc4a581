package events_test

import (
	"bytes"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/events"
	"github.com/hospo-dev/hospo-go/internal/syncbuf"
	"github.com/hospo-dev/hospo-go/refserver/refservertest"
)

// bodyRecorder is a transport that keeps every response body.
type bodyRecorder struct {
	mu     sync.Mutex
	bodies []string // "<method> <path>: <body>"
}

func (b *bodyRecorder) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	b.mu.Lock()
	b.bodies = append(b.bodies, r.Method+" "+r.URL.Path+": "+string(body))
	b.mu.Unlock()
	return resp, nil
}

// The signing secret is in the answer that created the webhook and
// nowhere else: not in any later answer (the webhook list among them),
// not in the server's log, not in the database file or its WAL.
func TestE2ESecretIsShownOnce(t *testing.T) {
	t.Parallel()
	var logs syncbuf.Buffer
	env := refservertest.Start(t, refservertest.WithFrozenClock(), func(c *refservertest.Options) {
		c.Logger = slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	})
	rec := &bodyRecorder{}
	w := newWorldOn(t, env, client.WithHTTPClient(&http.Client{Transport: rec}))
	ctx := t.Context()
	rc := newReceiver(t)
	rc.failNext(1) // a failed attempt, which the server logs
	wh := w.subscribe(t, rc)
	secret := strings.TrimPrefix(wh.Secret, "whsec_")
	if len(secret) < 32 {
		t.Fatalf("secret %q", wh.Secret)
	}

	w.venue.Heartbeat(t)
	online := w.feed(t, events.FeedQuery{})[0]
	w.delivery(t, wh.Webhook.WebhookID, online.ID, func(d events.Delivery) bool { return d.Attempts == 1 && d.LastError != nil })
	if _, err := w.sandbox.AdvanceClock(ctx, time.Second); err != nil {
		t.Fatal(err)
	}
	rc.waitFor(t, events.TypeLocationOnline, nil)
	if err := w.events.PingWebhook(ctx, wh.Webhook.WebhookID); err != nil {
		t.Fatal(err)
	}
	rc.waitFor(t, events.TypePing, nil)
	hooks, err := w.events.ListWebhooks(ctx)
	if err != nil || len(hooks) != 1 || hooks[0].WebhookID != wh.Webhook.WebhookID {
		t.Fatalf("ListWebhooks = %+v, %v", hooks, err)
	}
	if _, err := w.events.ListDeliveries(ctx, wh.Webhook.WebhookID, events.DeliveryQuery{}); err != nil {
		t.Fatal(err)
	}

	rec.mu.Lock()
	bodies := rec.bodies
	rec.mu.Unlock()
	var holding []string
	for _, b := range bodies {
		if strings.Contains(b, secret) {
			holding = append(holding, b[:strings.Index(b, ":")])
		}
	}
	if len(holding) != 1 || holding[0] != "POST /v1/webhooks" {
		t.Errorf("answers holding the secret: %q, want the creating one only (of %d answers)", holding, len(bodies))
	}
	for _, r := range rc.requests() {
		if bytes.Contains(r.body, []byte(secret)) {
			t.Errorf("a delivery holds the secret: %s", r.body)
		}
	}
	if !strings.Contains(logs.String(), "delivery failed") {
		t.Error("the failed attempt was not logged; the log check proves nothing")
	}
	if strings.Contains(logs.String(), secret) {
		t.Error("the server's log holds the secret")
	}
	if db := env.DBBytes(t); len(db) == 0 || bytes.Contains(db, []byte(secret)) {
		t.Errorf("the database file or its WAL holds the secret (%d bytes read)", len(db))
	}
}
