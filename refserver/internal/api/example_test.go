package api_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/hospo-dev/hospo-go/refserver/internal/api"
	"github.com/hospo-dev/hospo-go/refserver/store"
)

// A route group with its guard, and a POST that runs through Writes: the
// second request with the same Idempotency-Key is answered from the stored
// response, without creating a second user.
func ExampleWrites_Post() {
	ctx := context.Background()
	db, err := store.Open(ctx, store.MemoryPath, time.Now)
	if err != nil {
		panic(err)
	}
	defer db.Close()
	log := slog.New(slog.DiscardHandler)
	tokens := api.NewTokens(db, time.Now)
	rd := api.NewResponder(log, time.Now, tokens)
	guards := api.NewGuards(rd, tokens, db, "admin-key")
	writes := api.NewWrites(rd, db, log, "admin-key")

	r := chi.NewRouter()
	r.Use(api.Tracing, rd.Recover, rd.LimitBody, rd.RequireJSON)
	r.NotFound(rd.NoRoute)
	r.MethodNotAllowed(rd.MethodNotAllowed(r))
	r.Group(func(r chi.Router) {
		r.Use(guards.Admin)
		writes.Post(r, "/v1/users", http.StatusCreated, func(r *http.Request) (api.Write, error) {
			var req struct {
				Note string `json:"note"`
			}
			missing, err := api.Decode(r, &req, "note")
			if err != nil {
				return nil, err
			}
			if len(missing) > 0 {
				return nil, api.Invalid(missing)
			}
			return func(tx *store.Tx) (any, error) {
				id, err := tx.InsertUser()
				return map[string]any{"userId": id, "note": req.Note}, err
			}, nil
		})
	})

	for range 2 {
		req := httptest.NewRequest(http.MethodPost, "/v1/users", strings.NewReader(`{"note":"first"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set(api.HeaderAdminKey, "admin-key")
		req.Header.Set(api.HeaderIdempotencyKey, "k-1")
		w := httptest.NewRecorder()
		r.ServeHTTP(w, req)
		fmt.Printf("%d %s replayed=%q\n", w.Code, w.Body, w.Header().Get("Idempotent-Replayed"))
	}
	// Output:
	// 201 {"note":"first","userId":1} replayed=""
	// 201 {"note":"first","userId":1} replayed="true"
}
