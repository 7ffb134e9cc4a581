package events_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/events"
	"github.com/hospo-dev/hospo-go/internal/eventstest"
	"github.com/hospo-dev/hospo-go/internal/sdktest"
	"github.com/hospo-dev/hospo-go/refserver/refservertest"
	"github.com/hospo-dev/hospo-go/sandbox"
)

// The shared helpers of the end-to-end tests: the SDK against an
// in-process reference server, and a real receiver over HTTP built with
// events.NewHandler.

// world is a server with one venue, a vendor API key that sees it, the
// events Service calling with that key and the sandbox Service calling
// with the admin key.
type world struct {
	env     *refservertest.Env
	venue   *refservertest.Venue
	key     string
	events  *events.Service
	sandbox *sandbox.Service
}

func newWorld(t *testing.T, opts ...client.Option) *world {
	t.Helper()
	env := refservertest.Start(t)
	return newWorldOn(t, env, opts...)
}

// newWorldOn makes a world on a running server: a new venue, its key.
// opts are added to the events Service's client.
func newWorldOn(t *testing.T, env *refservertest.Env, opts ...client.Option) *world {
	t.Helper()
	venue := env.NewVenue(t, refservertest.VenueConfig{})
	key := venue.NewAPIKey(t)
	return &world{
		env: env, venue: venue, key: key,
		events:  events.NewService(env.Client(t, append([]client.Option{client.WithAPIKey(key)}, opts...)...)),
		sandbox: sandbox.NewService(env.Client(t, client.WithAdminKey(env.AdminKey))),
	}
}

// subscribe creates a webhook to rc for types (every type when none) and
// makes rc verify with its secret.
func (w *world) subscribe(t *testing.T, rc *receiver, types ...events.Type) *events.CreatedWebhook {
	t.Helper()
	if len(types) == 0 {
		types = []events.Type{events.AllTypes}
	}
	wh, err := w.events.CreateWebhook(t.Context(), events.CreateWebhookRequest{URL: rc.URL + "/hooks", Events: types, Description: "e2e"})
	if err != nil {
		t.Fatalf("CreateWebhook: %v", err)
	}
	rc.useSecret(wh.Secret)
	return wh
}

// delivery waits until the webhook's delivery of event eventID satisfies
// cond and returns it.
func (w *world) delivery(t *testing.T, webhookID, eventID string, cond func(events.Delivery) bool) events.Delivery {
	t.Helper()
	return eventstest.WaitDelivery(t, w.events, webhookID, eventID, cond)
}

// feed reads the whole feed of the world's key with Feed.All.
func (w *world) feed(t *testing.T, q events.FeedQuery) []events.Event {
	t.Helper()
	var out []events.Event
	for ev, err := range w.events.Feed(q).All(t.Context()) {
		if err != nil {
			t.Fatalf("Feed.All: %v", err)
		}
		out = append(out, ev)
	}
	return out
}

// rawDelivery is a request as the receiver got it, before the handler.
type rawDelivery struct {
	header http.Header
	body   []byte
}

// receiver is a webhook endpoint over real HTTP: events.NewHandler with
// the webhook's secret, whose function fails (so the handler answers 500)
// while failures is above zero and otherwise keeps the event. Until
// useSecret, it answers 503.
type receiver struct {
	*httptest.Server
	handler  atomic.Pointer[http.Handler]
	failures atomic.Int32

	mu     sync.Mutex
	events []events.Event // handled, in arrival order, repeats included
	raw    []rawDelivery
}

func newReceiver(t *testing.T) *receiver {
	t.Helper()
	rc := &receiver{}
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, "read", http.StatusBadRequest)
			return
		}
		rc.mu.Lock()
		rc.raw = append(rc.raw, rawDelivery{header: r.Header.Clone(), body: body})
		rc.mu.Unlock()
		h := rc.handler.Load()
		if h == nil {
			http.Error(w, "not configured", http.StatusServiceUnavailable)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		(*h).ServeHTTP(w, r)
	}))
	t.Cleanup(rc.Close)
	return rc
}

var errNotNow = errors.New("receiver failing on purpose")

func (rc *receiver) useSecret(secret string) {
	var h http.Handler = events.NewHandler([]string{secret}, func(_ context.Context, ev events.Event) error {
		if rc.failures.Add(-1) >= 0 {
			return errNotNow
		}
		rc.failures.Store(0)
		rc.mu.Lock()
		rc.events = append(rc.events, ev)
		rc.mu.Unlock()
		return nil
	})
	rc.handler.Store(&h)
}

// failNext makes the next n deliveries fail.
func (rc *receiver) failNext(n int32) { rc.failures.Store(n) }

// received returns the events handled so far.
func (rc *receiver) received() []events.Event {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return slices.Clone(rc.events)
}

// requests returns the requests received so far, refused ones included.
func (rc *receiver) requests() []rawDelivery {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return slices.Clone(rc.raw)
}

// waitFor waits until the receiver has handled an event of typ that
// matches (nil matches any) and returns the first such.
func (rc *receiver) waitFor(t *testing.T, typ events.Type, match func(events.Event) bool) events.Event {
	t.Helper()
	var found events.Event
	sdktest.Eventually(t, "a "+string(typ)+" delivery", func() bool {
		for _, ev := range rc.received() {
			if ev.Type == typ && (match == nil || match(ev)) {
				found = ev
				return true
			}
		}
		return false
	})
	return found
}

// count returns how many times the receiver handled event id.
func (rc *receiver) count(id string) int {
	n := 0
	for _, ev := range rc.received() {
		if ev.ID == id {
			n++
		}
	}
	return n
}

// eventIDs lists the ids of evs.
func eventIDs(evs []events.Event) []string {
	out := make([]string, len(evs))
	for i, ev := range evs {
		out[i] = ev.ID
	}
	return out
}

// eventTypes lists the types of evs.
func eventTypes(evs []events.Event) []events.Type {
	out := make([]events.Type, len(evs))
	for i, ev := range evs {
		out[i] = ev.Type
	}
	return out
}
