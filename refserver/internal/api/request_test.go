package api

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/go-chi/chi/v5"
)

func TestRouteVersion(t *testing.T) {
	t.Parallel()
	tests := []struct {
		patterns []string
		want     int
	}{
		{[]string{"/v3/bill/{billId}"}, 3},
		{[]string{"/payments/v1/payment"}, 1},
		{[]string{"/ordering/v3/order/{orderId}/fulfillment-type/{method}"}, 3},
		{[]string{"/v12/x"}, 12},
		{[]string{"/v2"}, 2},
		{[]string{"/sandbox/*", "/v4/x"}, 4}, // a mounted router's pieces
		{[]string{"/sandbox/fixtures"}, 0},
		{[]string{"/vx/v/v1a/{v1}"}, 0},
		{[]string{"/openapi.json"}, 0},
		{nil, 0},
	}
	for _, tt := range tests {
		rc := chi.NewRouteContext()
		rc.RoutePatterns = tt.patterns
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r = r.WithContext(context.WithValue(r.Context(), chi.RouteCtxKey, rc))
		if got := routeVersion(r); got != tt.want {
			t.Errorf("routeVersion(%q) = %d, want %d", tt.patterns, got, tt.want)
		}
	}
	if got := routeVersion(httptest.NewRequest(http.MethodGet, "/v1/x", nil)); got != 0 {
		t.Errorf("without a route context: %d, want 0", got)
	}
}

func TestRequestFromWithoutRecord(t *testing.T) {
	t.Parallel()
	q := RequestFrom(context.Background())
	if q == nil || q.ID() != "" || q.Version() != 0 || q.Principal().Kind != "" || q.Body() != nil {
		t.Errorf("RequestFrom(empty context) = %+v, want an empty record", q)
	}
	if _, ok := q.Token(); ok {
		t.Error("an empty record has a token")
	}
}

func TestTrace(t *testing.T) {
	t.Parallel()
	var seen *Trace
	h := Tracing(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen = TraceOf(w)
		reportBodyLocation(w, nil)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"error":true,"code":404001}`))
	}))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/x", nil))
	if seen == nil {
		t.Fatal("no Trace inside Tracing")
	}
	if id := rec.Header().Get("X-Request-Id"); len(id) != 32 || id != seen.ID() {
		t.Errorf("X-Request-Id %q, trace id %q", id, seen.ID())
	}
	if seen.Status() != http.StatusNotFound || string(seen.ErrorPrefix()) != `{"error":true,"code":404001}` {
		t.Errorf("status %d, error prefix %q", seen.Status(), seen.ErrorPrefix())
	}
	if id, known := seen.BodyLocation(); !known || id != nil {
		t.Errorf("body location %v, %v; want nil, reported", id, known)
	}
	if TraceOf(httptest.NewRecorder()) != nil {
		t.Error("a Trace outside Tracing")
	}
}

// A traced request's context is its parent's: its values, and its end,
// which reaches a context made from it at once, as a context.WithCancel of
// the parent's own would (no goroutine in between).
func TestTraceContextIsTheParents(t *testing.T) {
	t.Parallel()
	type key struct{}
	parent, cancel := context.WithCancel(context.WithValue(context.Background(), key{}, "v"))
	defer cancel()
	var ctx context.Context
	h := Tracing(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { ctx = r.Context() }))
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/x", nil).WithContext(parent))
	if ctx.Value(key{}) != "v" {
		t.Errorf("value %v, want the parent's", ctx.Value(key{}))
	}
	child, stop := context.WithCancel(ctx)
	defer stop()
	cancel()
	select {
	case <-child.Done():
	default:
		t.Error("the parent's cancellation has not reached a context made from the trace's")
	}
	if ctx.Err() != context.Canceled || child.Err() != context.Canceled {
		t.Errorf("errors %v, %v; want %v", ctx.Err(), child.Err(), context.Canceled)
	}
}
