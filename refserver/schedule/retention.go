package schedule

import (
	"context"
	"log/slog"
	"time"

	"github.com/hospo-dev/hospo-go/refserver/store"
)

// Retention is the job that deletes the rows past their retention
// (store.Retentions: events, idempotency records, providerD keys, ...)
// every interval of the virtual clock, and at its first run after the
// clock jumped (offset reports the jump), so that a jump's expiries go at
// once. It is the one place such rows go: a request never pays for
// deleting what others left behind.
func Retention(db *store.DB, now func() time.Time, offset func() time.Duration, interval time.Duration, log *slog.Logger) Job {
	r := &retention{db: db, now: now, offset: offset, interval: interval, log: log}
	return Job{Name: "retention sweep", Run: r.sweep}
}

type retention struct {
	db       *store.DB
	now      func() time.Time
	offset   func() time.Duration
	interval time.Duration
	log      *slog.Logger

	// Only the job's own goroutine touches these.
	next      time.Time     // when the next sweep is due; zero: at once
	offsetWas time.Duration // the clock's offset at the last sweep
}

func (r *retention) sweep(ctx context.Context) Result {
	now, offset := r.now(), r.offset()
	if !r.next.IsZero() && now.Before(r.next) && offset == r.offsetWas {
		return Result{Next: r.next}
	}
	start := time.Now()
	st, err := r.db.Sweep(ctx)
	if err != nil {
		if ctx.Err() == nil {
			r.log.Warn("retention sweep failed", slog.Any("error", err))
		}
	} else {
		r.log.Debug("retention sweep", slog.Any("deleted", st.Deleted),
			slog.Int("transactions", st.Transactions), slog.Duration("took", time.Since(start)))
	}
	r.next, r.offsetWas = now.Add(r.interval), offset
	return Result{Next: r.next}
}
