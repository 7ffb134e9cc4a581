package api_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/hospo-dev/hospo-go/refserver/internal/api"
	"github.com/hospo-dev/hospo-go/refserver/store"
)

// A Write that returns a Located value answers with its Response and tells
// the trace the body's location; one that returns a plain value tells it
// nothing, and the journal is left to read the body itself.
func TestWriteLocated(t *testing.T) {
	t.Parallel()
	db, err := store.Open(context.Background(), store.MemoryPath, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	log := slog.New(slog.DiscardHandler)
	rd := api.NewResponder(log, time.Now, api.NewTokens(db, time.Now))
	writes := api.NewWrites(rd, db, log, "admin-key")
	seven := int64(7)

	tests := []struct {
		name      string
		value     any
		wantBody  string
		wantLoc   *int64
		wantKnown bool
	}{
		{"located", api.Located{Response: map[string]int{"n": 1}, Location: &seven}, `{"n":1}`, &seven, true},
		{"located without a location", api.Located{Response: map[string]int{"n": 2}}, `{"n":2}`, nil, true},
		{"plain", map[string]int{"n": 3}, `{"n":3}`, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var trace *api.Trace
			r := chi.NewRouter()
			r.Use(api.Tracing, func(next http.Handler) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					trace = api.TraceOf(w)
					next.ServeHTTP(w, r)
				})
			})
			writes.Post(r, "/w", http.StatusCreated, func(*http.Request) (api.Write, error) {
				return func(*store.Tx) (any, error) { return tt.value, nil }, nil
			})
			w := httptest.NewRecorder()
			r.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/w", strings.NewReader(`{}`)))
			if w.Code != http.StatusCreated || strings.TrimSpace(w.Body.String()) != tt.wantBody {
				t.Fatalf("answered %d %s; want %d %s", w.Code, w.Body, http.StatusCreated, tt.wantBody)
			}
			loc, known := trace.BodyLocation()
			if known != tt.wantKnown || (loc == nil) != (tt.wantLoc == nil) || (loc != nil && *loc != *tt.wantLoc) {
				t.Errorf("body location %v, %v; want %v, %v", loc, known, tt.wantLoc, tt.wantKnown)
			}
		})
	}
}
