// Package keylock serialises work per key within one process: one mutex
// per key, existing only while someone holds or waits for it, with waits
// that give up when their context ends.
package keylock

import (
	"context"
	"sync"
)

// Set is a set of named locks. The zero value is ready to use.
type Set struct {
	mu    sync.Mutex
	locks map[string]*lock
}

type lock struct {
	ch   chan struct{} // holds one token while the lock is held
	refs int           // holders and waiters
}

// Lock waits for the lock named key, or for ctx to end, and returns the
// function that releases it.
func (s *Set) Lock(ctx context.Context, key string) (unlock func(), err error) {
	s.mu.Lock()
	if s.locks == nil {
		s.locks = map[string]*lock{}
	}
	l := s.locks[key]
	if l == nil {
		l = &lock{ch: make(chan struct{}, 1)}
		s.locks[key] = l
	}
	l.refs++
	s.mu.Unlock()

	release := func() {
		s.mu.Lock()
		l.refs--
		if l.refs == 0 {
			delete(s.locks, key)
		}
		s.mu.Unlock()
	}
	select {
	case l.ch <- struct{}{}:
		return func() { <-l.ch; release() }, nil
	case <-ctx.Done():
		release()
		return nil, ctx.Err()
	}
}

// Len returns how many keys are held or waited for.
func (s *Set) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.locks)
}
