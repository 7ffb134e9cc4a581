package refserver

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"net/http"
	"slices"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/refserver/store"
)

// Credential headers and the query parameter of access tokens.
const (
	headerAPIKey      = "X-Vendor-API-Key"
	headerAdminKey    = "X-Sandbox-Admin-Key"
	queryAccessToken  = "accessToken"
	headerIdempotency = "Idempotency-Key"
)

// PrincipalKind says which kind of credential authenticated a request.
type PrincipalKind string

// The kinds of principal.
const (
	KindUser   PrincipalKind = "user"   // a user access token
	KindPOS    PrincipalKind = "pos"    // a POS access token, bound to one location
	KindAPIKey PrincipalKind = "apikey" // a vendor API key, scoped to locations
	KindAdmin  PrincipalKind = "admin"  // the sandbox admin key
)

// Principal is the authenticated caller of a request, set by the require*
// middleware and read by handlers with principalFrom.
type Principal struct {
	Kind        PrincipalKind
	UserID      int64   // KindUser
	LocationID  int64   // KindPOS: the location the token is bound to
	KeyID       int64   // KindAPIKey
	LocationIDs []int64 // KindAPIKey: the key's locations, ascending
}

// CanSeeLocation reports whether the principal may act on location id: an
// API key scoped to it, a POS token bound to it, or the admin.
func (p *Principal) CanSeeLocation(id int64) bool {
	if p == nil {
		return false
	}
	switch p.Kind {
	case KindAdmin:
		return true
	case KindPOS:
		return p.LocationID == id
	case KindAPIKey:
		_, found := slices.BinarySearch(p.LocationIDs, id)
		return found
	}
	return false
}

// principalFrom returns the principal of the request whose context is ctx,
// or nil when the route has no auth middleware.
func principalFrom(ctx context.Context) *Principal {
	if st, ok := ctx.Value(stateKey{}).(*reqState); ok {
		return st.principal
	}
	return nil
}

// lookupToken resolves an access token. status is tokenAuthenticated,
// tokenInvalid (unknown or revoked; err is store.ErrNotFound when unknown)
// or tokenExpired.
func (s *Server) lookupToken(ctx context.Context, token string) (store.AccessToken, string, error) {
	t, err := s.db.AccessToken(ctx, store.HashSecret(token))
	switch {
	case errors.Is(err, store.ErrNotFound):
		return t, tokenInvalid, err
	case err != nil:
		return t, tokenInvalid, err
	case t.Revoked:
		return t, tokenInvalid, nil
	case t.ExpiresAt != nil && *t.ExpiresAt <= s.clock.Now().Unix():
		return t, tokenExpired, nil
	}
	return t, tokenAuthenticated, nil
}

// requireUser admits requests with a valid user access token (query
// accessToken): 401001 without one, 401002 for an unknown, revoked or
// expired one, 403001 for a POS token.
func (s *Server) requireUser(next http.Handler) http.Handler {
	return s.requireToken(store.TokenKindUser, next)
}

// requirePOS admits requests with a valid POS access token: like
// requireUser, with a user token being the 403001. Whether the token's
// location matches the one in the path or body is the handler's check
// (principal.CanSeeLocation).
func (s *Server) requirePOS(next http.Handler) http.Handler {
	return s.requireToken(store.TokenKindPOS, next)
}

func (s *Server) requireToken(kind string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		st := stateOf(r)
		status := s.tokenStatus(r)
		if st.tokenErr != nil { // the database failed, not the caller
			s.writeError(w, r, st.tokenErr)
			return
		}
		switch status {
		case tokenMissing:
			s.writeError(w, r, apiErr(client.CodeAccessTokenMissing))
			return
		case tokenInvalid:
			s.writeError(w, r, apiErr(client.CodeAccessTokenInvalid))
			return
		case tokenExpired:
			s.writeError(w, r, apiErrMsg(client.CodeAccessTokenInvalid, "Access token expired."))
			return
		}
		t := st.token
		if t == nil { // status authenticated or expired always comes with the row
			s.writeError(w, r, errors.New("access token status without its row"))
			return
		}
		if t.Kind != kind {
			msg := "This endpoint needs a user access token."
			if kind == store.TokenKindPOS {
				msg = "This endpoint needs a POS access token."
			}
			s.writeError(w, r, apiErrMsg(client.CodeForbidden, msg))
			return
		}
		if kind == store.TokenKindPOS {
			st.principal = &Principal{Kind: KindPOS, LocationID: t.LocationID}
		} else {
			st.principal = &Principal{Kind: KindUser, UserID: t.UserID}
		}
		next.ServeHTTP(w, r)
	})
}

// requireAPIKey admits requests with a valid vendor API key (header
// X-Vendor-API-Key): 401003 without one, 401004 for an unknown one.
func (s *Server) requireAPIKey(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := r.Header.Get(headerAPIKey)
		if key == "" {
			s.writeError(w, r, apiErr(client.CodeAPIKeyMissing))
			return
		}
		var (
			keyID int64
			locs  []int64
		)
		err := s.db.Read(r.Context(), func(tx *store.Tx) error {
			var err error
			keyID, locs, err = tx.LookupAPIKey(store.HashSecret(key))
			return err
		})
		if errors.Is(err, store.ErrNotFound) {
			s.writeError(w, r, apiErr(client.CodeAPIKeyInvalid))
			return
		}
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		stateOf(r).principal = &Principal{Kind: KindAPIKey, KeyID: keyID, LocationIDs: locs}
		next.ServeHTTP(w, r)
	})
}

// requireAdmin admits requests carrying the sandbox admin key (header
// X-Sandbox-Admin-Key); anything else, absent included, is 401005.
func (s *Server) requireAdmin(next http.Handler) http.Handler {
	want := sha256.Sum256([]byte(s.cfg.AdminKey))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Comparing fixed-size hashes in constant time leaks neither the
		// key's content nor its length through timing.
		got := sha256.Sum256([]byte(r.Header.Get(headerAdminKey)))
		if subtle.ConstantTimeCompare(got[:], want[:]) != 1 {
			s.writeError(w, r, apiErr(client.CodeAdminKeyInvalid))
			return
		}
		stateOf(r).principal = &Principal{Kind: KindAdmin}
		next.ServeHTTP(w, r)
	})
}

// presentedCredential identifies the credentials a request carries, for
// per-credential rate limiting and idempotency records: the hex SHA-256 of
// all of them together (access token, API key, admin key, Authorization
// header), so the raw values are never kept. Requests without
// any share the empty credential "".
func presentedCredential(r *http.Request) string {
	token := r.URL.Query().Get(queryAccessToken)
	key := r.Header.Get(headerAPIKey)
	admin := r.Header.Get(headerAdminKey)
	// The universal POS contract's bearer token (the demo POS is served by
	// this server) counts as a credential too.
	bearer := r.Header.Get("Authorization")
	if token == "" && key == "" && admin == "" && bearer == "" {
		return ""
	}
	return store.HashSecret("t=" + token + "\x00k=" + key + "\x00a=" + admin + "\x00b=" + bearer)
}
