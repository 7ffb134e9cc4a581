package client

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// hangUntilCancelled answers nothing until the attempt's context ends,
// then returns its error, as a transport does.
func hangUntilCancelled(r *http.Request) (*http.Response, error) {
	<-r.Context().Done()
	return nil, r.Context().Err()
}

// clockIdle reports whether c's attempt clock has no attempt in flight.
func clockIdle(c *Client) bool {
	c.tr.clock.mu.Lock()
	defer c.tr.clock.mu.Unlock()
	return c.tr.clock.first == nil && c.tr.clock.last == nil
}

// requireAttemptTimeout fails the test unless err is an attempt timeout of
// d: it matches context.DeadlineExceeded and not context.Canceled (which
// would read as the caller's doing), and its message names d.
func requireAttemptTimeout(t *testing.T, err error, d string) {
	t.Helper()
	if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want a deadline error and no cancellation", err)
	}
	if !strings.Contains(err.Error(), "attempt timed out after "+d) {
		t.Errorf("err = %q, want it to name the attempt timeout of %s", err, d)
	}
}

// TestAttemptTimeoutWhenRetriesRunOut: an attempt that never answers is
// cut off by the per-attempt timeout; the call's error says so and matches
// context.DeadlineExceeded (not context.Canceled, which would read as the
// caller's doing), and the transport saw the same error in its request's
// context.
func TestAttemptTimeoutWhenRetriesRunOut(t *testing.T) {
	t.Parallel()
	c, m := newMockClient(t, WithTimeout(20*time.Millisecond), WithMaxRetries(1))
	seen := make(chan error, 2)
	m.Handle("GET", "v1/thing", func(r *http.Request) (*http.Response, error) {
		resp, err := hangUntilCancelled(r)
		seen <- err
		return resp, err
	})
	_, err := c.Do(context.Background(), &Request{Path: "v1/thing"}, nil)
	requireAttemptTimeout(t, err, "20ms")
	if got := m.Calls(); got != 2 {
		t.Errorf("%d attempts, want 2 (the timed-out attempt is retried)", got)
	}
	for range 2 {
		if e := <-seen; !errors.Is(e, context.DeadlineExceeded) {
			t.Errorf("the attempt's context ended with %v, want context.DeadlineExceeded", e)
		}
	}
	if !clockIdle(c) {
		t.Error("attempts left on the clock after the call")
	}
}

