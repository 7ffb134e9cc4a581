package store

import (
	"context"
	"sync"
)

// tokenCacheSize bounds the remembered access tokens; past it the cache
// starts again from empty, which costs one database read per token.
const tokenCacheSize = 50_000

// tokenCache remembers access tokens by the SHA-256 of the token (the
// bytes of its stored hash, which a lookup need not spell in hex). Every API request looks its
// token up, and a token row only ever changes by being deleted, so the
// lookups of a busy POS need not each cost a read transaction. Unknown
// hashes are not remembered: a token inserted later is found at once.
//
// Deletions (DeleteTokensOf, WipeData) clear the cache after their commit
// and bump gen; a lookup that read the database before such a commit stores
// its row only if gen has not moved since it started, so a deleted token is
// never remembered again. Between a deletion's commit and the clearing, a
// concurrent request may still be admitted with the deleted token, as if it
// had arrived a moment earlier. A new statement that updates or deletes
// access_tokens rows must register tokens.forget with tx.AfterCommit too.
type tokenCache struct {
	mu  sync.RWMutex
	gen uint64
	m   map[SecretSum]AccessToken

	afterRead func() // tests: runs between the database read and the store
}

// CachedAccessToken returns the token whose SHA-256 is sum when the cache
// holds it, without a database read: what a request's lookup nearly always
// finds.
func (db *DB) CachedAccessToken(sum SecretSum) (AccessToken, bool) {
	c := &db.tokens
	c.mu.RLock()
	t, ok := c.m[sum]
	c.mu.RUnlock()
	return t, ok
}

// AccessToken returns the token whose SHA-256 is sum, from the cache or the
// database, or ErrNotFound. Revocation and expiry are the caller's checks
// (AccessToken.Revoked, AccessToken.ExpiresAt).
func (db *DB) AccessToken(ctx context.Context, sum SecretSum) (AccessToken, error) {
	c := &db.tokens
	c.mu.RLock()
	t, ok := c.m[sum]
	gen := c.gen
	c.mu.RUnlock()
	if ok {
		return t, nil
	}
	err := db.Read(ctx, func(tx *Tx) error {
		var err error
		t, err = tx.LookupAccessToken(sum.Hex())
		return err
	})
	if err != nil {
		return AccessToken{}, err
	}
	if c.afterRead != nil {
		c.afterRead()
	}
	c.mu.Lock()
	if c.gen == gen {
		if c.m == nil || len(c.m) >= tokenCacheSize {
			c.m = make(map[SecretSum]AccessToken)
		}
		c.m[sum] = t
	}
	c.mu.Unlock()
	return t, nil
}

// forget empties the cache; see tokenCache.
func (c *tokenCache) forget() {
	c.mu.Lock()
	c.gen++
	clear(c.m)
	c.mu.Unlock()
}
