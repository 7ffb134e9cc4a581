package possync

import (
	"context"
	"errors"
	"fmt"
)

// flushWaiter is one Flush call waiting for the checks that were queued
// when it was made.
type flushWaiter struct {
	// pending maps each check number still to be settled to the
	// generation that settles it: the newest one pushed before the call.
	// A send of that generation or a later one settles it.
	pending map[int64]uint64
	refused []error       // the service's refusals of checks in pending
	done    chan struct{} // closed when pending is empty or the agent stops
}

// Flush waits until every check pushed before the call has been answered
// by the service, so that a script or a test can push, flush, and then read
// what the service holds. It returns nil when all of them were delivered.
//
// Only the newest state of a check is sent: a check pushed again before
// the call is waited for in its newest state; pushes after the call are not
// waited for. Flush sends nothing itself: Run does, so on an agent whose
// Run has not started yet Flush waits for it to start.
//
// Otherwise it returns:
//   - when the service refused checks for good (a 4xx such as a 400002,
//     after which the Agent drops them): once the others are settled, an
//     error naming each refused check and wrapping the service's error, so
//     errors.Is(err, client.ErrValidation) and errors.As with
//     *client.APIError work;
//   - when ctx ends first: an error saying how many checks are still
//     waiting and, while deliveries are failing, the agent's last error; it
//     wraps ctx.Err();
//   - when the agent stops (Run returns, or Close) with checks still
//     undelivered: an error wrapping ErrAgentClosed.
//
// Flush may be called from any goroutine, any number of times at once.
func (a *Agent) Flush(ctx context.Context) error {
	a.mu.Lock()
	total := len(a.entries)
	if total == 0 {
		a.mu.Unlock()
		return nil
	}
	if a.closed {
		a.mu.Unlock()
		return fmt.Errorf("possync: flush: %d of %d checks not delivered: %w", total, total, ErrAgentClosed)
	}
	w := &flushWaiter{pending: make(map[int64]uint64, total), done: make(chan struct{})}
	for n, e := range a.entries {
		w.pending[n] = e.gen
	}
	if a.waiters == nil {
		a.waiters = make(map[*flushWaiter]struct{})
	}
	a.waiters[w] = struct{}{}
	a.mu.Unlock()

	select {
	case <-w.done:
	case <-ctx.Done():
	}

	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.waiters, w)
	left := len(w.pending)
	switch {
	case left == 0 && len(w.refused) > 0:
		return fmt.Errorf("possync: flush: the service refused %d of %d checks: %w",
			len(w.refused), total, errors.Join(w.refused...))
	case left == 0:
		return nil
	case a.closed:
		return fmt.Errorf("possync: flush: %d of %d checks not delivered: %w", left, total, ErrAgentClosed)
	}
	last := ""
	if err := a.stats.LastError; err != nil && a.failures > 0 {
		// Deliveries are failing right now; the reason is the likeliest
		// answer to why the checks are still waiting.
		last = fmt.Sprintf(" (last error: %v)", err)
	}
	return fmt.Errorf("possync: flush: %d of %d checks not delivered yet%s: %w", left, total, last, ctx.Err())
}

// settleWaitersLocked tells the Flush calls that generation gen of check n
// has been answered: delivered when refusal is nil, refused for good
// otherwise. The caller holds a.mu.
func (a *Agent) settleWaitersLocked(n int64, gen uint64, refusal error) {
	for w := range a.waiters {
		want, ok := w.pending[n]
		if !ok || gen < want {
			continue
		}
		delete(w.pending, n)
		if refusal != nil {
			w.refused = append(w.refused, fmt.Errorf("check %d: %w", n, refusal))
		}
		if len(w.pending) == 0 {
			close(w.done)
			delete(a.waiters, w)
		}
	}
}

// releaseWaitersLocked wakes every Flush and WaitPayments call once the
// agent has stopped; each reports what is still undone. The caller holds
// a.mu and has set a.closed.
func (a *Agent) releaseWaitersLocked() {
	for w := range a.waiters {
		close(w.done)
		delete(a.waiters, w)
	}
	for w := range a.paymentWaiters {
		close(w.done)
		delete(a.paymentWaiters, w)
	}
}
