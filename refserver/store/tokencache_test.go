package store

import (
	"errors"
	"path/filepath"
	"testing"
)

func TestAccessTokenCacheForgetsDeletedTokens(t *testing.T) {
	t.Parallel()
	db := openTest(t, filepath.Join(t.TempDir(), "t.db"), nil)
	ctx := t.Context()
	var uid, lid int64
	err := db.Write(ctx, func(tx *Tx) (err error) {
		if uid, err = tx.InsertUser(); err != nil {
			return err
		}
		if lid, err = tx.InsertLocation("L", "providerB"); err != nil {
			return err
		}
		if err := tx.InsertUserToken(HashSecret("u"), uid, nil); err != nil {
			return err
		}
		return tx.InsertPOSToken(HashSecret("p"), lid)
	})
	if err != nil {
		t.Fatal(err)
	}
	lookup := func(token string) (AccessToken, error) { return db.AccessToken(ctx, SumSecret(token)) }
	mustFind := func(token string) {
		t.Helper()
		if _, err := lookup(token); err != nil {
			t.Fatalf("token %q: %v", token, err)
		}
	}
	mustBeGone := func(token string) {
		t.Helper()
		if _, err := lookup(token); !errors.Is(err, ErrNotFound) {
			t.Fatalf("token %q: err = %v, want ErrNotFound", token, err)
		}
	}

	// An unknown token is not remembered as unknown.
	mustBeGone("late")
	if err := db.Write(ctx, func(tx *Tx) error { return tx.InsertPOSToken(HashSecret("late"), lid) }); err != nil {
		t.Fatal(err)
	}
	mustFind("late")

	// Twice each: the second lookup is served by the cache.
	for range 2 {
		if u, err := lookup("u"); err != nil || u.Kind != TokenKindUser || u.UserID != uid {
			t.Fatalf("user token = %+v, %v", u, err)
		}
		if p, err := lookup("p"); err != nil || p.Kind != TokenKindPOS || p.LocationID != lid {
			t.Fatalf("pos token = %+v, %v", p, err)
		}
	}

	db.tokens.mu.RLock()
	_, remembered := db.tokens.m[SumSecret("p")]
	db.tokens.mu.RUnlock()
	if !remembered {
		t.Fatal("a looked-up token is not in the cache")
	}

	// A rolled-back deletion changes nothing.
	errBoom := errors.New("boom")
	err = db.Write(ctx, func(tx *Tx) error {
		if err := tx.DeleteTokensOf(TokenKindUser, []int64{uid}); err != nil {
			return err
		}
		return errBoom
	})
	if !errors.Is(err, errBoom) {
		t.Fatal(err)
	}
	mustFind("u")

	if err := db.Write(ctx, func(tx *Tx) error { return tx.DeleteTokensOf(TokenKindUser, []int64{uid}) }); err != nil {
		t.Fatal(err)
	}
	mustBeGone("u")
	mustFind("p")

	if err := db.Write(ctx, func(tx *Tx) error { return tx.WipeData() }); err != nil {
		t.Fatal(err)
	}
	mustBeGone("p")
	mustBeGone("late")
}

// A lookup that read the database before a deletion committed must not put
// the deleted token back into the cache.
func TestAccessTokenCacheIgnoresLookupsOlderThanADeletion(t *testing.T) {
	t.Parallel()
	db := openTest(t, filepath.Join(t.TempDir(), "r.db"), nil)
	ctx := t.Context()
	var lid int64
	err := db.Write(ctx, func(tx *Tx) (err error) {
		if lid, err = tx.InsertLocation("L", "providerB"); err != nil {
			return err
		}
		return tx.InsertPOSToken(HashSecret("p"), lid)
	})
	if err != nil {
		t.Fatal(err)
	}
	db.tokens.afterRead = func() {
		db.tokens.afterRead = nil
		if err := db.Write(ctx, func(tx *Tx) error { return tx.DeleteTokensOf(TokenKindPOS, []int64{lid}) }); err != nil {
			t.Error(err)
		}
	}
	// This lookup read the row before the deletion, so it still sees the
	// token (it started first); the next one must not.
	if _, err := db.AccessToken(ctx, SumSecret("p")); err != nil {
		t.Fatal(err)
	}
	if _, err := db.AccessToken(ctx, SumSecret("p")); !errors.Is(err, ErrNotFound) {
		t.Fatalf("deleted token still found: err = %v", err)
	}
}
