package refserver

import (
	"bytes"
	"encoding/json"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/hospo-dev/hospo-go/refserver/store"
)

// journalPath is the endpoint that reads the journal. Reading it is not
// journaled: a poller would otherwise push out the very requests it is
// looking for.
const journalPath = "/sandbox/requests"

// maxErrorSniff is how much of an error response's body the journal looks
// at for its code. The core writes "code" second in every error body, so a
// short prefix is enough even for a long contextData.
const maxErrorSniff = 4 << 10

// journalRequests records every request in j once it has been answered.
// It sits just inside withState, so that everything further in (route
// matching, authentication, the error writer) has run when it records:
// the route pattern comes from chi's routing context, the caller from the
// request state that the auth middleware fills, and the error code from
// the response body.
func (s *Server) journalRequests(j *journal) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		if j.capacity() == 0 {
			return next
		}
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == journalPath {
				next.ServeHTTP(w, r)
				return
			}
			at, start := s.clock.Now(), s.clock.Real()
			jw := &journalWriter{ResponseWriter: w}
			// Deferred so that a request whose handler aborts (a panic the
			// recoverer passes on) is still recorded.
			defer func() {
				e := journalEntry{
					Time:       at.UTC(),
					Method:     r.Method,
					Route:      routePattern(r),
					Status:     jw.statusCode(),
					ErrorCode:  jw.errorCode(),
					DurationMs: float64(s.clock.Real().Sub(start).Microseconds()) / 1000,
					RequestID:  stateOf(r).id,
				}
				describeCaller(&e, r)
				j.add(e)
			}()
			next.ServeHTTP(jw, r)
		})
	}
}

// routePattern is the matched route's pattern, or "-".
func routePattern(r *http.Request) string {
	if rc := chi.RouteContext(r.Context()); rc != nil && rc.RoutePattern() != "" {
		return rc.RoutePattern()
	}
	return "-"
}

// describeCaller fills the credential kind and subject of e and the
// location the request concerned. Only ids are taken, never the
// credential itself.
func describeCaller(e *journalEntry, r *http.Request) {
	st := stateOf(r)
	e.Credential = credentialNone
	switch p := st.principal; {
	case p != nil:
		e.Credential = string(p.Kind)
		switch p.Kind {
		case KindUser:
			e.UserID = journalInt(p.UserID)
		case KindPOS:
			e.POSLocationID = journalInt(p.LocationID)
		case KindAPIKey:
			e.KeyID = journalInt(p.KeyID)
		}
	case st.token != nil:
		// Recognised but refused by the endpoint (expired, wrong kind).
		e.Credential = st.token.Kind
		if st.token.Kind == store.TokenKindPOS {
			e.POSLocationID = journalInt(st.token.LocationID)
		} else {
			e.UserID = journalInt(st.token.UserID)
		}
	}
	e.LocationID = pathLocation(r)
	if e.LocationID == nil {
		switch {
		case st.bodyLocationKnown:
			e.LocationID = st.bodyLocation
		case st.bodyRead && len(st.body) > 0:
			e.LocationID = bodyLocation(st.body)
		}
	}
	if e.LocationID == nil && e.POSLocationID != nil {
		e.LocationID = journalInt(*e.POSLocationID)
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

// journalInt returns a pointer to a copy of v.
func journalInt(v int64) *int64 { return &v }

// journalWriter records the status a handler wrote and keeps the start of
// an error response's JSON body, which holds its code.
type journalWriter struct {
	http.ResponseWriter
	status int
	wrote  bool
	sniff  bytes.Buffer // start of the body of a JSON error response
}

func (w *journalWriter) WriteHeader(code int) {
	if !w.wrote {
		w.status, w.wrote = code, true
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *journalWriter) Write(b []byte) (int, error) {
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
	}
	if w.status >= 400 && w.sniff.Len() < maxErrorSniff {
		w.sniff.Write(b[:min(len(b), maxErrorSniff-w.sniff.Len())])
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (w *journalWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *journalWriter) statusCode() int {
	if !w.wrote {
		return http.StatusOK
	}
	return w.status
}

// errorCode returns the code of an error response (interface.md section 7
// body), or nil for a success or a body that is not one.
func (w *journalWriter) errorCode() *int {
	if w.status < 400 || w.sniff.Len() == 0 {
		return nil
	}
	if mt, _, err := mime.ParseMediaType(w.Header().Get("Content-Type")); err != nil || mt != "application/json" {
		return nil
	}
	return sniffErrorCode(w.sniff.Bytes())
}

// sniffErrorCode reads the top-level "code" of a JSON object that may be
// cut off after it.
func sniffErrorCode(b []byte) *int {
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
		return &c
	}
	return nil
}
