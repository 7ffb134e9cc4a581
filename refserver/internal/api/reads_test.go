package api_test

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/refserver/internal/api"
	"github.com/hospo-dev/hospo-go/refserver/internal/storetest"
	"github.com/hospo-dev/hospo-go/refserver/store"
)

// readRouter serves h, through Reads, as GET /r.
func readRouter(t *testing.T, h api.ReadHandler) http.Handler {
	t.Helper()
	db := storetest.Open(t, store.MemoryPath, time.Now)
	rd := api.NewResponder(slog.New(slog.DiscardHandler), time.Now, api.NewTokens(db, time.Now))
	r := chi.NewRouter()
	r.Use(api.Tracing, rd.Recover)
	api.NewReads(rd, db).Get(r, "/r", h)
	return r
}

func TestReads(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		h          api.ReadHandler
		wantStatus int
		wantBody   string
	}{
		{
			name: "value",
			h: func(*http.Request) (api.Read, error) {
				return func(tx *store.Tx) (any, error) {
					// The Read runs in a transaction: it can query.
					_, err := tx.PendingPayments(1)
					return map[string]int{"n": 1}, err
				}, nil
			},
			wantStatus: http.StatusOK,
			wantBody:   `{"n":1}`,
		},
		{
			name: "handler error",
			h: func(*http.Request) (api.Read, error) {
				return nil, api.NotFound("Bill")
			},
			wantStatus: http.StatusNotFound,
		},
		{
			name: "read error",
			h: func(*http.Request) (api.Read, error) {
				return func(*store.Tx) (any, error) { return nil, api.Err(client.CodeForbidden) }, nil
			},
			wantStatus: http.StatusForbidden,
		},
		{
			name: "stream",
			h: func(*http.Request) (api.Read, error) {
				return func(*store.Tx) (any, error) {
					return api.Stream(func(w io.Writer) error {
						for i := range 3 {
							fmt.Fprintf(w, "%d", i)
						}
						return nil
					}), nil
				}, nil
			},
			wantStatus: http.StatusOK,
			wantBody:   `012`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := httptest.NewRecorder()
			readRouter(t, tc.h).ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/r", nil))
			if w.Code != tc.wantStatus {
				t.Fatalf("status %d, want %d: %s", w.Code, tc.wantStatus, w.Body)
			}
			if got := w.Header().Get("Content-Type"); got != "application/json" {
				t.Errorf("Content-Type %q", got)
			}
			if tc.wantBody != "" && w.Body.String() != tc.wantBody {
				t.Errorf("body %s, want %s", w.Body, tc.wantBody)
			}
		})
	}
}

// A Stream that fails after it started cuts the connection: the client
// gets an error, not a body that looks whole.
func TestReadsStreamFailureCutsConnection(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(readRouter(t, func(*http.Request) (api.Read, error) {
		return func(*store.Tx) (any, error) {
			return api.Stream(func(w io.Writer) error {
				io.WriteString(w, `{"bills":[`)
				return errors.New("disk on fire")
			}), nil
		}, nil
	}))
	t.Cleanup(srv.Close)
	resp, err := srv.Client().Get(srv.URL + "/r")
	if err != nil {
		return // cut before the status arrived: also not a whole body
	}
	defer resp.Body.Close()
	if _, err := io.ReadAll(resp.Body); err == nil {
		t.Fatal("a failed stream read as a complete body")
	}
}
