package schedule

import (
	"context"
	"log/slog"
	"time"

	"github.com/hospo-dev/hospo-go/refserver/rules"
	"github.com/hospo-dev/hospo-go/refserver/store"
)

// offlineBatch bounds the locations one transaction puts offline, so that
// it does not hold the writer for long; a full batch is followed by
// another at once.
const offlineBatch = 100

// Offline is the job that puts a location offline once its POS has sent
// no heartbeat for 6 minutes of the virtual clock (location.offline). It
// is due when the next location goes stale; a location that comes online
// meanwhile is due 6 minutes later, after the scheduler's longest sleep,
// so a heartbeat needs no wake of its own.
func Offline(db *store.DB, now func() time.Time, log *slog.Logger) Job {
	o := offline{db: db, now: now, log: log}
	return Job{Name: "offline locations", Run: o.markOffline}
}

type offline struct {
	db  *store.DB
	now func() time.Time
	log *slog.Logger
}

// markOffline puts the stale locations offline and says when the next one
// is due.
func (o offline) markOffline(ctx context.Context) Result {
	var res Result
	for {
		var (
			next time.Time
			ok   bool
		)
		err := o.db.Read(ctx, func(tx *store.Tx) error {
			var err error
			next, ok, err = rules.NextOffline(tx)
			return err
		})
		if err != nil {
			if ctx.Err() == nil {
				o.log.Error("offline locations: reading heartbeats", "err", err)
			}
			return res
		}
		if !ok || next.After(o.now()) {
			res.Next = next
			return res
		}
		var n int
		err = o.db.Write(ctx, func(tx *store.Tx) error {
			var err error
			n, err = rules.MarkStaleOffline(tx, offlineBatch)
			return err
		})
		if err != nil {
			if ctx.Err() == nil {
				o.log.Error("offline locations: marking locations offline", "err", err)
			}
			return res
		}
		if n == 0 {
			// Due by the read but not by the write's look: a heartbeat
			// came in between. Look again shortly rather than spin.
			res.Next = o.now().Add(time.Second)
			return res
		}
		res.Worked = true
	}
}
