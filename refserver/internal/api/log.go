package api

import (
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/hospo-dev/hospo-go/client"
)

// RoutePattern returns the pattern of the route r matched, or "-".
func RoutePattern(r *http.Request) string {
	if rc := chi.RouteContext(r.Context()); rc != nil {
		if p := rc.RoutePattern(); p != "" {
			return p
		}
	}
	return "-"
}

// AccessLog returns middleware that writes one line per request to log:
// method, route pattern, status, duration (on the real clock now) and
// request id. Never the URL: access tokens travel in the query string, and
// even paths are left out in favour of the pattern. It must run inside
// Tracing.
func AccessLog(log *slog.Logger, now func() time.Time) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			start := now()
			t := TraceOf(w)
			defer func() {
				end := now()
				status := t.Status()
				level := slog.LevelInfo
				// A 5xx that ended a request its client had already
				// given up on reached nobody (the end of a load run
				// closes every connection at once): it is noted as such,
				// not raised as a warning an operator must look into.
				gone := status >= 500 && r.Context().Err() != nil
				if status >= 500 && !gone {
					level = slog.LevelWarn
				}
				// The handler is called directly rather than through
				// Logger.LogAttrs, which would look up the source line of
				// the call for every request; a request's line has no use
				// for it.
				h := log.Handler()
				if !h.Enabled(r.Context(), level) {
					return
				}
				rec := slog.NewRecord(time.Now(), level, "request", 0) // as Logger stamps it
				rec.AddAttrs(
					slog.String("method", r.Method),
					slog.String("route", RoutePattern(r)),
					slog.Int("status", status),
					slog.Duration("duration", end.Sub(start)),
					slog.String("request_id", t.ID()),
				)
				if gone {
					rec.AddAttrs(slog.Bool("client_gone", true))
				}
				_ = h.Handle(r.Context(), rec) // a line that cannot be written has nowhere to go
			}()
			next.ServeHTTP(w, r)
		})
	}
}

// Recover turns a panic into a 500001. The panic value and stack are
// logged with the request id; the client sees only the catalogue message.
func (rd *Responder) Recover(next http.Handler) http.Handler {
	return Recoverer(rd.log, "panic in handler", func(w http.ResponseWriter, r *http.Request) {
		rd.Error(w, r, Err(client.CodeInternal))
	})(next)
}

// Recoverer returns middleware that turns a panic in the handler into the
// answer that answer writes, after logging msg with the panic value, the
// stack and the request id (when Tracing gave the request one). The API
// and the console share it, each with its own answer.
func Recoverer(log *slog.Logger, msg string, answer func(w http.ResponseWriter, r *http.Request)) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			defer func() {
				rec := recover()
				if rec == nil {
					return
				}
				if rec == http.ErrAbortHandler {
					panic(rec) // the server's own signal to drop the connection
				}
				var attrs []any
				if id := requestID(w); id != "" {
					attrs = append(attrs, "request_id", id)
				}
				log.Error(msg, append(attrs, "panic", fmt.Sprint(rec), "stack", string(debug.Stack()))...)
				answer(w, r)
			}()
			next.ServeHTTP(w, r)
		})
	}
}
