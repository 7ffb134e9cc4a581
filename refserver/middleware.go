package refserver

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"runtime/debug"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/refserver/store"
)

// maxBodyBytes is the largest request body accepted (413001 beyond).
const maxBodyBytes = 1 << 20

// reqState is the per-request scratchpad shared by the middleware chain and
// the handler. Middleware further out (the access log, the error renderer)
// reads what middleware further in (version, auth) wrote, so it is a
// pointer stored once in the context.
type reqState struct {
	id          string
	version     int                // API version of the matched endpoint; 0 until set
	tokenStatus string             // accessTokenStatus once known
	token       *store.AccessToken // the accessToken's row, when it resolved
	tokenErr    error              // why the token could not be looked up
	principal   *Principal         // the authenticated caller, once known

	body     []byte // the request body, once read
	bodyRead bool
	bodyErr  error

	// The body's top-level locationId, for the journal, when a handler
	// that decoded the body has set it (saves parsing the body again).
	bodyLocation      *int64
	bodyLocationKnown bool

	idem *idemRequest // the request's Idempotency-Key, if any
}

// setBodyLocation records the locationId of the decoded body (nil: none).
func (st *reqState) setBodyLocation(id *int64) {
	st.bodyLocation, st.bodyLocationKnown = id, true
}

type stateKey struct{}

func stateOf(r *http.Request) *reqState {
	if st, ok := r.Context().Value(stateKey{}).(*reqState); ok {
		return st
	}
	// Only handlers mounted outside the chain (never in this server) get
	// here; give them a throwaway state rather than a nil pointer.
	return &reqState{}
}

// newRequestID returns 16 random bytes in hex. The id correlates the
// X-Request-Id header, the access log line and any logged error.
func newRequestID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// withState creates the request state and sets X-Request-Id on every
// response. A request id sent by the client is not reused: ids must be
// unique in the logs, and a client-chosen one could be anything.
func (s *Server) withState(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		st := &reqState{id: newRequestID()}
		w.Header().Set("X-Request-Id", st.id)
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), stateKey{}, st)))
	})
}

// statusWriter records the status a handler wrote.
type statusWriter struct {
	http.ResponseWriter
	status int
	wrote  bool
}

func (w *statusWriter) WriteHeader(code int) {
	if !w.wrote {
		w.status, w.wrote = code, true
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if !w.wrote {
		w.status, w.wrote = http.StatusOK, true
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// accessLog writes one line per request: method, route pattern, status,
// duration and request id. Never the URL: access tokens travel in the
// query string, and even paths are left out in favour of the pattern.
func (s *Server) accessLog(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := s.clock.Real()
		sw := &statusWriter{ResponseWriter: w}
		defer func() {
			route := "-"
			if rc := chi.RouteContext(r.Context()); rc != nil && rc.RoutePattern() != "" {
				route = rc.RoutePattern()
			}
			status := sw.status
			if !sw.wrote {
				status = http.StatusOK
			}
			s.log.LogAttrs(r.Context(), levelFor(status), "request",
				slog.String("method", r.Method),
				slog.String("route", route),
				slog.Int("status", status),
				slog.Duration("duration", s.clock.Real().Sub(start)),
				slog.String("request_id", stateOf(r).id),
			)
		}()
		next.ServeHTTP(sw, r)
	})
}

// recoverer turns a panic into a 500001. The panic value and stack are
// logged with the request id; the client sees only the catalogue message.
func (s *Server) recoverer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			rec := recover()
			if rec == nil {
				return
			}
			if rec == http.ErrAbortHandler {
				panic(rec) // the server's own signal to drop the connection
			}
			s.log.Error("panic in handler",
				"request_id", stateOf(r).id,
				"panic", fmt.Sprint(rec),
				"stack", string(debug.Stack()))
			s.writeError(w, r, apiErr(client.CodeInternal))
		}()
		next.ServeHTTP(w, r)
	})
}

// limitBody caps request bodies at maxBodyBytes. A declared length over the
// cap is refused at once. A body of unknown length (chunked) is read here,
// up to the cap, into the request state that readBody serves from: every
// request with too large a body is then a 413001, even on an endpoint whose
// handler never reads its body.
func (s *Server) limitBody(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength > maxBodyBytes {
			s.writeError(w, r, apiErr(client.CodeBodyTooLarge))
			return
		}
		if r.Body != nil {
			r.Body = http.MaxBytesReader(w, r.Body, maxBodyBytes)
		}
		if r.ContentLength < 0 && r.Body != nil && r.Body != http.NoBody {
			if _, err := s.readBody(r); err != nil {
				s.writeError(w, r, err)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// requireJSON answers 415001 to a POST, PUT or PATCH that carries a body
// whose Content-Type is not application/json (parameters such as charset
// are allowed). A request without a body needs no Content-Type.
func (s *Server) requireJSON(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodPost, http.MethodPut, http.MethodPatch:
		default:
			next.ServeHTTP(w, r)
			return
		}
		if !hasBody(r) {
			next.ServeHTTP(w, r)
			return
		}
		mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
		if err != nil || mt != "application/json" {
			s.writeError(w, r, apiErr(client.CodeUnsupportedMediaType))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// hasBody reports whether r carries at least one byte of body. For a body
// of unknown length it reads one byte ahead and puts it back.
func hasBody(r *http.Request) bool {
	if r.Body == nil || r.Body == http.NoBody || r.ContentLength == 0 {
		return false
	}
	if r.ContentLength > 0 {
		return true
	}
	var b [1]byte
	n, err := io.ReadFull(r.Body, b[:])
	if n == 0 {
		if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
			// Unreadable (e.g. too large): let the body reader report it.
			r.Body = io.NopCloser(errReader{err})
			return true
		}
		r.Body = http.NoBody
		return false
	}
	r.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(strings.NewReader(string(b[:n])), r.Body), r.Body}
	return true
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// notFound answers every unknown route with 404001.
func (s *Server) notFound(w http.ResponseWriter, r *http.Request) {
	s.writeError(w, r, apiErr(client.CodeNotFound))
}

// methodNotAllowed also answers 404001: the catalogue has no 405, and a
// known path with the wrong method is, to the caller, no endpoint at all.
// The Allow header chi sets still tells a curious developer what exists.
func (s *Server) methodNotAllowed(w http.ResponseWriter, r *http.Request) {
	s.writeError(w, r, apiErr(client.CodeNotFound))
}

// levelFor logs server errors louder than the rest.
func levelFor(status int) slog.Level {
	if status >= 500 {
		return slog.LevelWarn
	}
	return slog.LevelInfo
}
