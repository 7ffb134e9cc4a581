// Package wake is the loop of every background worker, in the SDK and in
// the server alike: do what has become due, then sleep until the next
// thing is due, unless something wakes the worker first (new work came
// in, or the sandbox's virtual clock moved).
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
// returned has passed or s is woken, until ctx ends. A nil s is never
// woken: the loop only keeps time.
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
