// Package testclock is the time source of server-side tests: a clock that
// stands still until the test moves it, so that what depends on time (a
// POS going offline, a key expiring, a session timing out) is tested by
// moving the clock and never by waiting.
//
//	clock := testclock.New(time.Date(2030, time.June, 10, 12, 0, 0, 0, time.UTC))
//	db := storetest.Open(t, store.MemoryPath, clock.Now)
//	...
//	clock.Advance(time.Minute)
package testclock

import (
	"sync"
	"time"
)

// Clock is a time that only Advance changes. It is safe for concurrent
// use: the code under test may read it from its own goroutines.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// New returns a clock standing at start.
func New(start time.Time) *Clock { return &Clock{now: start} }

// Now returns the clock's time. Its method value is the now function that
// the store, the console and the rules take.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock on by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}
