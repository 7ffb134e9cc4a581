// Package wake is the loop of the server's background workers: each does
// what has become due (on the virtual clock), then sleeps until the next
// thing is due, unless something wakes it first: the clock was advanced,
// or a request made new work.
package wake

import (
	"context"
	"time"
)

// Signal is a wake-up call. Waking never blocks: one pending wake is as
// good as many.
type Signal chan struct{}

// NewSignal returns a Signal.
func NewSignal() Signal { return make(Signal, 1) }

// Wake wakes the loop that waits on s.
func (s Signal) Wake() {
	select {
	case s <- struct{}{}:
	default:
	}
}

// Loop calls step at once and then again each time the wait that step
// returned has passed or s is woken, until ctx ends.
func Loop(ctx context.Context, s Signal, step func(context.Context) time.Duration) {
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-s:
		case <-timer.C:
		}
		// Since Go 1.23 Reset discards a value the timer may already hold.
		timer.Reset(step(ctx))
	}
}
