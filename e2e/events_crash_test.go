package e2e_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/events"
	"github.com/hospo-dev/hospo-go/internal/eventstest"
	"github.com/hospo-dev/hospo-go/possync"
	"github.com/hospo-dev/hospo-go/sandbox"
	"github.com/hospo-dev/hospo-go/wallet"
)

// A delivery still pending when the server is killed with SIGKILL is
// delivered by the server restarted on the same database file, once the
// receiver answers and the retry is due on the virtual clock. The webhook's
// secret is in neither the database file nor its WAL, which the kill left
// unmerged.
func TestWebhookDeliveryPendingAtSIGKILLIsDeliveredAfterRestart(t *testing.T) {
	t.Parallel()
	bin, dbPath := crashBinary(t)
	ctx := t.Context()

	srv := startBinary(t, bin, dbPath)
	sb, _ := crashClients(t, srv.URL, "")
	loc, err := sb.CreateLocation(ctx, sandbox.CreateLocationRequest{Name: "Killed Kitchen", Gateway: wallet.ProviderB})
	if err != nil {
		t.Fatal(err)
	}
	key, err := sb.CreateAPIKey(ctx, []int64{loc.LocationID})
	if err != nil {
		t.Fatal(err)
	}
	_, svc := crashClients(t, srv.URL, key.APIKey)

	// The receiver is up but failing until told otherwise.
	var (
		failing  atomic.Bool
		mu       sync.Mutex
		received []events.Event
	)
	failing.Store(true)
	var handler atomic.Pointer[http.Handler]
	rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { (*handler.Load()).ServeHTTP(w, r) }))
	defer rc.Close()
	wh, err := svc.CreateWebhook(ctx, events.CreateWebhookRequest{URL: rc.URL, Events: []events.Type{events.TypeLocationOnline}})
	if err != nil {
		t.Fatal(err)
	}
	var h http.Handler = events.NewHandler([]string{wh.Secret}, func(_ context.Context, ev events.Event) error {
		if failing.Load() {
			return errors.New("receiver failing on purpose")
		}
		mu.Lock()
		received = append(received, ev)
		mu.Unlock()
		return nil
	})
	handler.Store(&h)

	pos := possync.NewService(newClient(t, srv.URL, client.WithAccessToken(loc.POSAccessToken)))
	if _, err := pos.Heartbeat(ctx, loc.LocationID); err != nil {
		t.Fatal(err)
	}
	page, err := svc.ListEvents(ctx, events.FeedQuery{})
	if err != nil || len(page.Events) != 1 {
		t.Fatalf("ListEvents = %+v, %v; want the location.online", page, err)
	}
	ev := page.Events[0]
	pending := func(d events.Delivery) bool { return d.Status == events.DeliveryPending && d.Attempts >= 1 }
	eventstest.WaitDelivery(t, svc, wh.Webhook.WebhookID, ev.ID, pending)

	kill(t, srv)
	secret := []byte(strings.TrimPrefix(wh.Secret, "whsec_"))
	for _, p := range []string{dbPath, dbPath + "-wal"} {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(b, secret) {
			t.Errorf("%s holds the webhook's secret", filepath.Base(p))
		}
	}

	srv = startBinary(t, bin, dbPath)
	sb, svc = crashClients(t, srv.URL, key.APIKey)
	failing.Store(false)
	if _, err := sb.AdvanceClock(ctx, time.Hour); err != nil { // past any retry's time
		t.Fatal(err)
	}
	d := eventstest.WaitDelivery(t, svc, wh.Webhook.WebhookID, ev.ID, func(d events.Delivery) bool { return d.Status == events.DeliveryDelivered })
	if d.Attempts < 2 || d.LastStatusCode == nil || *d.LastStatusCode != http.StatusNoContent {
		t.Errorf("delivered after the restart: %+v", d)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(received) == 0 || received[0].ID != ev.ID || received[0].Type != events.TypeLocationOnline {
		t.Errorf("the receiver handled %+v, want event %s", received, ev.ID)
	}
}

// newClient is an SDK client of the server at base.
func newClient(t *testing.T, base string, opts ...client.Option) *client.Client {
	t.Helper()
	c, err := client.New(append([]client.Option{client.WithBaseURL(base)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// crashClients returns the sandbox Service (admin key) and the events
// Service (vendor API key apiKey) of the server at base.
func crashClients(t *testing.T, base, apiKey string) (*sandbox.Service, *events.Service) {
	t.Helper()
	return sandbox.NewService(newClient(t, base, client.WithAdminKey(crashAdminKey))),
		events.NewService(newClient(t, base, client.WithAPIKey(apiKey)))
}
