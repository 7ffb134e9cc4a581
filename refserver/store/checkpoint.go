package store

import (
	"context"
	"database/sql"
	"sync"
	"sync/atomic"
	"time"
)

// Checkpoints. In WAL mode a commit appends pages to the -wal file, and a
// checkpoint copies them back into the database file. By default SQLite
// checkpoints on the committing connection whenever the WAL has passed
// 1,000 pages: here that is the single writer, so under load every write
// stopped, every few hundred milliseconds, for the copying and the fsync,
// which made most of the check push's latency tail (BENCHMARKS.md, "How the
// fleet figures got there"). So the writer connection never checkpoints on its
// own (wal_autocheckpoint=0): a goroutine with a connection of its own
// runs PASSIVE checkpoints, which block neither readers nor the writer,
// whenever writes have committed.
//
// The WAL file only starts again from its beginning when a write
// transaction begins with every frame checkpointed, which a checkpoint
// racing the writer seldom leaves behind. So once the WAL has grown past
// restartFrames, the writer checkpoints between two batches itself: by
// then the background has copied nearly everything, so this costs the
// writer only the last batches' pages, and the next batch restarts the WAL.

// restartFrames is the WAL size (in pages) past which the writer helps:
// 16,384 pages of 4 KiB, so the -wal file stays under about 64 MiB. Each
// help costs the writer an fsync, so a smaller bound makes it come often
// enough under load to show in the push's latency tail.
const restartFrames = 16384

// checkpointGap paces the background checkpoints. Each one ends with an
// fsync of the database file, and on ext4 an fsync makes the writer's WAL
// appends wait for the journal, so frequent checkpoints stall single
// commits. Fewer, larger checkpoints also cost less CPU in all.
const checkpointGap = 250 * time.Millisecond

type checkpointer struct {
	conn      *sql.DB
	kick      chan struct{}
	stop      chan struct{}
	done      chan struct{}
	once      sync.Once
	walFrames atomic.Int64 // the WAL's length in pages at the last checkpoint
	restartAt atomic.Int64 // restartFrames; tests lower it
}

func startCheckpointer(conn *sql.DB) *checkpointer {
	c := &checkpointer{conn: conn, kick: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	c.restartAt.Store(restartFrames)
	go c.loop()
	return c
}

func (c *checkpointer) loop() {
	defer close(c.done)
	pace := time.NewTimer(0)
	defer pace.Stop()
	for {
		select {
		case <-c.kick:
		case <-c.stop:
			return
		}
		if _, log, _, err := checkpoint(c.conn); err == nil {
			c.walFrames.Store(log)
		}
		pace.Reset(checkpointGap)
		select {
		case <-pace.C:
		case <-c.stop:
			return
		}
	}
}

// committed tells the checkpointer that a write transaction committed.
// It runs in the writer goroutine between batches, with the writer
// connection free and the batch's callers already answered.
func (c *checkpointer) committed(writer rowQuerier) {
	select {
	case c.kick <- struct{}{}:
	default: // a checkpoint is already due
	}
	if c.walFrames.Load() < c.restartAt.Load() {
		return
	}
	// One attempt per report of the background checkpointer: when readers
	// keep the WAL from being fully copied, trying again after every batch
	// would cost the writer an fsync each time.
	c.walFrames.Store(0)
	_, _, _, _ = checkpoint(writer)
}

// close stops the goroutine; the caller closes the connection.
func (c *checkpointer) close() {
	c.once.Do(func() { close(c.stop) })
	<-c.done
}

// rowQuerier is a pool or one of its connections (*sql.DB, *sql.Conn).
type rowQuerier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// checkpoint runs a PASSIVE checkpoint on db: it copies what it can
// without waiting for any lock. log is the WAL's length in pages and done
// how many of them are in the database file now.
func checkpoint(db rowQuerier) (busy bool, log, done int64, err error) {
	var b int
	err = db.QueryRowContext(context.Background(), `PRAGMA wal_checkpoint(PASSIVE)`).Scan(&b, &log, &done)
	return b != 0, log, done, err
}
