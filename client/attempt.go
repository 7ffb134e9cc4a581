package client

import (
	"context"
	"errors"
	"io"
	"sync"
	"time"
)

// The per-attempt timeout (WithTimeout) is kept by one runtime timer per
// Client rather than by a context.WithTimeout per attempt. Starting and
// stopping a runtime timer on every call, and the idle thread the runtime
// wakes to watch each new earliest timer, cost more than the rest of the
// SDK's own work on a local call. With one timer armed for the earliest
// deadline in flight, starting an attempt links it into a list, and ending
// it unlinks it; the timer is re-armed only when it fires or when an
// attempt's deadline comes before the armed one.

// attempt is one HTTP attempt bounded by a per-attempt timeout. It is the
// context of the attempt's request (cancelled by the Client's attemptClock
// at the deadline), and, once a response comes, the wrapper of the
// response body that ends the attempt when closed: one allocation for the
// three.
type attempt struct {
	context.Context // a context.WithCancelCause of the call's context
	cancel          context.CancelCauseFunc
	timeout         time.Duration
	deadline        time.Time
	clock           *attemptClock
	body            io.ReadCloser // the response's, once it came

	// Guarded by clock.mu.
	linked      bool
	prev, next  *attempt // in clock's list while in flight
	nextExpired *attempt // in attemptClock.fire's list of expired attempts
}

// Deadline implements context.Context: the attempt's deadline, which
// comes before the call's (start puts no attempt on the clock otherwise).
func (a *attempt) Deadline() (time.Time, bool) {
	return a.deadline, true
}

// Err implements context.Context: context.DeadlineExceeded once the
// timeout has cancelled the attempt, as context.WithTimeout would report.
func (a *attempt) Err() error {
	err := a.Context.Err()
	if err != nil && a.expired() {
		return context.DeadlineExceeded
	}
	return err
}

// expired reports whether the attempt's timeout cancelled it.
func (a *attempt) expired() bool {
	_, ok := context.Cause(a.Context).(*attemptTimeoutError)
	return ok
}

// timedOut returns err, the failure of the attempt's request or body, as
// an attempt timeout when the timeout cancelled the attempt. A context
// derived from the attempt (by a RoundTripper of the caller's, say) ends
// with context.Canceled rather than the attempt's DeadlineExceeded: an
// error that matches it is the timeout's doing here, and is replaced by
// the attempt's cause, so that it does not read as the caller's.
func (a *attempt) timedOut(err error) error {
	if !a.expired() {
		return err
	}
	if errors.Is(err, context.Canceled) {
		return context.Cause(a.Context)
	}
	if ate := (*attemptTimeoutError)(nil); !errors.As(err, &ate) {
		return &attemptTimeoutError{d: a.timeout, err: err}
	}
	return err
}

// Read implements io.Reader on the response body.
func (a *attempt) Read(p []byte) (int, error) {
	n, err := a.body.Read(p)
	if err != nil && err != io.EOF {
		err = a.timedOut(err)
	}
	return n, err
}

// Close closes the response body and ends the attempt.
func (a *attempt) Close() error {
	err := a.body.Close()
	a.end()
	return err
}

// end takes the attempt off the clock and releases its context.
func (a *attempt) end() {
	a.clock.stop(a)
	a.cancel(nil)
}

// attemptClock cancels the attempts of a Client that outlast their
// timeout. Its zero value is ready to use.
type attemptClock struct {
	mu          sync.Mutex
	first, last *attempt    // in flight, in the order they started
	timer       *time.Timer // calls fire; nil until the first attempt
	armed       time.Time   // when timer fires; zero: not armed
}

// start begins an attempt under ctx that timeout bounds. It returns nil
// when ctx's own deadline comes first: the attempt's timeout could never
// fire, and ctx ends the attempt as it ends the call.
func (c *attemptClock) start(ctx context.Context, timeout time.Duration) *attempt {
	deadline := time.Now().Add(timeout)
	if d, ok := ctx.Deadline(); ok && !d.After(deadline) {
		return nil
	}
	a := &attempt{timeout: timeout, deadline: deadline, clock: c}
	a.Context, a.cancel = context.WithCancelCause(ctx)
	c.mu.Lock()
	a.prev, a.linked = c.last, true
	if c.last != nil {
		c.last.next = a
	} else {
		c.first = a
	}
	c.last = a
	if c.armed.IsZero() || deadline.Before(c.armed) {
		c.arm(deadline)
	}
	c.mu.Unlock()
	return a
}

// stop takes a off the list, if it is still there.
func (c *attemptClock) stop(a *attempt) {
	c.mu.Lock()
	if a.linked {
		c.unlink(a)
	}
	c.mu.Unlock()
}

func (c *attemptClock) unlink(a *attempt) {
	if a.prev != nil {
		a.prev.next = a.next
	} else {
		c.first = a.next
	}
	if a.next != nil {
		a.next.prev = a.prev
	} else {
		c.last = a.prev
	}
	a.prev, a.next, a.linked = nil, nil, false
}

// arm sets the timer to fire at t. The caller holds c.mu.
func (c *attemptClock) arm(t time.Time) {
	c.armed = t
	if c.timer == nil {
		c.timer = time.AfterFunc(time.Until(t), c.fire)
		return
	}
	c.timer.Reset(time.Until(t))
}

// fire cancels the attempts whose deadline has passed and re-arms the
// timer for the earliest deadline left. When the attempt the timer was
// armed for has ended already, it finds nothing to cancel and only
// re-arms: at most one spare wake-up per timeout.
func (c *attemptClock) fire() {
	c.mu.Lock()
	now := time.Now()
	c.armed = time.Time{}
	var expired *attempt
	var next time.Time
	for a := c.first; a != nil; {
		n := a.next
		if !a.deadline.After(now) {
			c.unlink(a)
			a.nextExpired, expired = expired, a
		} else if next.IsZero() || a.deadline.Before(next) {
			next = a.deadline
		}
		a = n
	}
	if !next.IsZero() {
		c.arm(next)
	}
	c.mu.Unlock()
	for a := expired; a != nil; a = a.nextExpired {
		a.cancel(&attemptTimeoutError{d: a.timeout, err: context.DeadlineExceeded})
	}
}
