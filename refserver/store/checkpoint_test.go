package store

import (
	"context"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The writer never checkpoints inline, yet the WAL does not grow without
// bound: the background checkpointer copies it back and the writer
// restarts it once it is long.
func TestWALIsCheckpointedAndRestarted(t *testing.T) {
	t.Parallel()
	db := openTest(t, filepath.Join(t.TempDir(), "w.db"), nil)
	ctx := context.Background()
	var auto int
	if err := db.write.QueryRowContext(ctx, `PRAGMA wal_autocheckpoint`).Scan(&auto); err != nil || auto != 0 {
		t.Fatalf("writer wal_autocheckpoint = %d, %v; want 0", auto, err)
	}
	db.ckpt.restartAt = 64
	value := strings.Repeat("x", 8<<10) // three pages or so per write
	n := 0
	write := func() {
		t.Helper()
		n++
		if err := db.Write(ctx, func(tx *Tx) error { return tx.SetState("k", value+strconv.Itoa(n)) }); err != nil {
			t.Fatal(err)
		}
	}
	// Write until the background checkpointer has seen a long WAL, then
	// until the writer has checkpointed what was left; the write after
	// that starts the WAL again. The bound on writes turns a mechanism
	// that never acts into a failure rather than a hang.
	const maxWrites = 5000
	for db.ckpt.walFrames.Load() < db.ckpt.restartAt && n < maxWrites {
		write()
		time.Sleep(time.Millisecond) // let the checkpointer run
	}
	for db.ckpt.walFrames.Load() != 0 && n < maxWrites {
		write()
	}
	if n >= maxWrites {
		t.Fatalf("after %d writes the WAL was never handed back to the writer", n)
	}
	write()
	busy, log, done, err := checkpoint(db.ckpt.conn)
	if err != nil || busy {
		t.Fatalf("checkpoint: busy %v, %v", busy, err)
	}
	if log != done {
		t.Errorf("WAL pages %d, checkpointed %d", log, done)
	}
	if log > 20 {
		t.Errorf("WAL holds %d pages after %d writes: it was not restarted", log, n)
	}
	var got string
	if err := db.Read(ctx, func(tx *Tx) (err error) { got, err = tx.State("k"); return err }); err != nil {
		t.Fatal(err)
	}
	if got != value+strconv.Itoa(n) {
		t.Errorf("last write lost")
	}
}
