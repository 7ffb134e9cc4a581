package refserver_test

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/possync"
	"github.com/hospo-dev/hospo-go/refserver"
	"github.com/hospo-dev/hospo-go/refserver/refservertest"
)

// One API key's deliveries go out 64 at a time: a key's pace is its places
// over its receivers' latency, and with 16 places, receivers answering in
// 50 ms under load held one key to about 300 deliveries a second, fewer
// than a busy venue's events.
func TestOneKeysDeliveriesGoOutSixtyFourAtATime(t *testing.T) {
	t.Parallel()
	const places = 64
	// No attempt times out while the test runs, and the clock stands
	// still, so no retry comes: the calls the receiver holds are tries
	// under way at once.
	env := refservertest.Start(t, refservertest.WithFrozenClock(),
		refservertest.WithConfig(func(c *refserver.Config) { c.WebhookTimeout = time.Hour }))
	venue := env.NewVenue(t, refservertest.VenueConfig{})
	key := venue.NewAPIKey(t)
	var (
		mu   sync.Mutex
		held int
	)
	release := make(chan struct{})
	rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		held++
		mu.Unlock()
		select {
		case <-release: // answers 200
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(rc.Close)
	// Released before the server closes, so that its calls end.
	t.Cleanup(func() {
		select {
		case <-release:
		default:
			close(release)
		}
	})
	// 16 webhooks (the most a key may have) and 5 closed checks: 80
	// deliveries of one key, every one held by the receiver until released.
	webhooks := make([]string, 16)
	for i := range webhooks {
		webhooks[i] = createWebhook(t, env, key, rc.URL, "bill.closed").Webhook.WebhookID
	}
	for n := range int64(5) {
		c := venue.OpenCheck(n+1, "20.00")
		c.Status = possync.CheckClosed
		c.OutstandingAmount = client.MustParseMoney("0")
		venue.PushCheck(t, c)
	}
	eventually(t, "64 deliveries under way at once", func() bool {
		mu.Lock()
		defer mu.Unlock()
		if held > places {
			t.Fatalf("%d of one key's deliveries under way at once, want at most %d", held, places)
		}
		return held == places
	})
	close(release)
	for _, id := range webhooks {
		eventually(t, "webhook "+id+"'s deliveries", func() bool {
			ds := listDeliveries(t, env, key, id, "?status=delivered")
			return len(ds) == 5
		})
	}
}
