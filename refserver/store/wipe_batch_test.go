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
	db := openTest(t, filepath.Join(t.TempDir(), "w.db"), nil)
	var userID int64
	if err := db.Write(t.Context(), func(tx *Tx) (err error) {
		userID, err = tx.InsertUser()
		return err
	}); err != nil {
		t.Fatal(err)
	}
	before := db.ReplaceMark()

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
	if !db.ReplacedSince(before) {
		t.Error("ReplacedSince a mark taken before the wipe is false")
	}
	if after := db.ReplaceMark(); db.ReplacedSince(after) {
		t.Error("ReplacedSince a mark taken after the wipe ended is true")
	}
	if _, err := db.AccessToken(t.Context(), SumSecret("fresh")); err != nil {
		t.Errorf("the write after the wipe: %v", err)
	}
	if _, err := db.AccessToken(t.Context(), SumSecret("orphan")); err == nil {
		t.Errorf("the orphan token was stored")
	}
}

// TestWipeEndsInTheWriter: a wipe is under way from inside its
// transaction until the writer has emptied the token cache, before it
// runs the next batch. A mark taken meanwhile (a request's credential
// checked while the wipe runs, perhaps from the cache) is replaced-since
// for good, also once the wipe has ended; a token the wipe deleted is not
// found from the cache once the batch is done.
func TestWipeEndsInTheWriter(t *testing.T) {
	t.Parallel()
	db := openTest(t, filepath.Join(t.TempDir(), "w.db"), nil)
	addUser(t, db, "gone")
	if !tokenWorks(t, db, "gone") { // now in the cache
		t.Fatal("the token does not work before the wipe")
	}
	ctx := context.Background()
	var during ReplaceMark
	wipe := &writeJob{ctx: ctx, fn: func(tx *Tx) error { return tx.WipeData() }}
	guard := &writeJob{ctx: ctx, fn: func(*Tx) error { during = db.ReplaceMark(); return nil }}
	if err := db.w.doAlone(ctx, func() error {
		if !db.w.run([]*writeJob{wipe, guard}) {
			t.Error("the batch did not commit")
		}
		// Before the writer's next batch.
		if tokenWorks(t, db, "gone") {
			t.Error("the token the wipe deleted is still found once its batch is done")
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if !db.ReplacedSince(during) {
		t.Error("a mark taken while the wipe was under way is not replaced-since once it has ended")
	}
}

// TestRestoreIsUnderWayUntilItEnds: a mark taken while a restore runs
// (here in its then, after the copy is in place) is replaced-since once
// the restore has ended, as is one taken before it; one taken after it
// is not.
func TestRestoreIsUnderWayUntilItEnds(t *testing.T) {
	t.Parallel()
	db := openTest(t, filepath.Join(t.TempDir(), "r.db"), nil)
	path := filepath.Join(t.TempDir(), "copy.sqlite")
	if _, err := db.CopyToFile(t.Context(), path); err != nil {
		t.Fatal(err)
	}
	before := db.ReplaceMark()
	var during ReplaceMark
	if err := db.RestoreFile(t.Context(), path, func(*Tx) error { during = db.ReplaceMark(); return nil }); err != nil {
		t.Fatal(err)
	}
	if !db.ReplacedSince(before) || !db.ReplacedSince(during) {
		t.Errorf("replaced since a mark before the restore: %v, during it: %v; want both", db.ReplacedSince(before), db.ReplacedSince(during))
	}
	if db.ReplacedSince(db.ReplaceMark()) {
		t.Error("replaced since a mark taken after the restore ended")
	}
}

// TestForeignKeysAfterWipeAndRestore: the writer still enforces foreign
// keys after a wipe (which defers them within its transaction) and after
// a restore (which copies over the whole file): a token of a user that
// does not exist is refused, as a foreign key violation.
func TestForeignKeysAfterWipeAndRestore(t *testing.T) {
	t.Parallel()
	db := openTest(t, filepath.Join(t.TempDir(), "fk.db"), nil)
	path := filepath.Join(t.TempDir(), "copy.sqlite")
	if _, err := db.CopyToFile(t.Context(), path); err != nil {
		t.Fatal(err)
	}
	orphan := func(what string) {
		t.Helper()
		err := db.Write(t.Context(), func(tx *Tx) error { return tx.InsertUserToken(HashSecret(what), 999, nil) })
		if !IsForeignKeyViolation(err) {
			t.Errorf("a token of a missing user after a %s: %v, want a foreign key violation", what, err)
		}
	}
	if err := db.Write(t.Context(), func(tx *Tx) error { return tx.WipeData() }); err != nil {
		t.Fatal(err)
	}
	orphan("wipe")
	if err := db.RestoreFile(t.Context(), path, nil); err != nil {
		t.Fatal(err)
	}
	orphan("restore")
}
