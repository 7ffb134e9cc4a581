package refserver_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"testing"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/refserver/refservertest"
)

// readAnswer is the answer to one GET: its status, the code of an error
// body and, for the event feed, the page's nextCursor.
type readAnswer struct {
	status     int
	code       int
	nextCursor *string
}

// get sends one GET with header and reads the answer. It is safe to call
// from any goroutine.
func get(env *refservertest.Env, path string, header http.Header) (readAnswer, error) {
	req, err := http.NewRequest(http.MethodGet, env.URL+path, nil)
	if err != nil {
		return readAnswer{}, err
	}
	req.Header = header.Clone()
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return readAnswer{}, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		return readAnswer{}, err
	}
	var body struct {
		Code       int     `json:"code"` // of an error body
		NextCursor *string `json:"nextCursor"`
	}
	if err := json.Unmarshal(b, &body); err != nil {
		return readAnswer{}, fmt.Errorf("GET %s: %d %q: %w", path, res.StatusCode, b, err)
	}
	return readAnswer{status: res.StatusCode, code: body.Code, nextCursor: body.NextCursor}, nil
}

// TestReadsRacingResetAndRestore: reads with the demo fixture's
// credentials (which a reset makes again and the snapshot holds) go on
// while resets and snapshot restores run, each reader reading at least
// once between two of them. No read answers a 5xx, and the only error is
// the event feed's 400003 for a cursor kept across a reset or restore,
// which reading the feed again without it resolves.
func TestReadsRacingResetAndRestore(t *testing.T) {
	t.Parallel()
	env := refservertest.Start(t)
	fx := env.Fixtures(t)
	user, pos, key := fx.Users[0].AccessToken, fx.Locations[0].POSAccessToken, fx.APIKeys[len(fx.APIKeys)-1].APIKey
	// Something in the feed and in the payments poll.
	if st, body := env.Send(t, http.MethodPost, "/v1/pos/push-pull/heartbeat/1?accessToken="+pos, nil, []byte(`{}`)); st != http.StatusOK {
		t.Fatalf("heartbeat: %d %s", st, body)
	}
	snap := env.Snapshot(t, "scene")

	apiKey := http.Header{"X-Vendor-API-Key": {key}}
	admin := http.Header{client.HeaderAdminKey: {env.AdminKey}}
	reads := []struct {
		path   string
		header http.Header
	}{
		{"/v1/user/me?accessToken=" + user, nil},
		{"/v1/location/1", nil},
		{"/v2/location/1/menu", nil},
		{"/v1/pos/push-pull/payments/1?accessToken=" + pos, nil},
		{"/v3/location/1/bills/closed?from=2020-01-01T00:00:00Z&to=2020-01-31T00:00:00Z", apiKey},
		{"/v1/webhooks", apiKey},
		{"/sandbox/fixtures", admin},
		{"/sandbox/clock", admin},
	}
	type failure struct {
		path string
		a    readAnswer
		err  error
	}
	var (
		mu       sync.Mutex
		failures []failure
		feedRead int // pages of the feed read
		stale    int // 400003s of a kept cursor
	)
	fail := func(f failure) {
		mu.Lock()
		defer mu.Unlock()
		failures = append(failures, f)
	}
	done := make(chan struct{})
	readers := len(reads) + 1
	progressed := make([]chan struct{}, readers) // a read answered since the last look
	for i := range progressed {
		progressed[i] = make(chan struct{}, 1)
	}
	signal := func(i int) {
		select {
		case progressed[i] <- struct{}{}:
		default:
		}
	}
	var wg sync.WaitGroup
	for i, r := range reads {
		wg.Go(func() {
			for {
				select {
				case <-done:
					return
				default:
				}
				a, err := get(env, r.path, r.header)
				if err != nil || a.status != http.StatusOK {
					fail(failure{r.path, a, err})
				}
				signal(i)
			}
		})
	}
	// The feed reader keeps its cursor, as a consumer does.
	wg.Go(func() {
		var cursor *string
		for {
			select {
			case <-done:
				return
			default:
			}
			path := "/v1/events?limit=2"
			if cursor != nil {
				path += "&after=" + *cursor
			}
			a, err := get(env, path, apiKey)
			switch {
			case err == nil && a.status == http.StatusOK:
				mu.Lock()
				feedRead++
				mu.Unlock()
				if a.nextCursor != nil {
					cursor = a.nextCursor
				}
			case err == nil && a.code == int(client.CodeInvalidQuery) && cursor != nil:
				mu.Lock()
				stale++
				mu.Unlock()
				cursor = nil // read again from the oldest event
			default:
				fail(failure{path, a, err})
			}
			signal(readers - 1)
		}
	})

	const rounds = 6
	for i := range rounds {
		for _, p := range progressed {
			<-p
		}
		if i%2 == 0 {
			if st := env.AdminDo(t, http.MethodPost, "/sandbox/reset", nil, nil); st != http.StatusOK {
				t.Errorf("reset %d: %d", i, st)
			}
		} else {
			env.Restore(t, snap.SnapshotID)
		}
	}
	for _, p := range progressed { // every reader read after the last one
		<-p
	}
	close(done)
	wg.Wait()
	for _, f := range failures {
		t.Errorf("GET %s during resets and restores: status %d code %d (%v)", f.path, f.a.status, f.a.code, f.err)
	}
	t.Logf("%d feed pages read, %d stale cursors read again from the start", feedRead, stale)
}
