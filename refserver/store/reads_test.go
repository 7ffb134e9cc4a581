package store

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
)

// countTo is a query of n rows of 0 (a value the driver boxes without
// allocating), made by SQLite alone.
const countTo = `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n LIMIT ?) SELECT 0 FROM n`

// TestReadStopsWhenContextEnds: a read's statements run under a context
// that never ends, and the read must still stop at its next row once its
// own context has ended, with the context's error.
func TestReadStopsWhenContextEnds(t *testing.T) {
	t.Parallel()
	db := openTest(t, filepath.Join(t.TempDir(), "r.db"), nil)
	ctx, cancel := context.WithCancel(t.Context())
	read := 0
	err := db.Read(ctx, func(tx *Tx) error {
		rows, err := tx.query(countTo, 1_000_000)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			if read++; read == 10 {
				cancel()
			}
		}
		return rows.Err()
	})
	if !errors.Is(err, context.Canceled) || read != 10 {
		t.Fatalf("read %d rows and ended with %v; want 10 rows and context.Canceled", read, err)
	}
	// A read that starts after its context ended does not run.
	if err := db.Read(ctx, func(*Tx) error { t.Error("ran"); return nil }); !errors.Is(err, context.Canceled) {
		t.Errorf("read with an ended context: %v, want context.Canceled", err)
	}
}

// TestReadRowsCostNoAllocation: reading a row under a context that can
// be cancelled allocates nothing. A statement run under such a context
// makes go-sqlite3 step each row in a goroutine of its own, with a
// channel and a closure: at least two allocations a row.
func TestReadRowsCostNoAllocation(t *testing.T) {
	db := openTest(t, filepath.Join(t.TempDir(), "a.db"), nil)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	read := func(n int) float64 {
		return testing.AllocsPerRun(20, func() {
			err := db.Read(ctx, func(tx *Tx) error {
				rows, err := tx.query(countTo, n)
				if err != nil {
					return err
				}
				defer rows.Close()
				var v int
				for rows.Next() {
					if err := rows.Scan(&v); err != nil {
						return err
					}
				}
				return rows.Err()
			})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
	read(10) // compile and cache the statement
	few, many := read(100), read(1100)
	if perRow := (many - few) / 1000; perRow >= 0.5 {
		t.Errorf("%.2f allocations per row read (%.0f for 100 rows, %.0f for 1,100)", perRow, few, many)
	}
}
