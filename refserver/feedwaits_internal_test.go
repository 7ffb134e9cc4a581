package refserver

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hospo-dev/hospo-go/client"
)

// Feed requests that wait for events hold no place under MaxInFlight, so
// that while many wait, the other callers (a POS heartbeat, a public read,
// another key's bills list) are answered at once; and the waits have their
// own bounds, per key and overall, past which a wait is refused with a
// 429001.
func TestFeedWaitsHoldNoInFlightPlace(t *testing.T) {
	t.Parallel()
	var queued atomic.Int64
	ts := newTestServer(t, func(c *Config) {
		c.MaxInFlight = 2
		c.MaxFeedWaits = 5
		c.MaxFeedWaitsPerKey = 3
		c.inFlightWait = func() { queued.Add(1) }
		// The server's calls to its own demo POS hold places too: only
		// those of the start run, and the test waits for them to end.
		c.POSHealthInterval, c.MenuSyncInterval = time.Hour, time.Hour
	})
	started, cancelStart := context.WithTimeout(context.Background(), time.Minute)
	defer cancelStart()
	if err := ts.sched.CatchUp(started); err != nil {
		t.Fatalf("the start-up checks of the demo POS: %v", err)
	}
	// The parked requests end when the test does.
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	f := ts.fixtures(t)
	key0, key1 := f.APIKeys[0].APIKey, f.APIKeys[1].APIKey
	loc := f.Locations[0]
	id := strconv.FormatInt(loc.LocationID, 10)
	heartbeat := "/v1/pos/push-pull/heartbeat/" + id + "?accessToken=" + loc.POSAccessToken
	// Online before the waits start, so that the heartbeat below makes no
	// event.
	if resp := do(t, http.MethodPost, ts.url+heartbeat, nil, "{}"); resp.status != http.StatusOK {
		t.Fatalf("heartbeat: %d %s", resp.status, resp.raw)
	}

	feedURL := func(key string) string {
		var page struct {
			NextCursor *string `json:"nextCursor"`
		}
		resp := do(t, http.MethodGet, ts.url+"/v1/events", map[string]string{"X-Vendor-API-Key": key}, "")
		if err := json.Unmarshal(resp.raw, &page); err != nil || resp.status != http.StatusOK {
			t.Fatalf("feed: %d %s", resp.status, resp.raw)
		}
		u := ts.url + "/v1/events?wait=30"
		if page.NextCursor != nil {
			u += "&after=" + *page.NextCursor
		}
		return u
	}
	answered := make(chan int, 8)
	park := func(key string, n int) {
		u := feedURL(key)
		for range n {
			go func() {
				code, err := getStatus(ctx, u, http.Header{"X-Vendor-API-Key": {key}})
				if err != nil {
					code = 0 // cancelled at the end of the test
				}
				answered <- code
			}()
		}
	}

	park(key0, 3)
	waitFor(t, "three waits of the first key", func() bool { return ts.feedWaits.count() == 3 })
	resp := do(t, http.MethodGet, feedURL(key0), map[string]string{"X-Vendor-API-Key": key0}, "")
	wantError(t, resp, client.CodeTooManyRequests)
	if resp.header.Get("Retry-After") == "" {
		t.Error("refused wait without Retry-After")
	}
	park(key1, 2)
	waitFor(t, "five waits in all", func() bool { return ts.feedWaits.count() == 5 })
	wantError(t, do(t, http.MethodGet, feedURL(key1), map[string]string{"X-Vendor-API-Key": key1}, ""), client.CodeTooManyRequests)

	// With five waiting and two places in flight, everyone else is
	// answered without waiting for a place. (The waits' own reads may
	// have queued for one, briefly: they hold none now.)
	queued.Store(0)
	for _, c := range []struct {
		method, path string
		headers      map[string]string
	}{
		{http.MethodGet, "/v1/location/" + id, nil},
		{http.MethodGet, "/v3/location/" + id + "/bills/closed?from=2030-01-01T00:00:00Z&to=2030-01-02T00:00:00Z",
			map[string]string{"X-Vendor-API-Key": key1}},
		{http.MethodPost, heartbeat, nil},
	} {
		body := ""
		if c.method == http.MethodPost {
			body = "{}"
		}
		if resp := do(t, c.method, ts.url+c.path, c.headers, body); resp.status != http.StatusOK {
			t.Errorf("%s %s: %d %s", c.method, c.path, resp.status, resp.raw)
		}
	}
	if n := queued.Load(); n != 0 {
		t.Errorf("%d requests waited for a place in flight", n)
	}

	// Seven minutes on the location goes offline: every wait sees the
	// event.
	resp = do(t, http.MethodPost, ts.url+"/sandbox/clock", map[string]string{"X-Sandbox-Admin-Key": testAdminKey}, `{"advanceSeconds": 420}`)
	if resp.status != http.StatusOK {
		t.Fatalf("advancing the clock: %d %s", resp.status, resp.raw)
	}
	for range 5 {
		if code := <-answered; code != http.StatusOK {
			t.Errorf("waiting feed request: %d", code)
		}
	}
	if n := ts.feedWaits.count(); n != 0 {
		t.Errorf("%d waits counted after all answered", n)
	}
}
