package store

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// fileBytes returns the database file at path and its WAL, as far as they
// exist.
func fileBytes(t *testing.T, path string) []byte {
	t.Helper()
	var all []byte
	for _, p := range []string{path, path + "-wal"} {
		b, err := os.ReadFile(p)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			t.Fatal(err)
		}
		all = append(all, b...)
	}
	return all
}

func mustWrite(t *testing.T, db *DB, fn func(tx *Tx) error) {
	t.Helper()
	if err := db.Write(t.Context(), fn); err != nil {
		t.Fatal(err)
	}
}

func mustRead(t *testing.T, db *DB, fn func(tx *Tx) error) {
	t.Helper()
	if err := db.Read(t.Context(), fn); err != nil {
		t.Fatal(err)
	}
}

func TestPOSTokensAreSealedAndBoundToTheLocation(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "db.sqlite")
	db := openTest(t, path, nil)
	tokens := NewPOSTokens("admin-key")
	const tokenA, tokenB = "pos-secret-a-4f1c9e", "pos-secret-b-8d2a7b"
	url := "http://pos.test"
	var a, b, c int64
	mustWrite(t, db, func(tx *Tx) (err error) {
		for _, id := range []*int64{&a, &b, &c} {
			if *id, err = tx.InsertLocation("L", "providerB"); err != nil {
				return err
			}
		}
		token := tokenA
		if err := tx.SetLocationPOS(tokens, a, &url, &token); err != nil {
			return err
		}
		token = tokenB
		if err := tx.SetLocationPOS(tokens, b, &url, &token); err != nil {
			return err
		}
		return tx.SetLocationPOS(tokens, c, &url, nil) // a POS without a token
	})
	locs := map[int64]POSLocation{}
	mustRead(t, db, func(tx *Tx) error {
		all, err := tx.POSLocations()
		for _, l := range all {
			locs[l.LocationID] = l
		}
		return err
	})
	if got, err := tokens.Open(a, locs[a].POSTokenSealed); err != nil || got != tokenA {
		t.Errorf("location a's token opens to %q, %v", got, err)
	}
	if got, err := tokens.Open(c, locs[c].POSTokenSealed); err != nil || got != "" || locs[c].POSTokenSealed != nil {
		t.Errorf("a POS without a token: %q, %v (sealed %x)", got, err, locs[c].POSTokenSealed)
	}
	for name, open := range map[string]func() (string, error){
		"a's token in b's row":  func() (string, error) { return tokens.Open(b, locs[a].POSTokenSealed) },
		"another admin key":     func() (string, error) { return NewPOSTokens("other-key").Open(a, locs[a].POSTokenSealed) },
		"cut short":             func() (string, error) { return tokens.Open(a, locs[a].POSTokenSealed[:8]) },
		"an empty sealed value": func() (string, error) { return tokens.Open(a, []byte{}) },
	} {
		if got, err := open(); !errors.Is(err, ErrPOSTokenUnopenable) || got != "" {
			t.Errorf("%s: %q, %v; want ErrPOSTokenUnopenable", name, got, err)
		}
	}
	if all := fileBytes(t, path); len(all) == 0 || bytes.Contains(all, []byte(tokenA)) || bytes.Contains(all, []byte(tokenB)) {
		t.Errorf("the database holds a POS token in the clear (%d bytes read)", len(all))
	}

	// Removing the POS removes its token.
	mustWrite(t, db, func(tx *Tx) error { return tx.SetLocationPOS(tokens, a, nil, nil) })
	mustRead(t, db, func(tx *Tx) error {
		l, err := tx.GetLocation(a)
		if l.POSURL != nil || l.POSTokenSealed != nil {
			t.Errorf("after removing the POS: %v %x", l.POSURL, l.POSTokenSealed)
		}
		return err
	})
}

// migrationBefore is the name of the migration that comes just before the
// one whose name ends in suffix.
func migrationBefore(t *testing.T, suffix string) string {
	t.Helper()
	all, err := migrationNames()
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(all, func(n string) bool { return strings.HasSuffix(n, suffix) })
	if i < 1 {
		t.Fatalf("no migration ending in %s after another", suffix)
	}
	return all[i-1]
}

