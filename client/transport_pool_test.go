package client

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/jarcoal/httpmock"
)

// TestDefaultTransportReusesConnections runs 8 callers at once through a
// Client built without WithHTTPClient. With net/http's default of 2 idle
// connections per host most requests beyond the second would dial anew;
// the SDK's pooled default keeps every connection it opened.
func TestDefaultTransportReusesConnections(t *testing.T) {
	t.Parallel()
	var dials atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{}`))
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			dials.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)

	c, err := New(WithBaseURL(srv.URL + "/"))
	if err != nil {
		t.Fatal(err)
	}
	const callers, calls = 8, 200
	var wg sync.WaitGroup
	for range callers {
		wg.Go(func() {
			for range calls {
				if _, err := c.Do(context.Background(), &Request{Method: http.MethodGet, Path: "v1/ping"}, nil); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	// net/http dials a spare connection whenever every connection is busy,
	// including one on its way back to the pool, and on a loaded machine
	// that happens for most callers: allow up to three per caller. With
	// net/http's 2 idle connections per host the same run opens hundreds.
	if n, most := dials.Load(), int64(3*callers); n > most {
		t.Errorf("%d connections opened for %d concurrent callers, want at most %d", n, callers, most)
	}
}

// TestDefaultTransportFollowsReplacedDefault checks that a replaced
// http.DefaultTransport (as httpmock.Activate does) is still used.
func TestDefaultTransportFollowsReplacedDefault(t *testing.T) {
	// Not parallel: it swaps a process-wide variable.
	mt := httpmock.NewMockTransport()
	mt.RegisterResponder(http.MethodGet, "http://mocked.test/v1/ping", httpmock.NewStringResponder(200, `{}`))
	saved := http.DefaultTransport
	http.DefaultTransport = mt
	defer func() { http.DefaultTransport = saved }()

	c, err := New(WithBaseURL("http://mocked.test/"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Do(context.Background(), &Request{Method: http.MethodGet, Path: "v1/ping"}, nil); err != nil {
		t.Fatal(err)
	}
	if mt.GetTotalCallCount() != 1 {
		t.Errorf("mock transport saw %d calls, want 1", mt.GetTotalCallCount())
	}
}
