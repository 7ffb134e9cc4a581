package api

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// A 5xx answered to a client that had already gone away is logged at
// info level and marked client_gone; the same answer to a client still
// there stays a warning.
func TestAccessLogOfAClientGone(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelInfo}))
	h := Tracing(AccessLog(log, time.Now)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusInternalServerError)
	})))

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodPost, "/v1/pos/push-pull/check", nil).WithContext(ctx))
	line := buf.String()
	if !strings.Contains(line, "level=INFO") || !strings.Contains(line, "status=500") || !strings.Contains(line, "client_gone=true") {
		t.Errorf("a 500 to a client gone: log\n%s", line)
	}

	buf.Reset()
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodPost, "/v1/pos/push-pull/check", nil))
	line = buf.String()
	if !strings.Contains(line, "level=WARN") || strings.Contains(line, "client_gone") {
		t.Errorf("a 500 to a live client: log\n%s", line)
	}
}