// TestPlainPOSTokensOfAnOlderServerAreSealed: a database of a server that
// kept the tokens in the clear opens, and SealPlainPOSTokens seals them,
// each bound to its location, without leaving the clear text in the file
// or in a copy of it.
func TestPlainPOSTokensOfAnOlderServerAreSealed(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "older.sqlite")
	raw := olderDatabase(t, path, migrationBefore(t, "_pos_token_sealed.sql"))
	plain := map[int64]string{1: "older-plain-token-one-93b1", 3: "older-plain-token-three-5e07"}
	for id := int64(1); id <= 3; id++ {
		var token *string
		if p, ok := plain[id]; ok {
			token = &p
		}
		if _, err := raw.Exec(`INSERT INTO locations (location_id, name, gateway, pos_url, pos_token, created_at)
			VALUES (?, 'L', 'providerB', 'http://pos.test', ?, 0)`, id, token); err != nil {
			t.Fatal(err)
		}
	}
	if err := raw.Close(); err != nil {
		t.Fatal(err)
	}

	db, err := Open(t.Context(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tokens := NewPOSTokens("admin-key")
	seal := func() (n int) {
		mustWrite(t, db, func(tx *Tx) (err error) {
			n, err = tx.SealPlainPOSTokens(tokens)
			return err
		})
		return n
	}
	if n := seal(); n != len(plain) {
		t.Errorf("sealed %d tokens, want %d", n, len(plain))
	}
	if n := seal(); n != 0 {
		t.Errorf("sealed %d tokens the second time, want none", n)
	}
	mustRead(t, db, func(tx *Tx) error {
		var left int
		if err := tx.queryRow(`SELECT count(*) FROM locations WHERE pos_token_plain IS NOT NULL`).Scan(&left); err != nil || left != 0 {
			t.Errorf("%d tokens left in the clear (%v)", left, err)
		}
		for id := int64(1); id <= 3; id++ {
			l, err := tx.GetPOSLocation(id)
			if err != nil {
				return err
			}
			if got, err := tokens.Open(id, l.POSTokenSealed); err != nil || got != plain[id] {
				t.Errorf("location %d: token %q, %v; want %q", id, got, err, plain[id])
			}
		}
		return nil
	})

	// Nothing of the clear text is left in the pages: not in a copy, nor
	// in the file once the database is closed (its WAL checkpointed).
	cp := filepath.Join(dir, "copy.sqlite")
	if _, err := db.CopyToFile(t.Context(), cp); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{cp, path} {
		all := fileBytes(t, f)
		for _, p := range plain {
			if len(all) == 0 || bytes.Contains(all, []byte(p)) {
				t.Errorf("%s holds %q in the clear (%d bytes read)", filepath.Base(f), p, len(all))
			}
		}
	}
}

// TestFailedSealPutsSecureDeleteBack: secure_delete belongs to the writer
// connection, not to the transaction, so a seal that fails half way and
// rolls back must still turn it back to what it was for the writes after.
func TestFailedSealPutsSecureDeleteBack(t *testing.T) {
	t.Parallel()
	db := openTest(t, filepath.Join(t.TempDir(), "db.sqlite"), nil)
	secureDelete := func() (v int) {
		mustWrite(t, db, func(tx *Tx) error { return tx.queryRow(`PRAGMA secure_delete`).Scan(&v) })
		return v
	}
	before := secureDelete()
	if before != 0 {
		t.Fatalf("secure_delete is %d before the seal; the test needs it off to see it left on", before)
	}
	mustWrite(t, db, func(tx *Tx) error {
		for range 2 {
			if _, err := tx.InsertLocation("L", "providerB"); err != nil {
				return err
			}
		}
		if _, err := tx.exec(`UPDATE locations SET pos_url = 'http://pos.test', pos_token_plain = 'plain-' || location_id`); err != nil {
			return err
		}
		// Only on the writer connection, which every write shares: the
		// second location's token cannot be sealed.
		_, err := tx.exec(`CREATE TEMP TRIGGER refuse_seal BEFORE UPDATE OF pos_token_sealed ON locations
			WHEN OLD.location_id = (SELECT max(location_id) FROM locations)
			BEGIN SELECT RAISE(ABORT, 'refused'); END`)
		return err
	})
	err := db.Write(t.Context(), func(tx *Tx) error {
		_, err := tx.SealPlainPOSTokens(NewPOSTokens("admin-key"))
		return err
	})
	if err == nil || !strings.Contains(err.Error(), "refused") {
		t.Fatalf("seal: %v, want the trigger's refusal", err)
	}
	if after := secureDelete(); after != before {
		t.Errorf("secure_delete is %d after the failed seal, want %d", after, before)
	}
	mustRead(t, db, func(tx *Tx) error {
		var plain int
		if err := tx.queryRow(`SELECT count(*) FROM locations WHERE pos_token_plain IS NOT NULL`).Scan(&plain); err != nil || plain != 2 {
			t.Errorf("%d tokens left in the clear after the failed seal (%v), want both", plain, err)
		}
		return nil
	})
}
