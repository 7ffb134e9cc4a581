package api

import (
	"bytes"
	"context"
	"net/http"

	"github.com/go-chi/chi/v5"
)

// maxErrorPrefix is how much of an error response's body a Trace keeps.
// Error bodies carry their code near the start, so a short prefix is
// enough even for a long contextData.
const maxErrorPrefix = 4 << 10

// Trace is the ResponseWriter wrapper that the outermost middleware
// installs. It is how middleware further out (the access log, the request
// journal) learns what was found out further in: the status, the start of
// an error body, the request record the guard made and the body's
// locationId, the body itself.
//
// It is also the request's context from Tracing in (see traceContext):
// the request record reaches the handler through it, and so does the
// router's routing context when Tracing wraps a chi router, without a
// context and a copy of the request for each.
type Trace struct {
	http.ResponseWriter
	id       string
	idHeader [1]string // the X-Request-Id header's value
	// lengthHeader is the Content-Length header's value (writeRaw).
	lengthHeader [1]string
	status       int
	wrote        bool
	errBuf       bytes.Buffer // start of the body of an error response

	req         *Request
	body        []byte
	location    *int64
	locationSet bool

	ctx traceContext
	// record is where the guard makes the request record (req), in the
	// trace's own allocation.
	record Request
	// route is the routing context of the router that Tracing wraps,
	// when ownRoute; patterns holds its RoutePatterns, so that routing
	// appends without allocating.
	route    chi.Context
	ownRoute bool
	patterns [2]string
}

// Tracing gives every request an id, sent as the X-Request-Id header, and
// a Trace for the middleware inside it. A request id sent by the client is
// not reused: ids must be unique in the logs, and a client-chosen one could
// be anything.
//
// When next is a chi router (and the request has no routing context yet),
// the Trace carries the router's routing context, which the router then
// uses as a parent router's instead of adding one of its own.
func Tracing(next http.Handler) http.Handler {
	routes, _ := next.(chi.Routes)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t := &Trace{ResponseWriter: w, id: newRequestID()}
		// Header.Set would make a slice of its own for the value.
		t.idHeader[0] = t.id
		w.Header()["X-Request-Id"] = t.idHeader[:]
		parent := r.Context()
		t.ctx = traceContext{Context: parent, t: t}
		if routes != nil && chi.RouteContext(parent) == nil {
			t.ownRoute = true
			t.route.Routes = routes
			t.route.RoutePatterns = t.patterns[:0]
		}
		next.ServeHTTP(t, r.WithContext(&t.ctx))
	})
}

// traceContext is the context of a traced request: its parent's, plus the
// request record once the guard has made it and the routing context the
// trace owns.
type traceContext struct {
	context.Context
	t *Trace
}

// Value returns the request record for requestKey once the guard has set
// it, and the owned routing context for chi.RouteCtxKey; anything else is
// the parent's.
func (c *traceContext) Value(key any) any {
	switch key {
	case requestKey{}:
		if c.t.req != nil {
			return c.t.req
		}
	case chi.RouteCtxKey:
		if c.t.ownRoute {
			return &c.t.route
		}
	}
	return c.Context.Value(key)
}

// TraceOf returns the Trace that w is or wraps, or nil outside Tracing.
func TraceOf(w http.ResponseWriter) *Trace {
	for {
		switch v := w.(type) {
		case *Trace:
			return v
		case *discardWriter:
			return v.trace
		case interface{ Unwrap() http.ResponseWriter }:
			w = v.Unwrap()
		default:
			return nil
		}
	}
}

// WriteHeader records the first status written.
func (t *Trace) WriteHeader(code int) {
	if !t.wrote {
		t.status, t.wrote = code, true
	}
	t.ResponseWriter.WriteHeader(code)
}

// Write keeps the start of an error response's body.
func (t *Trace) Write(b []byte) (int, error) {
	if !t.wrote {
		t.WriteHeader(http.StatusOK)
	}
	if t.status >= 400 && t.errBuf.Len() < maxErrorPrefix {
		t.errBuf.Write(b[:min(len(b), maxErrorPrefix-t.errBuf.Len())])
	}
	return t.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (t *Trace) Unwrap() http.ResponseWriter { return t.ResponseWriter }

// ID returns the request id.
func (t *Trace) ID() string { return t.id }

// Status returns the status written, 200 when the handler wrote none.
func (t *Trace) Status() int {
	if !t.wrote {
		return http.StatusOK
	}
	return t.status
}

// ErrorPrefix returns the start of the body of an error response (status
// 400 or more), or nil.
func (t *Trace) ErrorPrefix() []byte {
	if t.status < 400 {
		return nil
	}
	return t.errBuf.Bytes()
}

// Request returns the record the route's guard made, or nil when no guard
// ran (an unknown route, or a request refused before the guard).
func (t *Trace) Request() *Request { return t.req }

// Body returns the request body once it has been read (also when no guard
// admitted the request), else nil.
func (t *Trace) Body() []byte { return t.body }

// BodyLocation returns the locationId of the body as the request's Write
// reported it (Located); known is false when it reported nothing.
func (t *Trace) BodyLocation() (id *int64, known bool) { return t.location, t.locationSet }

// reportBodyLocation tells the trace the top-level locationId of the body
// the handler decoded (nil: none), so that the request journal need not
// parse the body again.
func reportBodyLocation(w http.ResponseWriter, id *int64) {
	if t := TraceOf(w); t != nil {
		t.location, t.locationSet = id, true
	}
}

// requestID returns the id of the request being answered through w.
func requestID(w http.ResponseWriter) string {
	if t := TraceOf(w); t != nil {
		return t.id
	}
	return ""
}
