package events_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/events"
	"github.com/hospo-dev/hospo-go/refserver/refservertest"
)

// Each call of the Service names its span by the route template, never
// by the URL (which holds the ids), and the server names its span of the
// request the same way.
func TestE2ESpansAreNamedByRoute(t *testing.T) {
	t.Parallel()
	srvSpans, cliSpans := tracetest.NewSpanRecorder(), tracetest.NewSpanRecorder()
	env := refservertest.Start(t, func(c *refservertest.Options) {
		c.TracerProvider = sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(srvSpans))
	})
	w := newWorldOn(t, env, client.WithTracerProvider(sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(cliSpans))))
	ctx := t.Context()
	rc := newReceiver(t)

	wh := w.subscribe(t, rc, events.TypePing)
	id := wh.Webhook.WebhookID
	if _, err := w.events.ListWebhooks(ctx); err != nil {
		t.Fatal(err)
	}
	if err := w.events.PingWebhook(ctx, id); err != nil {
		t.Fatal(err)
	}
	page, err := w.events.ListEvents(ctx, events.FeedQuery{})
	if err != nil || len(page.Events) != 1 {
		t.Fatalf("ListEvents = %+v, %v", page, err)
	}
	d := w.delivery(t, id, page.Events[0].ID, func(events.Delivery) bool { return true })
	if err := w.events.Redeliver(ctx, id, d.DeliveryID); err != nil {
		t.Fatal(err)
	}
	if err := w.events.DeleteWebhook(ctx, id); err != nil {
		t.Fatal(err)
	}
	env.WaitIdle(t)

	clientNames := map[string]bool{}
	for _, s := range cliSpans.Ended() {
		clientNames[s.Name()] = true
	}
	server := map[string]bool{}
	for _, s := range srvSpans.Ended() {
		server[s.Name()] = true
	}
	want := map[string]bool{
		"POST /v1/webhooks": true, "GET /v1/webhooks": true, "POST /v1/webhooks/{webhookId}/ping": true,
		"GET /v1/events": true, "GET /v1/webhooks/{webhookId}/deliveries": true,
		"POST /v1/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver": true, "DELETE /v1/webhooks/{webhookId}": true,
	}
	if d := cmp.Diff(want, clientNames); d != "" {
		t.Errorf("client spans (-want +got):\n%s", d)
	}
	for name := range want {
		if !server[name] {
			t.Errorf("no server span %q: the client's route is not the server's (server spans: %v)", name, server)
		}
	}
}
