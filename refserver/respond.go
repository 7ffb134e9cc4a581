package refserver

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/refserver/store"
)

// Values of requestInfo.accessTokenStatus.
const (
	tokenAuthenticated = "authenticated"
	tokenMissing       = "missing"
	tokenInvalid       = "invalid"
	tokenExpired       = "expired"
)

// version marks the routes it wraps as answering with API version v, which
// requestInfo reports as apiVersion.
func (s *Server) version(v int) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			stateOf(r).version = v
			next.ServeHTTP(w, r)
		})
	}
}

// writeJSON sends body as JSON with status. Response structs embed
// RequestInfo client.RequestInfo `json:"requestInfo"` filled by
// s.requestInfo(r).
func (s *Server) writeJSON(w http.ResponseWriter, r *http.Request, status int, body any) {
	b, err := json.Marshal(body)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeRaw(w, status, b)
}

// requestInfo returns the requestInfo for a success response: the
// endpoint's version, the virtual server time and the state of the access
// token the request carried (authenticated, missing, invalid or expired).
// requestId stays null; the id travels in the X-Request-Id header.
func (s *Server) requestInfo(r *http.Request) client.RequestInfo {
	st := stateOf(r)
	return client.RequestInfo{
		AccessTokenStatus: s.tokenStatus(r),
		ServerTime:        s.clock.Now().Unix(),
		APIVersion:        st.version,
	}
}

// tokenStatus returns the accessTokenStatus of r, resolving the token
// (one read) the first time it is asked. resolveToken asks before any
// handler runs, so a handler calling requestInfo inside a write
// transaction never starts a second transaction (with ":memory:" that
// would wait for itself).
func (s *Server) tokenStatus(r *http.Request) string {
	st := stateOf(r)
	if st.tokenStatus != "" {
		return st.tokenStatus
	}
	token := r.URL.Query().Get(queryAccessToken)
	if token == "" {
		st.tokenStatus = tokenMissing
		return st.tokenStatus
	}
	// Without cancellation: the status is wanted even when the request's
	// context has ended (e.g. while rendering that error).
	st.tokenErr = nil
	t, status, err := s.lookupToken(context.WithoutCancel(r.Context()), token)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		st.tokenErr = err
		return tokenInvalid // not cached: a later call may succeed
	}
	st.tokenStatus = status
	if err == nil {
		st.token = &t
	}
	return status
}

// resolveToken looks the request's access token up once, up front, for
// requestInfo and the require* middleware.
func (s *Server) resolveToken(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.tokenStatus(r)
		next.ServeHTTP(w, r)
	})
}
