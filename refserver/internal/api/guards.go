package api

import (
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"net/http"
	"slices"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/refserver/store"
)

// Guards are the credential guards: middleware, one per kind of
// credential, that admits or refuses a request and makes its request
// record. Every route sits behind exactly one guard (Public for routes
// that need no credential), given to its route group.
//
// A guard checks the credential before it reads a byte of the body: a
// request it refuses never makes the server read or buffer up to
// MaxBodyBytes. Only an admitted request has its body read, into the
// request record, before the middleware given to With and the handler.
type Guards struct {
	rd       *Responder
	tokens   *Tokens
	db       *store.DB
	adminKey [sha256.Size]byte
	// then is the middleware an admitted request passes through, its body
	// read, before the route's handler (With).
	then []func(http.Handler) http.Handler
	// limit is the rate limit per caller (Limit); nil: none.
	limit *RateLimiter
	// adminKeys limits wrong admin keys per client address
	// (LimitAdminKeys); nil: none.
	adminKeys *KeyAttempts
	// self tells the server's own calls, which neither limit nor then
	// holds up (ExemptSelf); nil: none.
	self *SelfCalls
}

// NewGuards returns the guards of a server whose sandbox admin key is
// adminKey.
func NewGuards(rd *Responder, tokens *Tokens, db *store.DB, adminKey string) *Guards {
	return &Guards{rd: rd, tokens: tokens, db: db, adminKey: sha256.Sum256([]byte(adminKey))}
}

// With returns guards like g that pass every request they admit, once its
// body is read, through mw (the first is outermost) before the route's
// handler: the middleware that is only for admitted callers (the in-flight
// bound) or that needs the body (the OpenAPI request check). nil entries
// are skipped.
func (g *Guards) With(mw ...func(http.Handler) http.Handler) *Guards {
	c := *g
	c.then = slices.Clip(c.then)
	for _, m := range mw {
		if m != nil {
			c.then = append(c.then, m)
		}
	}
	return &c
}

// Limit returns guards like g that limit every caller to rl's rate
// (429001 with Retry-After beyond it): a caller the guard verified in its
// own bucket, whatever else the request presents, and a request whose
// credential is missing, unknown or wrong in the bucket of its client
// address. The admin guard is never limited. A nil rl limits nothing.
func (g *Guards) Limit(rl *RateLimiter) *Guards {
	c := *g
	c.limit = rl
	return &c
}

// ExemptSelf returns guards like g that let the server's own calls to
// itself (s) through without the rate limit and the middleware of With:
// the sandbox calling its demo POS must neither use up a client's share
// of the limits (it calls from the client's own loopback address) nor be
// refused by them, as with faults (SelfCalls).
func (g *Guards) ExemptSelf(s *SelfCalls) *Guards {
	c := *g
	c.self = s
	return &c
}

// LimitAdminKeys returns guards like g whose admin guard counts every
// wrong admin key against its client address in a and refuses, with
// 429001, the admin requests of an address that has none left.
func (g *Guards) LimitAdminKeys(a *KeyAttempts) *Guards {
	c := *g
	c.adminKeys = a
	return &c
}

// Unrouted wraps the handler of requests that match no route: they are
// limited like the rest (by address, or by the owner of a valid access
// token), and their body is never read.
func (g *Guards) Unrouted(h http.Handler) http.Handler {
	return g.guard(h, guardUnrouted, func(*http.Request, *Request, error) (Principal, error) { return Principal{}, nil })
}

// Public admits every request: the guard of routes that need no
// credential. The access token, if any, is still looked up for
// requestInfo.
func (g *Guards) Public(next http.Handler) http.Handler {
	return g.guard(next, guardAPI, func(*http.Request, *Request, error) (Principal, error) { return Principal{}, nil })
}

// User admits requests with a valid user access token (query
// accessToken): 401001 without one, 401002 for an unknown, revoked or
// expired one, 403001 for a POS token.
func (g *Guards) User(next http.Handler) http.Handler {
	return g.guard(next, guardAPI, func(_ *http.Request, q *Request, lookupErr error) (Principal, error) {
		t, err := admitToken(q, lookupErr, store.TokenKindUser)
		if err != nil {
			return Principal{}, err
		}
		return Principal{Kind: KindUser, UserID: t.UserID}, nil
	})
}

// POS admits requests with a valid POS access token: like User, with a
// user token being the 403001. Whether the token's location matches the
// one in the path or body is the handler's check
// (Principal.CanSeeLocation).
func (g *Guards) POS(next http.Handler) http.Handler {
	return g.guard(next, guardAPI, func(_ *http.Request, q *Request, lookupErr error) (Principal, error) {
		t, err := admitToken(q, lookupErr, store.TokenKindPOS)
		if err != nil {
			return Principal{}, err
		}
		return Principal{Kind: KindPOS, LocationID: t.LocationID}, nil
	})
}

// admitToken checks the access token the record holds against the kind
// the route needs.
func admitToken(q *Request, lookupErr error, kind string) (*store.AccessToken, error) {
	if lookupErr != nil { // the database failed, not the caller
		return nil, lookupErr
	}
	switch q.tokenStatus {
	case TokenMissing:
		return nil, Err(client.CodeAccessTokenMissing)
	case TokenInvalid:
		return nil, Err(client.CodeAccessTokenInvalid)
	case TokenExpired:
		return nil, ErrMsg(client.CodeAccessTokenInvalid, "Access token expired.")
	}
	t := q.token
	if t == nil { // status authenticated or expired always comes with the row
		return nil, errors.New("access token status without its row")
	}
	if t.Kind != kind {
		msg := "This endpoint needs a user access token."
		if kind == store.TokenKindPOS {
			msg = "This endpoint needs a POS access token."
		}
		return nil, ErrMsg(client.CodeForbidden, msg)
	}
	return t, nil
}

