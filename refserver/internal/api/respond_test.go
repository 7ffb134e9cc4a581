package api

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/refserver/sim"
)

// TestTooManyRequestsCarriesRetryAfter: every 429 tells the caller when to
// come back, whether a limit or an injected fault answered it.
func TestTooManyRequestsCarriesRetryAfter(t *testing.T) {
	t.Parallel()
	rd := NewResponder(slog.New(slog.DiscardHandler), time.Now, nil)
	faults := &sim.Faults{}
	faults.Add(sim.Fault{Method: "GET", PathPrefix: "/v1/", Status: http.StatusTooManyRequests, Count: 1})
	ok := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })

	tests := []struct {
		name string
		h    http.Handler
		want string
	}{
		{"injected fault", rd.Faults(faults, NewSelfCalls("http://127.0.0.1:8080"))(ok), "1"},
		{"no wait given", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			rd.Error(w, r, Err(client.CodeTooManyRequests))
		}), "1"},
		{"wait rounded up", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			rd.Error(w, r, TooManyRequests(2100*time.Millisecond))
		}), "3"},
	}
	for _, tt := range tests {
		rec := httptest.NewRecorder()
		tt.h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/v1/location/1", nil))
		if rec.Code != http.StatusTooManyRequests {
			t.Errorf("%s: status %d, want 429", tt.name, rec.Code)
		}
		if got := rec.Header().Get("Retry-After"); got != tt.want {
			t.Errorf("%s: Retry-After %q, want %q", tt.name, got, tt.want)
		}
	}
}

// A client that gives up while an injected latency holds its request gets
// its connection dropped, not an empty 200 that would stand for an answer.
func TestFaultLatencyClientGone(t *testing.T) {
	t.Parallel()
	rd := NewResponder(slog.New(slog.DiscardHandler), time.Now, nil)
	faults := &sim.Faults{}
	faults.Add(sim.Fault{PathPrefix: "/", LatencyMs: 60_000, Count: 1})
	h := rd.Faults(faults, NewSelfCalls("http://127.0.0.1:8080"))(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) }))
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	defer func() {
		if rec := recover(); rec != http.ErrAbortHandler {
			t.Errorf("recovered %v, want http.ErrAbortHandler", rec)
		}
	}()
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/v1/x", nil).WithContext(ctx))
	t.Error("the handler returned")
}

// A read cut short because its client went away is not an internal error
// of the server: it is not logged as one. The same context error while the
// request's context is still alive is (it can only be the server's bug).
func TestClientGoneIsNotAnInternalError(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	rd := NewResponder(slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelInfo})), time.Now, nil)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	gone := httptest.NewRequest(http.MethodGet, "/v1/location/1", nil).WithContext(ctx)
	rd.Error(httptest.NewRecorder(), gone, fmt.Errorf("read bills: %w", context.Canceled))
	if strings.Contains(buf.String(), "level=ERROR") {
		t.Errorf("a request its client gave up on was logged as an error:\n%s", buf.String())
	}

	alive := httptest.NewRequest(http.MethodGet, "/v1/location/1", nil)
	rec := httptest.NewRecorder()
	rd.Error(rec, alive, fmt.Errorf("read bills: %w", context.Canceled))
	if !strings.Contains(buf.String(), "level=ERROR") || rec.Code != http.StatusInternalServerError {
		t.Errorf("a context error under a live request: status %d, log\n%s", rec.Code, buf.String())
	}
}
