package store

import (
	"context"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
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
	const writes = 400
	for i := range writes {
		if err := db.Write(ctx, func(tx *Tx) error { return tx.SetState("k"+strconv.Itoa(i%10), value+strconv.Itoa(i)) }); err != nil {
			t.Fatal(err)
		}
	}
	busy, log, done, err := checkpoint(db.ckpt.conn)
	if err != nil || busy {
		t.Fatalf("checkpoint: busy %v, %v", busy, err)
	}
	if log != done {
		t.Errorf("WAL pages %d, checkpointed %d", log, done)
	}
	if log >= writes {
		t.Errorf("WAL holds %d pages after %d writes of several pages each: it was never restarted", log, writes)
	}
	var got string
	if err := db.Read(ctx, func(tx *Tx) (err error) { got, err = tx.State("k9"); return err }); err != nil {
		t.Fatal(err)
	}
	if got != value+strconv.Itoa(writes-1) {
		t.Errorf("last write lost")
	}
}
