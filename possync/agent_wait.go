package possync

import (
	"context"
	"fmt"
)

// paymentWaiter is one WaitPayments call.
type paymentWaiter struct {
	// after is the last poll that started before the call: only later
	// polls count.
	after uint64
	// ids are the payments still to be settled; nil: every payment a
	// poll lists.
	ids     map[int64]bool
	settled bool
	done    chan struct{} // closed when settled or the agent stops
}

// WaitPayments waits until the payments with the given ids have been
// saved (SavePayment returned nil) and accepted at the service, so that a
// script or a test can have payments made (by a diner, or by the
// sandbox's diners) and then read what the POS holds. Without ids it
// waits for every payment due now: until a poll that starts after the
// call lists no payment it could not settle.
//
// It asks for a poll at once (PollNow). A payment the service no longer
// lists was accepted, by this agent or before it (the poll lists every
// payment not yet accepted), so it counts as settled; so does an id the
// location never had. A payment whose save or accept fails is tried
// again at the next poll, PollInterval later, and the wait lasts until
// then. On an agent whose Run has not started it waits for Run.
//
// It returns nil once they are settled; when ctx ends first, an error
// saying how many are still waiting (with the agent's last error) that
// wraps ctx.Err(); when the agent stops, one that wraps ErrAgentClosed.
// It may be called from any goroutine, any number of times at once.
func (a *Agent) WaitPayments(ctx context.Context, paymentIDs ...int64) error {
	w := &paymentWaiter{done: make(chan struct{})}
	if len(paymentIDs) > 0 {
		w.ids = make(map[int64]bool, len(paymentIDs))
		for _, id := range paymentIDs {
			w.ids[id] = true
		}
	}
	a.mu.Lock()
	if a.closed {
		a.mu.Unlock()
		return fmt.Errorf("possync: wait for payments: %w", ErrAgentClosed)
	}
	w.after = a.pollGen
	if a.paymentWaiters == nil {
		a.paymentWaiters = make(map[*paymentWaiter]struct{})
	}
	a.paymentWaiters[w] = struct{}{}
	a.mu.Unlock()
	a.PollNow()

	select {
	case <-w.done:
	case <-ctx.Done():
	}

	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.paymentWaiters, w)
	switch {
	case w.settled:
		return nil
	case a.closed:
		return fmt.Errorf("possync: wait for payments: %w", ErrAgentClosed)
	}
	what := "payments due"
	if w.ids != nil {
		what = fmt.Sprintf("%d of %d payments", len(w.ids), len(paymentIDs))
	}
	last := ""
	if err := a.stats.LastError; err != nil {
		last = fmt.Sprintf(" (last error: %v)", err)
	}
	return fmt.Errorf("possync: wait for payments: %s not settled yet%s: %w", what, last, ctx.Err())
}

// WaitIdle waits until the agent has nothing left to do: every check
// pushed before the call answered by the service (Flush) and every
// payment due saved and accepted (WaitPayments without ids). It returns
// the first error of the two.
func (a *Agent) WaitIdle(ctx context.Context) error {
	if err := a.Flush(ctx); err != nil {
		return err
	}
	return a.WaitPayments(ctx)
}

// startPoll numbers a payments poll as it starts.
func (a *Agent) startPoll() uint64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.pollGen++
	return a.pollGen
}

// pollDone tells the payment waiters that poll gen has ended: when ok, it
// listed and tried to settle every payment not yet accepted, and
// unsettled holds those it could not.
func (a *Agent) pollDone(gen uint64, unsettled map[int64]bool, ok bool) {
	if !ok {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	for w := range a.paymentWaiters {
		if gen <= w.after {
			continue
		}
		if w.ids == nil {
			if len(unsettled) > 0 {
				continue
			}
		} else {
			for id := range w.ids {
				if !unsettled[id] {
					delete(w.ids, id)
				}
			}
			if len(w.ids) > 0 {
				continue
			}
		}
		w.settled = true
		close(w.done)
		delete(a.paymentWaiters, w)
	}
}
