package sim

import (
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/hospo-dev/hospo-go/refserver/store"
)

// stateClockOffset is the sandbox_state entry that keeps the virtual
// clock's offset across restarts, in whole seconds.
const stateClockOffset = "clock_offset_seconds"

// ClockOffset returns the virtual clock's offset kept in the database; zero
// before the clock was first advanced.
func ClockOffset(tx *store.Tx) (time.Duration, error) {
	v, err := tx.State(stateClockOffset)
	if errors.Is(err, store.ErrNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	secs, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("bad %s %q: %w", stateClockOffset, v, err)
	}
	return time.Duration(secs) * time.Second, nil
}

// AdvanceClock moves the kept offset forward by d (whole seconds) and
// returns the new offset; the caller sets its Clock to it after the
// commit.
func AdvanceClock(tx *store.Tx, d time.Duration) (time.Duration, error) {
	cur, err := ClockOffset(tx)
	if err != nil {
		return 0, err
	}
	next := cur + d.Truncate(time.Second)
	return next, setClockOffset(tx, next)
}

func setClockOffset(tx *store.Tx, d time.Duration) error {
	return tx.SetState(stateClockOffset, strconv.FormatInt(int64(d/time.Second), 10))
}
