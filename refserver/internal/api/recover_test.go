package api_test

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/hospo-dev/hospo-go/refserver/internal/api"
)

// Recoverer answers a panic with its own answer and logs it, with the
// request id only where Tracing gave one (the console's requests have
// none); http.ErrAbortHandler goes on up to the server.
func TestRecoverer(t *testing.T) {
	t.Parallel()
	boom := http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic("boom") })
	for _, traced := range []bool{false, true} {
		var buf bytes.Buffer
		h := api.Recoverer(slog.New(slog.NewTextHandler(&buf, nil)), "panic here", func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "sorry", http.StatusTeapot)
		})(boom)
		if traced {
			h = api.Tracing(h)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
		if rec.Code != http.StatusTeapot || !strings.Contains(rec.Body.String(), "sorry") {
			t.Errorf("traced=%v: answered %d %q", traced, rec.Code, rec.Body)
		}
		log := buf.String()
		if !strings.Contains(log, `msg="panic here"`) || !strings.Contains(log, "panic=boom") || !strings.Contains(log, "stack=") {
			t.Errorf("traced=%v: log %q", traced, log)
		}
		if id := rec.Header().Get("X-Request-Id"); strings.Contains(log, "request_id=") != traced || traced && !strings.Contains(log, "request_id="+id) {
			t.Errorf("traced=%v: request id %q, log %q", traced, id, log)
		}
	}

	abort := api.Recoverer(slog.New(slog.DiscardHandler), "panic here", func(http.ResponseWriter, *http.Request) {
		t.Error("answered an aborted request")
	})(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic(http.ErrAbortHandler) }))
	defer func() {
		if got := recover(); got != http.ErrAbortHandler {
			t.Errorf("recovered %v, want http.ErrAbortHandler", got)
		}
	}()
	abort.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/", nil))
}
