package refserver

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"github.com/go-chi/chi/v5"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/refserver/journal"
)

// blockingServer serves GET /v1/test/block, which reports on entered and
// then waits for release.
func blockingServer(t *testing.T, maxInFlight int) (ts *testServer, entered, release, waiting chan struct{}) {
	t.Helper()
	entered, release, waiting = make(chan struct{}, 16), make(chan struct{}), make(chan struct{}, 16)
	ts = newTestServer(t, func(c *Config) {
		c.MaxInFlight = maxInFlight
		c.inFlightWait = func() { waiting <- struct{}{} }
		c.routeHook = func(s *Server, r chi.Router) {
			r.With(s.guards.Public).Get("/v1/test/block", func(w http.ResponseWriter, r *http.Request) {
				entered <- struct{}{}
				<-release
				s.api.JSON(w, r, http.StatusOK, map[string]any{})
			})
		}
	})
	// A test that stops early must not leave handlers blocked: the
	// server's Close would wait for them.
	t.Cleanup(func() {
		select {
		case <-release:
		default:
			close(release)
		}
	})
	return ts, entered, release, waiting
}

// wantOK receives n statuses and wants each to be 200.
func wantOK(t *testing.T, results <-chan int, n int) {
	t.Helper()
	for range n {
		if code := <-results; code != http.StatusOK {
			t.Errorf("status %d", code)
		}
	}
}

func getStatus(ctx context.Context, url string, header http.Header) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, err
	}
	req.Header = header
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	resp.Body.Close()
	return resp.StatusCode, nil
}

func TestMaxInFlightMakesFurtherRequestsWait(t *testing.T) {
	t.Parallel()
	ts, entered, release, waiting := blockingServer(t, 2)
	ctx := t.Context()
	results := make(chan int, 3)
	get := func() {
		code, err := getStatus(ctx, ts.url+"/v1/test/block", nil)
		if err != nil {
			t.Error(err)
		}
		results <- code
	}
	go get()
	go get()
	<-entered
	<-entered
	go get()
	<-waiting

	// A client that gives up while waiting leaves the queue.
	cctx, cancel := context.WithCancel(ctx)
	gaveUp := make(chan error, 1)
	go func() {
		_, err := getStatus(cctx, ts.url+"/v1/test/block", nil)
		gaveUp <- err
	}()
	<-waiting
	cancel()
	if err := <-gaveUp; err == nil {
		t.Error("cancelled request succeeded")
	}
	// The server let it go with a 429001, recorded in the journal.
	waitFor(t, "the given-up request in the journal", func() bool {
		var list journal.Page
		resp := do(t, "GET", ts.url+"/sandbox/requests", map[string]string{"X-Sandbox-Admin-Key": testAdminKey}, "")
		if err := json.Unmarshal(resp.raw, &list); err != nil {
			t.Fatal(err)
		}
		for _, e := range list.Requests {
			if e.Method == http.MethodGet && e.ErrorCode != nil && *e.ErrorCode == client.CodeTooManyRequests {
				return true
			}
		}
		return false
	})

	// The sandbox admin API is not held up by the queue.
	code, err := getStatus(ctx, ts.url+"/sandbox/fixtures", http.Header{"X-Sandbox-Admin-Key": {testAdminKey}})
	if err != nil || code != http.StatusOK {
		t.Fatalf("admin request while full: %d, %v", code, err)
	}
	select {
	case <-entered:
		t.Fatal("a third request was handled while two were in flight")
	default:
	}

	release <- struct{}{} // one finishes, the waiting one enters
	<-entered
	close(release)
	wantOK(t, results, 3)
}

func TestMaxInFlightNegativeIsUnbounded(t *testing.T) {
	t.Parallel()
	ts, entered, release, waiting := blockingServer(t, -1)
	results := make(chan int, 3)
	for range 3 {
		go func() {
			code, _ := getStatus(t.Context(), ts.url+"/v1/test/block", nil)
			results <- code
		}()
	}
	for range 3 {
		<-entered
	}
	if len(waiting) != 0 {
		t.Error("a request waited with no bound set")
	}
	close(release)
	wantOK(t, results, 3)
}

// A client that sends its body slowly holds no place: the body is read
// before the request waits for one.
func TestMaxInFlightSlowBodyHoldsNoPlace(t *testing.T) {
	t.Parallel()
	ts, entered, release, _ := blockingServer(t, 1)
	pr, pw := io.Pipe()
	slow := make(chan struct{})
	go func() {
		defer close(slow)
		req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, ts.url+"/v1/test/block", pr)
		if err != nil {
			t.Error(err)
			return
		}
		req.Header.Set("Content-Type", "application/json")
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	if _, err := pw.Write([]byte(`{"partial":`)); err != nil { // the server has begun reading
		t.Fatal(err)
	}
	done := make(chan int, 1)
	go func() {
		code, _ := getStatus(t.Context(), ts.url+"/v1/test/block", nil)
		done <- code
	}()
	<-entered // the only place is free for the second request
	close(release)
	if code := <-done; code != http.StatusOK {
		t.Errorf("status %d", code)
	}
	pw.Close()
	<-slow
}
