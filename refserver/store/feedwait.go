package store

import (
	"slices"
	"sync"
)

// feedWaiters are the feed requests waiting for new events (WaitForEvents),
// filed under the locations and the owner key whose events they can
// read, so that a commit wakes only the waits its events match: a key's
// waits are never woken, to read again for nothing, by the events of
// locations outside its scope or of types it did not ask for.
type feedWaiters struct {
	mu         sync.Mutex
	byLocation map[int64]map[*feedWaiter]struct{}
	byOwner    map[int64]map[*feedWaiter]struct{}
}

// feedWaiter is one waiting feed request.
type feedWaiter struct {
	ready     chan struct{}
	keyID     int64
	locations []int64
	types     []string // nil: every type
}

// FeedWait is what a feed request waits for: the events of Locations and
// those owned by KeyID (pings), of Types (nil for every type).
type FeedWait struct {
	KeyID     int64
	Locations []int64
	Types     []string
}

// WaitForEvents registers a wait for the events w can match and returns a
// channel that is closed once a transaction that recorded one has
// committed, and the function that ends the wait (call it in every case).
// Register before reading the feed, then wait on the channel: an event
// committed after the read's snapshot is never missed.
func (db *DB) WaitForEvents(w FeedWait) (ready <-chan struct{}, stop func()) {
	fw := &feedWaiter{ready: make(chan struct{}), keyID: w.KeyID, locations: w.Locations, types: w.Types}
	db.feed.add(fw)
	return fw.ready, func() { db.feed.remove(fw) }
}

func (f *feedWaiters) add(w *feedWaiter) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.byLocation == nil {
		f.byLocation = map[int64]map[*feedWaiter]struct{}{}
		f.byOwner = map[int64]map[*feedWaiter]struct{}{}
	}
	for _, l := range w.locations {
		file(f.byLocation, l, w)
	}
	file(f.byOwner, w.keyID, w)
}

func file(m map[int64]map[*feedWaiter]struct{}, k int64, w *feedWaiter) {
	set := m[k]
	if set == nil {
		set = map[*feedWaiter]struct{}{}
		m[k] = set
	}
	set[w] = struct{}{}
}

func unfile(m map[int64]map[*feedWaiter]struct{}, k int64, w *feedWaiter) {
	if set := m[k]; set != nil {
		delete(set, w)
		if len(set) == 0 {
			delete(m, k)
		}
	}
}

// remove ends a wait, woken or not.
func (f *feedWaiters) remove(w *feedWaiter) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.removeLocked(w)
}

func (f *feedWaiters) removeLocked(w *feedWaiter) {
	for _, l := range w.locations {
		unfile(f.byLocation, l, w)
	}
	unfile(f.byOwner, w.keyID, w)
}

// notify wakes the waits that an event of typ about location (or owned by
// owner) matches. Each wait is woken once and then forgotten.
func (f *feedWaiters) notify(typ string, location, owner *int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var set map[*feedWaiter]struct{}
	switch {
	case location != nil:
		set = f.byLocation[*location]
	case owner != nil:
		set = f.byOwner[*owner]
	}
	for w := range set {
		if w.types != nil && !slices.Contains(w.types, typ) {
			continue
		}
		close(w.ready)
		f.removeLocked(w) // deleting from set while ranging over it is allowed
	}
}
