package api

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hospo-dev/hospo-go/refserver/store"
)

// Credential headers and the query parameter of access tokens.
const (
	HeaderAPIKey     = "X-Vendor-API-Key"
	HeaderAdminKey   = "X-Sandbox-Admin-Key"
	QueryAccessToken = "accessToken"
)

// Values of requestInfo.accessTokenStatus.
const (
	TokenAuthenticated = "authenticated"
	TokenMissing       = "missing"
	TokenInvalid       = "invalid"
	TokenExpired       = "expired"
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

// Principal is the authenticated caller of a request, as its route's guard
// admitted it. The zero Principal is no one: the caller of a public route.
type Principal struct {
	Kind        PrincipalKind
	UserID      int64   // KindUser
	LocationID  int64   // KindPOS: the location the token is bound to
	KeyID       int64   // KindAPIKey
	LocationIDs []int64 // KindAPIKey: the key's locations, ascending
}

// key names the principal for per-caller limits and idempotency records;
// "" for no one.
func (p Principal) key() string {
	switch p.Kind {
	case KindUser:
		return "user:" + strconv.FormatInt(p.UserID, 10)
	case KindPOS:
		return "pos:" + strconv.FormatInt(p.LocationID, 10)
	case KindAPIKey:
		return "apikey:" + strconv.FormatInt(p.KeyID, 10)
	case KindAdmin:
		return "admin"
	}
	return ""
}

// tokenOwner is the principal a valid access token stands for.
func tokenOwner(t *store.AccessToken) Principal {
	if t.Kind == store.TokenKindPOS {
		return Principal{Kind: KindPOS, LocationID: t.LocationID}
	}
	return Principal{Kind: KindUser, UserID: t.UserID}
}

// CanSeeLocation reports whether the principal may act on location id: an
// API key scoped to it, a POS token bound to it, or the admin.
func (p Principal) CanSeeLocation(id int64) bool {
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

// Tokens looks access tokens up.
type Tokens struct {
	db  *store.DB
	now func() time.Time
}

// NewTokens returns a Tokens reading db, judging expiry by now (the
// virtual clock).
func NewTokens(db *store.DB, now func() time.Time) *Tokens {
	return &Tokens{db: db, now: now}
}

// Lookup resolves an access token. status is TokenAuthenticated,
// TokenInvalid (unknown or revoked; err is store.ErrNotFound when unknown)
// or TokenExpired.
func (ts *Tokens) Lookup(ctx context.Context, token string) (store.AccessToken, string, error) {
	return ts.lookup(ctx, store.SumSecret(token), false)
}

// lookup is Lookup of the token whose SHA-256 is sum. With detach, a
// database read is made without ctx's cancellation; a token the cache
// holds (nearly every request's) needs neither the read nor the detached
// context.
func (ts *Tokens) lookup(ctx context.Context, sum store.SecretSum, detach bool) (store.AccessToken, string, error) {
	t, ok := ts.db.CachedAccessToken(sum)
	if !ok {
		if detach {
			ctx = context.WithoutCancel(ctx)
		}
		var err error
		if t, err = ts.db.AccessToken(ctx, sum); err != nil {
			return t, TokenInvalid, err
		}
	}
	switch {
	case t.Revoked:
		return t, TokenInvalid, nil
	case t.ExpiresAt != nil && *t.ExpiresAt <= ts.now().Unix():
		return t, TokenExpired, nil
	}
	return t, TokenAuthenticated, nil
}

// resolve returns the accessTokenStatus of r and, when it resolved, the
// token's row (found). err is set when the database failed, not the
// caller; the status is then TokenInvalid. The lookup is made without
// cancellation: the status is wanted even when the request's context has
// ended (e.g. while rendering that error).
func (ts *Tokens) resolve(r *http.Request) (status string, row store.AccessToken, found bool, err error) {
	token := queryAccessToken(r)
	if token == "" {
		return TokenMissing, row, false, nil
	}
	row, status, err = ts.lookup(r.Context(), store.SumSecret(token), true)
	if errors.Is(err, store.ErrNotFound) {
		return status, row, false, nil
	}
	if err != nil {
		return TokenInvalid, row, false, err
	}
	return status, row, true, nil
}

// queryAccessToken returns r.URL.Query().Get(QueryAccessToken). A query
// with nothing to unescape (no '%' or '+'), no ';' and not many parameters
// (every API request's) is read where it lies, without the map of every
// parameter that Query makes; any other goes through Query itself.
func queryAccessToken(r *http.Request) string {
	q := r.URL.RawQuery
	if strings.ContainsAny(q, "%+;") || strings.Count(q, "&") >= maxPlainParams {
		return r.URL.Query().Get(QueryAccessToken)
	}
	for q != "" {
		var pair string
		pair, q, _ = strings.Cut(q, "&")
		if key, value, _ := strings.Cut(pair, "="); key == QueryAccessToken {
			return value
		}
	}
	return ""
}

// maxPlainParams bounds the parameters queryAccessToken reads itself, far
// below the limit on parameters that Query applies.
const maxPlainParams = 64

// Status returns the accessTokenStatus of r. The guards look the token up
// once and keep the status in the request record; Status is for what
// answers a request before (or without) a guard: errors of the middleware
// in front of it, the OpenAPI validator's error bodies.
func (ts *Tokens) Status(r *http.Request) string {
	status, _, _, _ := ts.resolve(r)
	return status
}
