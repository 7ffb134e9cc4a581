package store

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
)

// TestGroupCommitIsolation runs many concurrent writes, a third of which
// fail after writing: whatever batches they share, the failed ones leave
// nothing behind, the others all commit, and AfterCommit runs exactly for
// the committed ones.
func TestGroupCommitIsolation(t *testing.T) {
	t.Parallel()
	for _, path := range []string{filepath.Join(t.TempDir(), "w.db"), MemoryPath} {
		t.Run(filepath.Base(path), func(t *testing.T) {
			db, err := Open(t.Context(), path, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			const n = 300
			errFail := errors.New("refused after writing")
			var committed atomic.Int64
			var wg sync.WaitGroup
			for i := range n {
				wg.Go(func() {
					err := db.Write(t.Context(), func(tx *Tx) error {
						if _, err := tx.exec(`INSERT INTO sandbox_state (name, value) VALUES (?, 'x')`, fmt.Sprint("k", i)); err != nil {
							return err
						}
						tx.AfterCommit(func() { committed.Add(1) })
						if i%3 == 0 {
							return errFail
						}
						return nil
					})
					if want := i%3 == 0; want != errors.Is(err, errFail) || (!want && err != nil) {
						t.Errorf("write %d: %v", i, err)
					}
				})
			}
			wg.Wait()
			var rows int64
			err = db.Read(t.Context(), func(tx *Tx) error {
				return tx.queryRow(`SELECT COUNT(*) FROM sandbox_state WHERE name LIKE 'k%'`).Scan(&rows)
			})
			if err != nil {
				t.Fatal(err)
			}
			if want := int64(n - (n+2)/3); rows != want || committed.Load() != want {
				t.Errorf("%d rows and %d AfterCommit calls, want %d of each", rows, committed.Load(), want)
			}
		})
	}
}

// TestGroupCommitPanicAndCancel checks that a panicking function panics in
// its caller and rolls back only itself, and that a write whose context has
// ended is not run.
func TestGroupCommitPanicAndCancel(t *testing.T) {
	t.Parallel()
	db, err := Open(t.Context(), filepath.Join(t.TempDir(), "w.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	func() {
		defer func() {
			if p := recover(); p != "boom" {
				t.Errorf("recovered %v, want the function's panic", p)
			}
		}()
		_ = db.Write(t.Context(), func(tx *Tx) error {
			if _, err := tx.exec(`INSERT INTO sandbox_state (name, value) VALUES ('panicked', 'x')`); err != nil {
				return err
			}
			panic("boom")
		})
	}()
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	ran := false
	if err := db.Write(ctx, func(*Tx) error { ran = true; return nil }); !errors.Is(err, context.Canceled) || ran {
		t.Errorf("cancelled write: err %v, ran %v", err, ran)
	}
	if err := db.Write(t.Context(), func(tx *Tx) error {
		_, err := tx.exec(`INSERT INTO sandbox_state (name, value) VALUES ('after', 'x')`)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	var names []string
	err = db.Read(t.Context(), func(tx *Tx) error {
		rows, err := tx.query(`SELECT name FROM sandbox_state WHERE name IN ('panicked', 'after')`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var s string
			if err := rows.Scan(&s); err != nil {
				return err
			}
			names = append(names, s)
		}
		return rows.Err()
	})
	if err != nil || len(names) != 1 || names[0] != "after" {
		t.Errorf("rows %v (%v), want only the write after the panic", names, err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if err := db.Write(t.Context(), func(*Tx) error { return nil }); !errors.Is(err, errClosed) {
		t.Errorf("write after Close: %v", err)
	}
}

// TestGroupCommitClose closes the database while writes are queued: every
// write either commits and returns nil, or never runs and returns
// errClosed; none hangs, and what returned nil is in the file afterwards.
func TestGroupCommitClose(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "w.db")
	db, err := Open(t.Context(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	const n = 400
	var (
		wg        sync.WaitGroup
		committed [n]atomic.Bool
	)
	for i := range n {
		wg.Go(func() {
			err := db.Write(t.Context(), func(tx *Tx) error {
				_, err := tx.exec(`INSERT INTO sandbox_state (name, value) VALUES (?, 'x')`, fmt.Sprint("c", i))
				return err
			})
			switch {
			case err == nil:
				committed[i].Store(true)
			case !errors.Is(err, errClosed):
				t.Errorf("write %d: %v, want nil or errClosed", i, err)
			}
		})
		if i == n/2 {
			wg.Go(func() {
				if err := db.Close(); err != nil {
					t.Errorf("close: %v", err)
				}
			})
		}
	}
	wg.Wait()
	db, err = Open(t.Context(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var rows int
	for i := range n {
		var found int
		err := db.Read(t.Context(), func(tx *Tx) error {
			return tx.queryRow(`SELECT count(*) FROM sandbox_state WHERE name = ?`, fmt.Sprint("c", i)).Scan(&found)
		})
		if err != nil {
			t.Fatal(err)
		}
		if (found == 1) != committed[i].Load() {
			t.Errorf("write %d: in the file %v, returned nil %v", i, found == 1, committed[i].Load())
		}
		rows += found
	}
	t.Logf("%d of %d writes committed before the close", rows, n)
}

// TestGroupCommitWithdraw checks that a write still queued behind a busy
// writer returns when its context ends, and is then never run.
func TestGroupCommitWithdraw(t *testing.T) {
	t.Parallel()
	// queued hears when the second write (the one carrying ctx) is queued.
	ctx, cancel := context.WithCancel(t.Context())
	queued := make(chan struct{})
	db, err := Open(t.Context(), filepath.Join(t.TempDir(), "w.db"), nil, NotifyQueued(func(c context.Context) {
		if c == ctx {
			close(queued)
		}
	}))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	started, release := make(chan struct{}), make(chan struct{})
	first := make(chan error, 1)
	go func() {
		first <- db.Write(t.Context(), func(*Tx) error {
			close(started)
			<-release // keeps the writer busy
			return nil
		})
	}()
	<-started
	var ran atomic.Bool
	second := make(chan error, 1)
	go func() {
		second <- db.Write(ctx, func(*Tx) error {
			ran.Store(true)
			return nil
		})
	}()
	<-queued
	cancel()
	// The writer is still held in the first write, so the second can only
	// return by being withdrawn; a hang here is the failure.
	if err := <-second; !errors.Is(err, context.Canceled) {
		t.Errorf("withdrawn write: %v, want context.Canceled", err)
	}
	close(release)
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	// A write after both has gone through the writer, so the withdrawn
	// job, if the writer was going to run it, would have run by now.
	if err := db.Write(t.Context(), func(*Tx) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if ran.Load() {
		t.Error("the withdrawn write ran")
	}
}

// TestGroupCommitWhenSQLiteRollsBack: after some errors SQLite rolls the
// whole transaction back by itself (here an INSERT OR ROLLBACK that hits
// a constraint). Whether the function that met the error returns it or
// not, no function of that batch may be told that its writes committed,
// none of the batch may run outside a transaction, and the next write
// works.
func TestGroupCommitWhenSQLiteRollsBack(t *testing.T) {
	t.Parallel()
	for _, file := range []bool{true, false} {
		for _, returns := range []bool{true, false} {
			t.Run(fmt.Sprintf("file=%v/returns-error=%v", file, returns), func(t *testing.T) {
				path := MemoryPath
				if file {
					path = filepath.Join(t.TempDir(), "w.db")
				}
				groupCommitWhenSQLiteRollsBack(t, path, returns)
			})
		}
	}
}

func groupCommitWhenSQLiteRollsBack(t *testing.T, path string, returns bool) {
	// queued receives one value as each write of the batch enters the
	// writer's queue (the writes of the batch carry batchKey).
	type batchKey struct{}
	queued := make(chan struct{}, 3)
	db, err := Open(t.Context(), path, nil, NotifyQueued(func(ctx context.Context) {
		if ctx.Value(batchKey{}) != nil {
			queued <- struct{}{}
		}
	}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	ctx := t.Context()
	batchCtx := context.WithValue(ctx, batchKey{}, true)
	insert := func(name string) func(tx *Tx) error {
		return func(tx *Tx) error {
			_, err := tx.exec(`INSERT INTO sandbox_state (name, value) VALUES (?, 'x')`, name)
			return err
		}
	}
	if err := db.Write(ctx, insert("dup")); err != nil {
		t.Fatal(err)
	}
	// The first write holds the writer while the others queue, so that
	// they run in one batch, in order.
	started, release := make(chan struct{}), make(chan struct{})
	first := make(chan error, 1)
	go func() {
		first <- db.Write(ctx, func(*Tx) error {
			close(started)
			<-release
			return nil
		})
	}()
	<-started
	var sqliteErr error
	fns := []func(tx *Tx) error{
		insert("before"),
		func(tx *Tx) error {
			_, sqliteErr = tx.exec(`INSERT OR ROLLBACK INTO sandbox_state (name, value) VALUES ('dup', 'y')`)
			if returns {
				return sqliteErr
			}
			return nil // a function that goes on regardless
		},
		insert("after"),
	}
	errs := make([]chan error, len(fns))
	for i, fn := range fns {
		errs[i] = make(chan error, 1)
		go func() { errs[i] <- db.Write(batchCtx, fn) }()
		<-queued // in order
	}
	close(release)
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	for i := range fns {
		if err := <-errs[i]; err == nil {
			t.Errorf("write %d of the batch returned nil", i)
		}
	}
	if sqliteErr == nil {
		t.Fatal("the INSERT OR ROLLBACK did not fail")
	}
	if err := db.Write(ctx, insert("next")); err != nil {
		t.Fatalf("the write after: %v", err)
	}
	var names []string
	err = db.Read(ctx, func(tx *Tx) error {
		rows, err := tx.query(`SELECT name FROM sandbox_state WHERE name IN ('dup', 'before', 'after', 'next') ORDER BY name`)
		if err != nil {
			return err
		}
		names, err = collect(rows, scanString)
		return err
	})
	if err != nil || fmt.Sprint(names) != "[dup next]" {
		t.Errorf("rows %v (%v), want [dup next]", names, err)
	}
}

// TestWriteAllocations bounds the allocations of a write of one lookup
// and one insert on a database file, which holds the writer's statements
// on its connection between batches. Through a *sql.Tx per batch the
// same write allocated 59: the transaction and its goroutine, each
// statement bound to it anew, and a goroutine with a cancellable context
// watching each query.
func TestWriteAllocations(t *testing.T) {
	db := openTest(t, filepath.Join(t.TempDir(), "a.db"), nil)
	ctx := t.Context()
	i := 0
	write := func() {
		i++
		err := db.Write(ctx, func(tx *Tx) error {
			var n int
			if err := tx.queryRow(`SELECT count(*) FROM sandbox_state WHERE name = ?`, "k").Scan(&n); err != nil {
				return err
			}
			_, err := tx.exec(`INSERT INTO sandbox_state (name, value) VALUES (?, 'x')`, i)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	write() // compile and keep the statements

	const most = 40 // 33 here (Go 1.26)
	if n := testing.AllocsPerRun(50, write); n > most {
		t.Errorf("%.0f allocations per write, want at most %d", n, most)
	}
}
