package journal

import (
	"sync"

	"github.com/hospo-dev/hospo-go/sandbox"
)

// DefaultSize is how many requests a Journal keeps when New is given 0.
const DefaultSize = 1000

// Entry is one request as the journal keeps it. Seq numbers the entries
// in arrival order, from 1; Time is on the server's virtual clock, the
// clock of requestInfo.serverTime.
type Entry = sandbox.JournalEntry

// credentialNone is the Credential of a request that carried none, or
// none that was recognised.
const credentialNone = "none"

// Journal is the request journal: a ring buffer of the last requests. It
// is safe for concurrent use. A journal of capacity 0 keeps nothing.
type Journal struct {
	// size is fixed at creation; it is read without the lock, so it must
	// not be derived from entries, whose header add rewrites.
	size int

	mu      sync.Mutex
	entries []Entry // ring; entries[next%size] is the oldest once full
	next    int64   // Seq of the next entry, minus one
}

// New returns a journal keeping the last size requests: size 0 means
// DefaultSize and a negative size turns the journal off.
func New(size int) *Journal {
	switch {
	case size == 0:
		size = DefaultSize
	case size < 0:
		size = 0
	}
	return &Journal{size: size, entries: make([]Entry, 0, size)}
}

// Capacity returns how many entries the journal keeps, 0 when it is
// turned off.
func (j *Journal) Capacity() int { return j.size }

// add appends e, numbering it, and drops the oldest entry when full.
func (j *Journal) add(e Entry) {
	size := j.size
	if size == 0 {
		return
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	j.next++
	e.Seq = j.next
	if len(j.entries) < size {
		j.entries = append(j.entries, e)
		return
	}
	j.entries[(j.next-1)%int64(size)] = e
}

// filter selects entries. Zero values select everything.
type filter struct {
	// Limit caps the number of entries returned (0: no cap).
	Limit int
	// AfterSeq keeps only entries with a greater Seq.
	AfterSeq int64
	// LocationID keeps only entries concerning that location, or made
	// with that location's POS token.
	LocationID *int64
	// StatusMin and StatusMax keep only statuses in [StatusMin, StatusMax]
	// (both 0: any status).
	StatusMin, StatusMax int
}

func (f filter) match(e *Entry) bool {
	if e.Seq <= f.AfterSeq {
		return false
	}
	if f.LocationID != nil && !hasID(e.LocationID, *f.LocationID) && !hasID(e.POSLocationID, *f.LocationID) {
		return false
	}
	if f.StatusMax != 0 && (e.Status < f.StatusMin || e.Status > f.StatusMax) {
		return false
	}
	return true
}

func hasID(p *int64, id int64) bool { return p != nil && *p == id }

// query returns the entries that f selects, newest first, and the Seq of
// the newest entry in the journal (0 when empty), which a poller passes
// back as AfterSeq.
func (j *Journal) query(f filter) (out []Entry, last int64) {
	j.mu.Lock()
	defer j.mu.Unlock()
	out = []Entry{}
	n := len(j.entries)
	for i := range n {
		// Walk back from the newest: Seq j.next sits at (j.next-1) % size.
		e := &j.entries[int((j.next-1-int64(i))%int64(j.size))]
		if e.Seq <= f.AfterSeq {
			break // older entries only from here on
		}
		if !f.match(e) {
			continue
		}
		out = append(out, *e)
		if f.Limit > 0 && len(out) >= f.Limit {
			break
		}
	}
	return out, j.next
}
