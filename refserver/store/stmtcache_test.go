package store

import (
	"context"
	"path/filepath"
	"strconv"
	"testing"
)

// cached reports whether query is compiled in c.
func cached(c *stmtCache, query string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m[query] != nil
}

func TestStatementsCompiledAfterFirstUse(t *testing.T) {
	t.Parallel()
	for name, path := range map[string]string{"file": filepath.Join(t.TempDir(), "s.db"), "memory": MemoryPath} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			db := openTest(t, path, nil)
			ctx := context.Background()
			const setSQL = `INSERT INTO sandbox_state (name, value) VALUES (?, ?)
		ON CONFLICT (name) DO UPDATE SET value = excluded.value`
			for i := range 3 {
				if err := db.Write(ctx, func(tx *Tx) error { return tx.SetState("k", strconv.Itoa(i)) }); err != nil {
					t.Fatal(err)
				}
				// The writer compiles after answering a batch and before
				// taking the next: one more batch makes sure it has.
				if err := db.Write(ctx, func(*Tx) error { return nil }); err != nil {
					t.Fatal(err)
				}
				if !cached(db.writeS, setSQL) {
					t.Fatalf("write %d: statement not compiled after its transaction", i)
				}
				var got string
				if err := db.Read(ctx, func(tx *Tx) (err error) { got, err = tx.State("k"); return err }); err != nil {
					t.Fatal(err)
				}
				if got != strconv.Itoa(i) {
					t.Fatalf("read %d: got %q", i, got)
				}
				if !cached(db.readS, `SELECT value FROM sandbox_state WHERE name = ?`) {
					t.Fatalf("read %d: statement not compiled after its transaction", i)
				}
			}
		})
	}
}

func TestBadStatementFailsEveryTimeAndIsNotCompiled(t *testing.T) {
	t.Parallel()
	db := openTest(t, filepath.Join(t.TempDir(), "b.db"), nil)
	ctx := context.Background()
	const bad = `SELEC 1`
	for i := range 2 {
		err := db.Write(ctx, func(tx *Tx) error {
			_, err := tx.exec(bad)
			return err
		})
		if err == nil {
			t.Fatalf("run %d: no error for %q", i, bad)
		}
		if err := db.Write(ctx, func(*Tx) error { return nil }); err != nil {
			t.Fatal(err)
		}
		if cached(db.writeS, bad) {
			t.Fatalf("run %d: bad statement compiled", i)
		}
	}
	if err := db.Write(ctx, func(tx *Tx) error { return tx.SetState("k", "v") }); err != nil {
		t.Fatalf("a good statement after a bad one: %v", err)
	}
}

func TestStatementCacheIsBounded(t *testing.T) {
	t.Parallel()
	db := openTest(t, filepath.Join(t.TempDir(), "n.db"), nil)
	ctx := context.Background()
	for i := range stmtCacheSize + 20 {
		var got int
		err := db.Read(ctx, func(tx *Tx) error {
			return tx.queryRow(`SELECT ` + strconv.Itoa(i) + ` + 1`).Scan(&got)
		})
		if err != nil {
			t.Fatal(err)
		}
		if got != i+1 {
			t.Fatalf("query %d: got %d", i, got)
		}
	}
	db.readS.mu.Lock()
	n := len(db.readS.m)
	db.readS.mu.Unlock()
	if n > stmtCacheSize {
		t.Fatalf("%d statements cached, bound is %d", n, stmtCacheSize)
	}
}
