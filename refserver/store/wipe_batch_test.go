package store

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestWipeInABatchKeepsForeignKeysImmediate: a wipe shares its
// transaction with the writes batched after it. One of them breaking a
// foreign key (a token of a user the wipe removed) fails by itself; the
// wipe and the other writes commit. With the wipe's deferred checks left
// on, the violation failed the COMMIT of the whole batch.
func TestWipeInABatchKeepsForeignKeysImmediate(t *testing.T) {
	t.Parallel()
	db, err := Open(t.Context(), filepath.Join(t.TempDir(), "w.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var userID int64
	if err := db.Write(t.Context(), func(tx *Tx) (err error) {
		userID, err = tx.InsertUser()
		return err
	}); err != nil {
		t.Fatal(err)
	}
	before := db.Replaced()

	ctx := context.Background()
	wipe := &writeJob{ctx: ctx, fn: func(tx *Tx) error { return tx.WipeData() }}
	orphan := &writeJob{ctx: ctx, fn: func(tx *Tx) error {
		return tx.InsertUserToken(HashSecret("orphan"), userID, nil) // the wipe removed the user
	}}
	fresh := &writeJob{ctx: ctx, fn: func(tx *Tx) error {
		id, err := tx.InsertUser()
		if err != nil {
			return err
		}
		return tx.InsertUserToken(HashSecret("fresh"), id, nil)
	}}
	var committed bool
	// One batch, in this order, on the writer connection.
	if err := db.w.doAlone(ctx, func() error {
		committed = db.w.run([]*writeJob{wipe, orphan, fresh})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if !committed || wipe.err != nil || fresh.err != nil {
		t.Fatalf("batch committed %v; wipe: %v; fresh write: %v", committed, wipe.err, fresh.err)
	}
	if orphan.err == nil || !strings.Contains(orphan.err.Error(), "FOREIGN KEY") {
		t.Errorf("the orphan token: %v, want its own foreign key failure", orphan.err)
	}
	if db.Replaced() != before+1 {
		t.Errorf("Replaced %d, want %d after one wipe", db.Replaced(), before+1)
	}
	if _, err := db.AccessToken(t.Context(), HashSecret("fresh")); err != nil {
		t.Errorf("the write after the wipe: %v", err)
	}
	if _, err := db.AccessToken(t.Context(), HashSecret("orphan")); err == nil {
		t.Errorf("the orphan token was stored")
	}
}