// APIKey admits requests with a valid vendor API key (header
// X-Vendor-API-Key): 401003 without one, 401004 for an unknown one.
func (g *Guards) APIKey(next http.Handler) http.Handler {
	return g.guard(next, guardAPI, func(r *http.Request, _ *Request, _ error) (Principal, error) {
		key := r.Header.Get(HeaderAPIKey)
		if key == "" {
			return Principal{}, Err(client.CodeAPIKeyMissing)
		}
		var (
			keyID int64
			locs  []int64
		)
		err := g.db.Read(r.Context(), func(tx *store.Tx) error {
			var err error
			keyID, locs, err = tx.LookupAPIKey(store.HashSecret(key))
			return err
		})
		if errors.Is(err, store.ErrNotFound) {
			return Principal{}, Err(client.CodeAPIKeyInvalid)
		}
		if err != nil {
			return Principal{}, err
		}
		return Principal{Kind: KindAPIKey, KeyID: keyID, LocationIDs: locs}, nil
	})
}

// Admin admits requests carrying the sandbox admin key (header
// X-Sandbox-Admin-Key); anything else, absent included, is 401005. A wrong
// key is logged (its client, never the key) and counted against its client
// address (LimitAdminKeys).
func (g *Guards) Admin(next http.Handler) http.Handler {
	return g.guard(next, guardAdmin, func(r *http.Request, q *Request, _ error) (Principal, error) {
		if g.adminKeys != nil {
			if d := g.adminKeys.Wait(r); d > 0 {
				return Principal{}, TooManyRequests(d)
			}
		}
		// Comparing fixed-size hashes in constant time leaks neither the
		// key's content nor its length through timing.
		presented := r.Header.Get(HeaderAdminKey)
		got := sha256.Sum256([]byte(presented))
		if subtle.ConstantTimeCompare(got[:], g.adminKey[:]) != 1 {
			if presented != "" {
				g.rd.log.Warn("sandbox admin key refused", "client", clientAddr(r), "request_id", q.id)
				if g.adminKeys != nil {
					g.adminKeys.Failed(r)
				}
			}
			return Principal{}, Err(client.CodeAdminKeyInvalid)
		}
		return Principal{Kind: KindAdmin}, nil
	})
}

// guardMode says what a guard does besides checking the credential.
type guardMode int

const (
	// guardAPI limits each caller (Guards.Limit), reads the body of an
	// admitted request and passes it through the With middleware.
	guardAPI guardMode = iota
	// guardAdmin reads the body and passes on, without the callers'
	// limit and the With middleware: the sandbox stays controllable
	// under the load it is testing.
	guardAdmin
	// guardUnrouted limits each caller and reads nothing: the request
	// matched no route and is answered at once.
	guardUnrouted
)

// guard makes the request record: it looks the access token up, asks
// admit who the caller is, takes the caller's token of the rate limit,
// and only then reads the body, of an admitted request. The record goes
// into the request's context for the handler and, admitted or not, to the
// Trace for the middleware further out.
func (g *Guards) guard(next http.Handler, mode guardMode, admit func(r *http.Request, q *Request, lookupErr error) (Principal, error)) http.Handler {
	own := next // the server's own calls skip then
	if mode == guardAPI {
		for i := len(g.then) - 1; i >= 0; i-- {
			next = g.then[i](next)
		}
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		self := g.self != nil && g.self.Is(r)
		t := TraceOf(w)
		var q *Request
		if t != nil && t.req == nil {
			q = &t.record // the first guard of a traced request
		} else {
			q = new(Request)
		}
		q.version = routeVersion(r)
		if g.db != nil {
			q.replaced = g.db.ReplaceMark() // before the credential is looked up
		}
		if t != nil {
			q.id = t.id
		}
		var lookupErr error
		var found bool
		q.tokenStatus, q.tokenRow, found, lookupErr = g.tokens.resolve(r)
		if found {
			q.token = &q.tokenRow
		}
		if lookupErr != nil {
			q.tokenStatus = "" // not kept: a later look may succeed
		}
		p, err := admit(r, q, lookupErr)
		if err == nil {
			q.principal = p
		}
		if g.limit != nil && mode != guardAdmin && !self {
			// Refused requests count too, by their address, so that
			// guessing credentials is limited like using them.
			if ok, wait := g.limit.Allow(callerKey(r, q)); !ok {
				err = TooManyRequests(wait)
			}
		}
		if err == nil && mode != guardUnrouted {
			q.body, err = readBody(w, r, &q.bodyReader)
		} else {
			q.body = bufferedBytes(r)
		}
		if t != nil {
			t.req = q
		}
		// The trace's context hands the record on; only a request whose
		// context does not come through it needs one of its own.
		if RequestFrom(r.Context()) != q {
			r = r.WithContext(newContext(r.Context(), q))
		}
		if err != nil {
			g.rd.Error(w, r, err)
			return
		}
		if self {
			own.ServeHTTP(w, r)
			return
		}
		next.ServeHTTP(w, r)
	})
}
