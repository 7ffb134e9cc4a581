package store

import (
	"context"
	"database/sql"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// walPages checkpoints the WAL and returns its length and how much of it
// is in the database file, retrying while the background checkpointer
// holds the checkpoint lock (the bound only catches a lock never let go).
func walPages(t *testing.T, db *DB) (log, done int64) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); {
		busy, log, done, err := checkpoint(db.ckpt.conn)
		if err != nil {
			t.Fatal(err)
		}
		if !busy {
			return log, done
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("the checkpoint lock stayed busy")
	return 0, 0
}

// The writer never checkpoints inline, yet the WAL does not grow without
// bound: the background checkpointer copies it back and the writer
// restarts it once it is long.
func TestWALIsCheckpointedAndRestarted(t *testing.T) {
	t.Parallel()
	db := openTest(t, filepath.Join(t.TempDir(), "w.db"), nil)
	ctx := context.Background()
	var auto int
	err := db.Write(ctx, func(tx *Tx) error { return tx.queryRow(`PRAGMA wal_autocheckpoint`).Scan(&auto) })
	if err != nil || auto != 0 {
		t.Fatalf("writer wal_autocheckpoint = %d, %v; want 0", auto, err)
	}
	db.ckpt.restartAt.Store(64)
	value := strings.Repeat("x", 8<<10) // three pages or so per write
	n := 0
	write := func() {
		t.Helper()
		n++
		if err := db.Write(ctx, func(tx *Tx) error { return tx.SetState("k", value+strconv.Itoa(n)) }); err != nil {
			t.Fatal(err)
		}
	}
	// Write until the background checkpointer has seen a long WAL and the
	// writer has taken its turn to checkpoint; the write after that starts
	// the WAL again. The writer's turn can collide with a background
	// checkpoint, so a few rounds are allowed. The bound (in time, not in
	// writes: how many writes pass before the checkpointer runs depends on
	// the machine) turns a mechanism that never acts into a failure rather
	// than a hang.
	deadline := time.Now().Add(time.Minute)
	restarted := false
	for round := 0; round < 5 && !restarted; round++ {
		for db.ckpt.walFrames.Load() < db.ckpt.restartAt.Load() && time.Now().Before(deadline) {
			write()
			time.Sleep(time.Millisecond) // let the checkpointer run
		}
		for db.ckpt.walFrames.Load() != 0 && time.Now().Before(deadline) {
			write()
		}
		if !time.Now().Before(deadline) {
			t.Fatalf("after %d writes the writer never took its turn", n)
		}
		write()
		log, done := walPages(t, db)
		if log != done {
			t.Errorf("WAL pages %d, checkpointed %d", log, done)
		}
		restarted = log <= 20
	}
	if !restarted {
		t.Errorf("the WAL was not restarted after %d writes", n)
	}
	var got string
	if err := db.Read(ctx, func(tx *Tx) (err error) { got, err = tx.State("k"); return err }); err != nil {
		t.Fatal(err)
	}
	if got != value+strconv.Itoa(n) {
		t.Errorf("last write lost")
	}
}

// Every connection the writer driver opens has autocheckpointing off, not
// only the first: database/sql may replace a connection.
func TestWriterDriverTurnsAutocheckpointOff(t *testing.T) {
	t.Parallel()
	c, err := sql.Open(writerDriver, filepath.Join(t.TempDir(), "d.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetMaxIdleConns(0) // each query gets a new connection
	for range 2 {
		var auto int
		if err := c.QueryRow(`PRAGMA wal_autocheckpoint`).Scan(&auto); err != nil || auto != 0 {
			t.Fatalf("wal_autocheckpoint = %d, %v; want 0", auto, err)
		}
	}
}