// TestAttemptTimeoutCoversBody: the per-attempt timeout bounds reading the
// body too. The server sends the headers and half a JSON body, then hangs.
func TestAttemptTimeoutCoversBody(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"ok":`))
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) })
	c, err := New(WithBaseURL(srv.URL), WithTimeout(50*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	var out struct{ OK bool }
	_, err = c.Do(context.Background(), &Request{Path: "v1/thing"}, &out)
	requireAttemptTimeout(t, err, "50ms")
	if !clockIdle(c) {
		t.Error("attempts left on the clock after the call")
	}
}

// TestAttemptTimeoutShorterThanOneInFlight: one timer serves every
// attempt, armed for the earliest deadline; an attempt that starts later
// with a shorter timeout must re-arm it. The second call's ctx would end it
// after a minute with a different error if it did not.
func TestAttemptTimeoutShorterThanOneInFlight(t *testing.T) {
	t.Parallel()
	c, m := newMockClient(t, WithTimeout(time.Hour), WithMaxRetries(0))
	started := make(chan struct{})
	m.Handle("GET", "v1/long", func(r *http.Request) (*http.Response, error) {
		close(started)
		return hangUntilCancelled(r)
	})
	m.Handle("GET", "v1/short", hangUntilCancelled)

	longCtx, cancelLong := context.WithCancel(context.Background())
	longDone := make(chan error, 1)
	go func() {
		_, err := c.Do(longCtx, &Request{Path: "v1/long"}, nil)
		longDone <- err
	}()
	<-started

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err := c.Do(ctx, &Request{Path: "v1/short"}, nil, WithTimeout(10*time.Millisecond))
	var ate *attemptTimeoutError
	if !errors.As(err, &ate) || ate.d != 10*time.Millisecond {
		t.Errorf("short call: err = %v, want its attempt timeout of 10ms", err)
	}

	cancelLong()
	if err := <-longDone; !errors.Is(err, context.Canceled) {
		t.Errorf("long call: err = %v, want context.Canceled", err)
	}
	if !clockIdle(c) {
		t.Error("attempts left on the clock after the calls")
	}
}

// TestAttemptClockSkippedUnderShorterDeadline: when the call's ctx ends
// before the per-attempt timeout could, the attempt is not put on the
// clock, and the ctx's own deadline ends it, unretried.
func TestAttemptClockSkippedUnderShorterDeadline(t *testing.T) {
	t.Parallel()
	c, m := newMockClient(t, WithTimeout(time.Hour))
	onClock := make(chan bool, 1)
	m.Handle("GET", "v1/thing", func(r *http.Request) (*http.Response, error) {
		_, ok := r.Context().(*attempt)
		onClock <- ok
		return hangUntilCancelled(r)
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	_, err := c.Do(ctx, &Request{Path: "v1/thing"}, nil)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want the ctx's deadline", err)
	}
	var ate *attemptTimeoutError
	if errors.As(err, &ate) {
		t.Errorf("err = %v, reported as an attempt timeout", err)
	}
	if <-onClock {
		t.Error("the attempt went on the clock under a shorter ctx deadline")
	}
	if got := m.Calls(); got != 1 {
		t.Errorf("%d attempts, want 1", got)
	}
}

// TestAttemptDeadline: an attempt's context reports the attempt's
// deadline, not the later one of the call's context.
func TestAttemptDeadline(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	var c attemptClock
	before := time.Now()
	a := c.start(ctx, time.Minute)
	after := time.Now()
	if a == nil {
		t.Fatal("no attempt under a later ctx deadline")
	}
	defer a.end()
	d, ok := a.Deadline()
	if !ok || d.Before(before.Add(time.Minute)) || d.After(after.Add(time.Minute)) {
		t.Errorf("Deadline() = %v, %v; want %v to %v", d, ok, before.Add(time.Minute), after.Add(time.Minute))
	}
}

// TestAttemptsLeaveTheClock: a completed call, successful or not, leaves
// nothing on the clock, and its attempt's context is released.
func TestAttemptsLeaveTheClock(t *testing.T) {
	t.Parallel()
	c, m := newMockClient(t)
	var attemptCtx context.Context
	m.Handle("GET", "v1/thing", func(r *http.Request) (*http.Response, error) {
		attemptCtx = r.Context()
		return ok(r)
	})
	m.Handle("GET", "v1/gone", status(404))
	if _, err := c.Do(context.Background(), &Request{Path: "v1/thing"}, nil); err != nil {
		t.Fatal(err)
	}
	if _, ok := attemptCtx.(*attempt); !ok {
		t.Fatalf("attempt context is a %T, want the clock's", attemptCtx)
	}
	if attemptCtx.Err() == nil {
		t.Error("the attempt's context is still live after the call")
	}
	if _, err := c.Do(context.Background(), &Request{Path: "v1/gone"}, nil); err == nil {
		t.Fatal("404 gave no error")
	}
	if !clockIdle(c) {
		t.Error("attempts left on the clock after the calls")
	}
}

// derivedCtxBody is a response body whose reads wait for ctx, a context
// derived from the attempt's, and fail with its error.
type derivedCtxBody struct {
	ctx    context.Context
	cancel context.CancelFunc
}

func (b derivedCtxBody) Read([]byte) (int, error) {
	<-b.ctx.Done()
	return 0, b.ctx.Err()
}
func (b derivedCtxBody) Close() error { b.cancel(); return nil }

// TestAttemptTimeoutThroughDerivedContext: a RoundTripper that derives its
// own context from the request's sees context.Canceled when the attempt
// times out (a context derived from a cancelled one reports Canceled), and
// may return that. The call's error is still the attempt's timeout, and
// does not match context.Canceled, whether the request or its body was cut.
func TestAttemptTimeoutThroughDerivedContext(t *testing.T) {
	t.Parallel()
	c, m := newMockClient(t, WithTimeout(20*time.Millisecond), WithMaxRetries(0))
	m.Handle("GET", "v1/request", func(r *http.Request) (*http.Response, error) {
		ctx, cancel := context.WithCancel(r.Context())
		defer cancel()
		<-ctx.Done()
		return nil, ctx.Err()
	})
	m.Handle("GET", "v1/body", func(r *http.Request) (*http.Response, error) {
		ctx, cancel := context.WithCancel(r.Context())
		return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}},
			Body: derivedCtxBody{ctx, cancel}, Request: r}, nil
	})
	for _, path := range []string{"v1/request", "v1/body"} {
		t.Run(path, func(t *testing.T) {
			var out struct{ OK bool }
			_, err := c.Do(context.Background(), &Request{Path: path}, &out)
			requireAttemptTimeout(t, err, "20ms")
		})
	}
	if !clockIdle(c) {
		t.Error("attempts left on the clock after the calls")
	}
}
