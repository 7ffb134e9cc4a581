// Package diners runs the sandbox's diners on a timer (contract.md
// section 9): for each location whose diners are set (PUT
// /sandbox/locations/{id}/diners), a round of payments every so many
// seconds of the virtual clock. The rounds are rules.RunDiners; this
// package only finds the due ones and runs each in its own transaction.
package diners

import (
	"context"
	"log/slog"
	"time"

	"github.com/hospo-dev/hospo-go/refserver/internal/wake"
	"github.com/hospo-dev/hospo-go/refserver/rules"
	"github.com/hospo-dev/hospo-go/refserver/store"
)

// pollInterval is the longest the runner sleeps between looks at the
// database: it bounds how late a round runs after a jump of the virtual
// clock that nobody announced with Wake (a restart, say).
const pollInterval = time.Second

// Runner runs the due rounds of every location's diners. The database
// holds the schedule, so it survives restarts; the runner keeps nothing.
type Runner struct {
	db   *store.DB
	now  func() time.Time
	log  *slog.Logger
	wake wake.Signal
}

// NewRunner returns a Runner over db with the virtual clock now; Run
// starts it.
func NewRunner(db *store.DB, now func() time.Time, log *slog.Logger) *Runner {
	return &Runner{db: db, now: now, log: log, wake: wake.NewSignal()}
}

// Wake tells the runner to look for due rounds now: the virtual clock
// moved, or a location's diners changed. It never blocks.
func (r *Runner) Wake() { r.wake.Wake() }

// Run runs due rounds until ctx ends.
func (r *Runner) Run(ctx context.Context) { wake.Loop(ctx, r.wake, r.RunDue) }

// RunDue runs every round that is due on the virtual clock, each
// location's in a transaction of its own, and returns how long to sleep
// before the next one is due (at most pollInterval).
func (r *Runner) RunDue(ctx context.Context) time.Duration {
	var (
		due  []int64
		next int64
	)
	err := r.db.Read(ctx, func(tx *store.Tx) (err error) {
		due, next, err = tx.DueDiners()
		return err
	})
	if err != nil {
		if ctx.Err() == nil {
			r.log.Error("diners: reading due rounds", "err", err)
		}
		return pollInterval
	}
	for _, loc := range due {
		r.round(ctx, loc)
	}
	wait := pollInterval
	if next > 0 {
		if w := time.Unix(next, 0).Sub(r.now()); w < wait {
			wait = max(w, 0)
		}
	}
	return wait
}

// round runs one location's due round; a round that a rule refuses is
// recorded as the diners' last error.
func (r *Runner) round(ctx context.Context, locationID int64) {
	var paid int
	err := r.db.Write(ctx, func(tx *store.Tx) (err error) {
		paid, err = rules.RunDiners(tx, locationID)
		return err
	})
	if err == nil {
		if paid > 0 {
			r.log.Debug("diners: paid", "location_id", locationID, "payments", paid)
		}
		return
	}
	if ctx.Err() != nil {
		return
	}
	r.log.Info("diners: round failed", "location_id", locationID, "err", err.Error())
	rerr := r.db.Write(ctx, func(tx *store.Tx) error {
		return rules.RecordDinersFailure(tx, locationID, err)
	})
	if rerr != nil && ctx.Err() == nil {
		r.log.Error("diners: recording a failed round", "location_id", locationID, "err", rerr)
	}
}
