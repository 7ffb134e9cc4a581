package sim

import (
	"sync/atomic"
	"time"
)

// Clock is the sandbox's virtual clock: a real time source plus an offset
// that POST /sandbox/clock moves forward. Everything the server reads about
// "now" goes through it, so advancing the clock expires keys, makes POS
// heartbeats stale and moves serverTime together.
type Clock struct {
	real   func() time.Time
	offset atomic.Int64 // nanoseconds
}

// NewClock returns a clock over real (time.Now when nil) with offset zero.
func NewClock(real func() time.Time) *Clock {
	if real == nil {
		real = time.Now
	}
	return &Clock{real: real}
}

// Now returns the virtual time: real time plus the offset.
func (c *Clock) Now() time.Time { return c.real().Add(c.Offset()) }

// Real returns the real time, for things that must not follow the virtual
// clock (TLS certificate validity, rate limiting).
func (c *Clock) Real() time.Time { return c.real() }

// Offset returns how far the virtual clock is ahead of real time.
func (c *Clock) Offset() time.Duration { return time.Duration(c.offset.Load()) }

// SetOffset sets the offset. The server persists it and calls SetOffset
// after the change has committed.
func (c *Clock) SetOffset(d time.Duration) { c.offset.Store(int64(d)) }
