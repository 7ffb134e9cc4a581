package schedule

import (
	"context"
	"log/slog"
	"time"

	"github.com/hospo-dev/hospo-go/refserver/rules"
	"github.com/hospo-dev/hospo-go/refserver/store"
)

// Diners is the job of the sandbox's diners on a timer (PUT
// /sandbox/locations/{id}/diners): for each location whose diners are
// set, a round of payments every so many seconds of the virtual clock.
// The rounds are rules.RunDiners; the job finds the due ones and runs
// each in a transaction of its own. The database holds the schedule, so
// it survives restarts; the job keeps nothing.
func Diners(db *store.DB, now func() time.Time, log *slog.Logger) Job {
	d := diners{db: db, now: now, log: log}
	return Job{Name: "sandbox diners", Run: d.runDue}
}

type diners struct {
	db  *store.DB
	now func() time.Time
	log *slog.Logger
}

// runDue runs every round that is due on the virtual clock and says when
// the next one is.
func (d diners) runDue(ctx context.Context) Result {
	var (
		due  []int64
		next int64
	)
	err := d.db.Read(ctx, func(tx *store.Tx) (err error) {
		due, next, err = tx.DueDiners()
		return err
	})
	if err != nil {
		if ctx.Err() == nil {
			d.log.Error("diners: reading due rounds", "err", err)
		}
		return Result{}
	}
	for _, loc := range due {
		d.round(ctx, loc)
	}
	res := Result{Worked: len(due) > 0}
	if next > 0 {
		res.Next = time.Unix(next, 0)
	}
	return res
}

// round runs one location's due round; a round that a rule refuses is
// recorded as the diners' last error.
func (d diners) round(ctx context.Context, locationID int64) {
	var paid int
	err := d.db.Write(ctx, func(tx *store.Tx) (err error) {
		paid, err = rules.RunDiners(tx, locationID)
		return err
	})
	if err == nil {
		if paid > 0 {
			d.log.Debug("diners: paid", "location_id", locationID, "payments", paid)
		}
		return
	}
	if ctx.Err() != nil {
		return
	}
	d.log.Info("diners: round failed", "location_id", locationID, "err", err.Error())
	rerr := d.db.Write(ctx, func(tx *store.Tx) error {
		return rules.RecordDinersFailure(tx, locationID, err)
	})
	if rerr != nil && ctx.Err() == nil {
		d.log.Error("diners: recording a failed round", "location_id", locationID, "err", rerr)
	}
}
