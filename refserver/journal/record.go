package journal

import (
	"bytes"
	"encoding/json"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/refserver/internal/api"
	"github.com/hospo-dev/hospo-go/refserver/store"
)

// Record records every request in j once it has been answered, except
// those reading the journal (Path). It sits just inside api.Tracing, so
// that everything further in (route matching, the credential guard, the
// error writer) has run when it records: the route pattern comes from
// chi's routing context, the caller from the request record the guard gave
// the trace, and the error code from the response body. now is the
// virtual clock (the time of an entry), real the real one (its duration).
func Record(j *Journal, now, real func() time.Time) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		if j.Capacity() == 0 {
			return next
		}
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == Path {
				next.ServeHTTP(w, r)
				return
			}
			at, start := now(), real()
			t := api.TraceOf(w)
			// Deferred so that a request whose handler aborts (a panic the
			// recoverer passes on) is still recorded.
			defer func() {
				e := Entry{
					Time:       at.UTC(),
					Method:     r.Method,
					Route:      api.RoutePattern(r),
					Status:     t.Status(),
					ErrorCode:  errorCode(t),
					DurationMs: float64(real().Sub(start).Microseconds()) / 1000,
					RequestID:  t.ID(),
				}
				describeCaller(&e, r, t)
				j.add(e)
			}()
			next.ServeHTTP(w, r)
		})
	}
}

// describeCaller fills the credential kind and subject of e and the
// location the request concerned. Only ids are taken, never the
// credential itself.
func describeCaller(e *Entry, r *http.Request, t *api.Trace) {
	q := t.Request()
	if q == nil {
		q = api.RequestFrom(r.Context()) // no guard ran: an empty record
	}
	e.Credential = credentialNone
	p := q.Principal()
	tok, hasToken := q.Token()
	switch {
	case p.Kind != "":
		e.Credential = string(p.Kind)
		switch p.Kind {
		case api.KindUser:
			e.UserID = ptr(p.UserID)
		case api.KindPOS:
			e.POSLocationID = ptr(p.LocationID)
		case api.KindAPIKey:
			e.KeyID = ptr(p.KeyID)
		}
	case hasToken:
		// Recognised but refused by the endpoint (expired, wrong kind).
		e.Credential = tok.Kind
		if tok.Kind == store.TokenKindPOS {
			e.POSLocationID = ptr(tok.LocationID)
		} else {
			e.UserID = ptr(tok.UserID)
		}
	}
	e.LocationID = pathLocation(r)
	if e.LocationID == nil {
		if id, known := t.BodyLocation(); known {
			e.LocationID = id
		} else if body := t.Body(); len(body) > 0 {
			e.LocationID = bodyLocation(body)
		}
	}
	if e.LocationID == nil && e.POSLocationID != nil {
		e.LocationID = ptr(*e.POSLocationID)
	}
}

// pathLocation returns the location id named in the matched route's path:
// {locationId}, or the {id} of a /location/{id} route.
func pathLocation(r *http.Request) *int64 {
	rc := chi.RouteContext(r.Context())
	if rc == nil {
		return nil
	}
	v := rc.URLParam("locationId")
	if v == "" && strings.Contains(rc.RoutePattern(), "/location/{id}") {
		v = rc.URLParam("id")
	}
	if v == "" {
		return nil // most routes name none: no error to make
	}
	if id, err := strconv.ParseInt(v, 10, 64); err == nil {
		return &id
	}
	return nil
}

// bodyLocation returns the top-level integer locationId of a JSON body
// that the handler has read (payments, orders, checks), or nil.
func bodyLocation(body []byte) *int64 {
	var b struct {
		LocationID *int64 `json:"locationId"`
	}
	if json.Unmarshal(body, &b) != nil {
		return nil
	}
	return b.LocationID
}

// ptr returns a pointer to a copy of v, so that an entry shares no memory
// with the request record.
func ptr[T any](v T) *T { return &v }

// errorCode returns the code of an error response (interface.md section 7
// body), or nil for a success or a body that is not one.
func errorCode(t *api.Trace) *client.Code {
	b := t.ErrorPrefix()
	if len(b) == 0 {
		return nil
	}
	if mt, _, err := mime.ParseMediaType(t.Header().Get("Content-Type")); err != nil || mt != "application/json" {
		return nil
	}
	return sniffErrorCode(b)
}

// sniffErrorCode reads the top-level "code" of a JSON object that may be
// cut off after it.
func sniffErrorCode(b []byte) *client.Code {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return nil
		}
		if key != "code" {
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				return nil
			}
			continue
		}
		var n json.Number
		if dec.Decode(&n) != nil {
			return nil
		}
		c, err := strconv.Atoi(n.String())
		if err != nil {
			return nil
		}
		return ptr(client.Code(c))
	}
	return nil
}
