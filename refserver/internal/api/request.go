package api

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/hospo-dev/hospo-go/refserver/store"
)

// Request is the request record: who sent a request, to which version of
// the API, with which body. The route's credential guard makes it once,
// after checking the credential, and it never changes afterwards; handlers
// read it with RequestFrom.
type Request struct {
	id        string
	version   int
	principal Principal
	body      []byte

	tokenStatus string             // accessTokenStatus; "" when not known
	token       *store.AccessToken // the access token's row, when it resolved
	tokenRow    store.AccessToken  // where token points
	// bodyReader is what r.Body becomes once the guard has read the body.
	bodyReader bufferedBody
	// replaced is the store's ReplaceMark from before the guard checked
	// the credential (recheck).
	replaced store.ReplaceMark
}

// ID returns the request id, the one sent in the X-Request-Id header.
func (q *Request) ID() string { return q.id }

// Version returns the API version of the matched endpoint (requestInfo's
// apiVersion): the vN segment of the route's pattern, 0 when it has none.
func (q *Request) Version() int { return q.version }

// Principal returns the caller the credential guard admitted; its Kind is
// "" on public routes.
func (q *Request) Principal() Principal { return q.principal }

// Body returns the request body, read in full before the handler runs (nil
// when there is none). The slice is shared: do not modify it.
func (q *Request) Body() []byte { return q.body }

// Token returns the row of the access token the request carried, whether
// or not the route accepted it; ok is false when it carried none or an
// unknown one.
func (q *Request) Token() (t store.AccessToken, ok bool) {
	if q.token == nil {
		return store.AccessToken{}, false
	}
	return *q.token, true
}

type requestKey struct{}

// newContext returns ctx carrying q.
func newContext(ctx context.Context, q *Request) context.Context {
	return context.WithValue(ctx, requestKey{}, q)
}

// noRequest is what RequestFrom returns outside a guarded route: a record
// that knows nothing.
var noRequest = &Request{}

// RequestFrom returns the request record in ctx. Outside a guarded route
// (the not-found handler), and before the guard has made it, it returns an
// empty record, never nil. Middleware further out than the guard sees the
// record once the guard has made it: a traced request's context is its
// Trace's.
func RequestFrom(ctx context.Context) *Request {
	if q, ok := ctx.Value(requestKey{}).(*Request); ok {
		return q
	}
	return noRequest
}

// newRequestID returns 16 random bytes in hex. The id correlates the
// X-Request-Id header, the access log line and any logged error.
func newRequestID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// routeVersion returns the API version of the route r matched: the number
// of the first path segment of its pattern that is a v followed by digits
// (/v3/bill/{billId}, /payments/v1/payment), or 0. The segments are read
// from chi's pattern pieces as they are, without joining them.
func routeVersion(r *http.Request) int {
	rc := chi.RouteContext(r.Context())
	if rc == nil {
		return 0
	}
	for _, p := range rc.RoutePatterns {
		for i := 0; i+2 < len(p); i++ {
			if p[i] != '/' || p[i+1] != 'v' {
				continue
			}
			n, j := 0, i+2
			for ; j < len(p) && p[j] >= '0' && p[j] <= '9'; j++ {
				n = n*10 + int(p[j]-'0')
			}
			if j > i+2 && (j == len(p) || p[j] == '/') {
				return n
			}
		}
	}
	return 0
}
