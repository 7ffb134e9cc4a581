package store

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"sort"
	"strconv"
	"testing"
	"time"
)

func openTest(t testing.TB, path string, now func() time.Time) *DB {
	t.Helper()
	db, err := Open(context.Background(), path, now)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func TestMigrationsAppliedOnceAndRecorded(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "m.db")
	db := openTest(t, path, nil)
	want, _ := fs.Glob(migrations, "migrations/*.sql")
	for i := range want {
		want[i] = filepath.Base(want[i])
	}
	sort.Strings(want)
	check := func(db *DB) {
		t.Helper()
		var got []string
		if err := db.Read(t.Context(), func(tx *Tx) error {
			var err error
			got, err = tx.AppliedMigrations()
			return err
		}); err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) || len(got) == 0 || got[0] != "0001_init.sql" {
			t.Fatalf("applied %q, want %q", got, want)
		}
	}
	check(db)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	// Reopening applies nothing twice (a second CREATE TABLE would fail).
	check(openTest(t, path, nil))
}

func TestPragmas(t *testing.T) {
	t.Parallel()
	db := openTest(t, filepath.Join(t.TempDir(), "p.db"), nil)
	var mode string
	var fk, busy int
	// The writer's connection is the one the writer holds: asked in a write.
	err := db.Write(t.Context(), func(tx *Tx) error {
		if err := tx.queryRow(`PRAGMA journal_mode`).Scan(&mode); err != nil || mode != "wal" {
			t.Errorf("journal_mode = %q, %v; want wal", mode, err)
		}
		if err := tx.queryRow(`PRAGMA foreign_keys`).Scan(&fk); err != nil || fk != 1 {
			t.Errorf("writer foreign_keys = %d, %v", fk, err)
		}
		if err := tx.queryRow(`PRAGMA busy_timeout`).Scan(&busy); err != nil || busy < 1000 {
			t.Errorf("writer busy_timeout = %d, %v", busy, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.read.QueryRow(`PRAGMA foreign_keys`).Scan(&fk); err != nil || fk != 1 {
		t.Errorf("reader foreign_keys = %d, %v", fk, err)
	}
	// Readers refuse writes.
	err = db.Read(t.Context(), func(tx *Tx) error {
		_, err := tx.exec(`INSERT INTO sandbox_state (name, value) VALUES ('x', 'y')`)
		return err
	})
	if err == nil {
		t.Error("a read transaction could write")
	}
	// Foreign keys are enforced.
	err = db.Write(t.Context(), func(tx *Tx) error { return tx.InsertUserToken("h", 999, nil) })
	if err == nil {
		t.Error("token for a missing user was accepted")
	}
}

func TestTxNowIsStampedOnce(t *testing.T) {
	t.Parallel()
	calls := 0
	base := time.Date(2030, 5, 6, 7, 8, 9, 0, time.UTC)
	now := func() time.Time { calls++; return base.Add(time.Duration(calls) * time.Hour) }
	db := openTest(t, MemoryPath, now)
	err := db.Write(t.Context(), func(tx *Tx) error {
		first := tx.Now()
		if _, err := tx.InsertUser(); err != nil {
			return err
		}
		if !tx.Now().Equal(first) || tx.Unix() != first.Unix() {
			t.Errorf("Now moved inside a transaction")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestWriteRollsBackAndRunsAfterCommit(t *testing.T) {
	t.Parallel()
	db := openTest(t, MemoryPath, nil)
	boom := errors.New("boom")
	ran := false
	err := db.Write(t.Context(), func(tx *Tx) error {
		tx.AfterCommit(func() { ran = true })
		if _, err := tx.InsertUser(); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) || ran {
		t.Fatalf("Write = %v (after-commit ran: %v), want boom and no after-commit", err, ran)
	}
	err = db.Write(t.Context(), func(tx *Tx) error {
		tx.AfterCommit(func() { ran = true })
		n, err := tx.CountRows("users")
		if n != 0 {
			t.Errorf("rolled-back user exists")
		}
		return err
	})
	if err != nil || !ran {
		t.Fatalf("Write = %v, after-commit ran %v", err, ran)
	}
}

func TestCredentials(t *testing.T) {
	t.Parallel()
	db := openTest(t, filepath.Join(t.TempDir(), "c.db"), nil)
	err := db.Write(t.Context(), func(tx *Tx) error {
		uid, err := tx.InsertUser()
		if err != nil {
			return err
		}
		lid, err := tx.InsertLocation("L", "providerB")
		if err != nil {
			return err
		}
		lid2, err := tx.InsertLocation("M", "providerD")
		if err != nil {
			return err
		}
		if err := tx.InsertUserToken(HashSecret("u"), uid, nil); err != nil {
			return err
		}
		if err := tx.InsertPOSToken(HashSecret("p"), lid); err != nil {
			return err
		}
		if _, err := tx.InsertAPIKey(HashSecret("k"), []int64{lid2, lid, lid}); err != nil {
			return err
		}
		if _, err := tx.InsertLocation("bad", "providerZ"); err == nil {
			t.Error("unknown gateway accepted")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	err = db.Read(t.Context(), func(tx *Tx) error {
		u, err := tx.LookupAccessToken(HashSecret("u"))
		if err != nil || u.Kind != TokenKindUser || u.UserID != 1 {
			t.Errorf("user token = %+v, %v", u, err)
		}
		p, err := tx.LookupAccessToken(HashSecret("p"))
		if err != nil || p.Kind != TokenKindPOS || p.LocationID != 1 {
			t.Errorf("pos token = %+v, %v", p, err)
		}
		if _, err := tx.LookupAccessToken(HashSecret("nope")); !errors.Is(err, ErrNotFound) {
			t.Errorf("unknown token: %v", err)
		}
		id, locs, err := tx.LookupAPIKey(HashSecret("k"))
		if err != nil || id != 1 || len(locs) != 2 || locs[0] != 1 || locs[1] != 2 {
			t.Errorf("api key = %d %v %v", id, locs, err)
		}
		missing, err := tx.MissingLocations([]int64{2, 5, 1, 6})
		if err != nil || len(missing) != 2 || missing[0] != 5 || missing[1] != 6 {
			t.Errorf("MissingLocations = %v, %v", missing, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestIdempotencyRetention(t *testing.T) {
	t.Parallel()
	now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	db := openTest(t, MemoryPath, func() time.Time { return now })
	rec := IdempotencyRecord{Credential: "c", Key: "k", RequestHash: "h", Status: 201, Body: []byte("b")}
	if err := db.Write(t.Context(), func(tx *Tx) error { return tx.PutIdempotency(rec) }); err != nil {
		t.Fatal(err)
	}
	get := func() error {
		return db.Read(t.Context(), func(tx *Tx) error {
			got, err := tx.GetIdempotency("c", "k")
			if err == nil && (got.Status != 201 || string(got.Body) != "b" || got.RequestHash != "h") {
				t.Errorf("got %+v", got)
			}
			return err
		})
	}
	if err := get(); err != nil {
		t.Fatalf("fresh record: %v", err)
	}
	now = now.Add(IdempotencyRetention)
	if err := get(); !errors.Is(err, ErrNotFound) {
		t.Fatalf("expired record: %v, want ErrNotFound", err)
	}
	st, err := db.Sweep(t.Context())
	if err != nil || st.Deleted["idempotency records"] != 1 {
		t.Fatalf("swept %v, %v", st.Deleted, err)
	}
}

// TestWipeDataTwice wipes rows that reference each other twice in a row:
// the second wipe must defer its foreign key checks like the first, although
// by then every statement it runs has been compiled.
func TestWipeDataTwice(t *testing.T) {
	t.Parallel()
	db := openTest(t, filepath.Join(t.TempDir(), "w2.db"), nil)
	for i := range 3 {
		err := db.Write(t.Context(), func(tx *Tx) error {
			uid, err := tx.InsertUser()
			if err != nil {
				return err
			}
			return tx.InsertUserToken(HashSecret("u"+strconv.Itoa(i)), uid, nil)
		})
		if err != nil {
			t.Fatal(err)
		}
		if err := db.Write(t.Context(), func(tx *Tx) error { return tx.WipeData() }); err != nil {
			t.Fatalf("wipe %d: %v", i+1, err)
		}
		// Let the writer compile what the wipe ran, as it does between
		// transactions.
		if err := db.Write(t.Context(), func(*Tx) error { return nil }); err != nil {
			t.Fatal(err)
		}
	}
}

func TestWipeData(t *testing.T) {
	t.Parallel()
	db := openTest(t, filepath.Join(t.TempDir(), "w.db"), nil)
	err := db.Write(t.Context(), func(tx *Tx) error {
		uid, _ := tx.InsertUser()
		lid, _ := tx.InsertLocation("L", "providerA")
		_ = tx.InsertUserToken(HashSecret("u"), uid, nil)
		_, _ = tx.InsertAPIKey(HashSecret("k"), []int64{lid})
		return tx.SetState("keep", "me")
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Write(t.Context(), func(tx *Tx) error { return tx.WipeData() }); err != nil {
		t.Fatalf("WipeData: %v", err)
	}
	err = db.Write(t.Context(), func(tx *Tx) error {
		for _, table := range []string{"users", "locations", "access_tokens", "api_keys", "api_key_locations"} {
			if n, err := tx.CountRows(table); err != nil || n != 0 {
				t.Errorf("%s: %d rows, %v", table, n, err)
			}
		}
		if v, err := tx.State("keep"); err != nil || v != "me" {
			t.Errorf("sandbox_state lost: %q %v", v, err)
		}
		// Ids start again at 1.
		if id, err := tx.InsertUser(); err != nil || id != 1 {
			t.Errorf("first user after wipe: %d %v", id, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
