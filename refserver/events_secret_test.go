package refserver_test

import (
	"bytes"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hospo-dev/hospo-go/refserver/refservertest"
)

// syncBuffer is a log destination safe for the server's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestWebhookSecretIsShownOnce(t *testing.T) {
	t.Parallel()
	var logs syncBuffer
	env := refservertest.Start(t, refservertest.WithFrozenClock(), func(c *refservertest.Options) {
		c.Logger = slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	})
	venue := env.NewVenue(t, refservertest.VenueConfig{})
	key := venue.NewAPIKey(t)
	rc := newReceiver(t)
	wh := createWebhook(t, env, key, rc.URL, "*")
	secret := wh.Secret
	hexPart := strings.TrimPrefix(secret, "whsec_")

	// Some traffic: a failed delivery (logged), a success, lists.
	rc.failNext(1)
	venue.Heartbeat(t)
	first := rc.next(t)
	checkSignature(t, first, secret, wh.Webhook.WebhookID)
	deliveryOf(t, env, key, wh.Webhook.WebhookID, first.event.ID, func(d delivery) bool { return d.Attempts == 1 && d.LastError != nil })
	env.AdvanceClock(t, 2*time.Second)
	rc.next(t)
	var bodies [][]byte
	for _, path := range []string{"/v1/webhooks", "/v1/webhooks/" + wh.Webhook.WebhookID + "/deliveries", "/v1/events"} {
		_, b := keyDo(t, env, key, http.MethodGet, path, nil, nil)
		bodies = append(bodies, b)
	}
	_, b := env.Send(t, http.MethodGet, "/sandbox/requests", http.Header{"X-Sandbox-Admin-Key": {env.AdminKey}}, nil)
	bodies = append(bodies, b)
	for _, b := range bodies {
		if bytes.Contains(b, []byte(hexPart)) {
			t.Errorf("a later response holds the secret: %s", b)
		}
	}
	if strings.Contains(logs.String(), hexPart) {
		t.Error("the log holds the secret")
	}
	if !strings.Contains(logs.String(), "webhook dispatcher: delivery failed") {
		t.Error("the failed delivery was not logged; the log check proves nothing")
	}
	if db := env.DBBytes(t); len(db) == 0 || bytes.Contains(db, []byte(hexPart)) {
		t.Errorf("the database file holds the secret in the clear (%d bytes read)", len(db))
	}
}
