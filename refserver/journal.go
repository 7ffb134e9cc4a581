package refserver

import (
	"sync"
	"time"
)

// DefaultJournalSize is how many requests the request journal keeps when
// Config.JournalSize is 0.
const DefaultJournalSize = 1000

// journalEntry is one request as the request journal keeps it: what was
// asked (method and route pattern, never the URL), how it ended and who
// asked. It holds no credential, no query string, no header and no body,
// so no token, key, card number or CVC can end up in it.
type journalEntry struct {
	// Seq numbers the entries in arrival order, from 1. A poller asks for
	// the entries after the last Seq it saw.
	Seq int64 `json:"seq"`
	// Time is when the request arrived, on the server's virtual clock (the
	// clock of requestInfo.serverTime).
	Time time.Time `json:"time"`
	// Method is the HTTP method.
	Method string `json:"method"`
	// Route is the pattern of the matched route, such as
	// /v1/pos/push-pull/heartbeat/{locationId}, or "-" when no route
	// matched.
	Route string `json:"route"`
	// Status is the HTTP status of the response.
	Status int `json:"status"`
	// ErrorCode is the code of an error response's body, nil otherwise.
	ErrorCode *int `json:"errorCode"`
	// DurationMs is how long the server took, in milliseconds of real time.
	DurationMs float64 `json:"durationMs"`
	// RequestID is the response's X-Request-Id.
	RequestID string `json:"requestId"`
	// Credential is the kind of credential that identified the caller:
	// user, pos, apikey or admin, or none. A recognised access token that
	// was then refused (expired, or the wrong kind for the endpoint) still
	// names its kind and subject; the error code tells it was refused.
	Credential string `json:"credential"`
	// UserID is the user of a user access token.
	UserID *int64 `json:"userId"`
	// POSLocationID is the location a POS access token is bound to.
	POSLocationID *int64 `json:"posLocationId"`
	// KeyID is the id of a vendor API key.
	KeyID *int64 `json:"keyId"`
	// LocationID is the location the request concerned: the locationId in
	// the path or in the JSON body, else a POS token's location.
	LocationID *int64 `json:"locationId"`
}

// credentialNone is the Credential of a request that carried none, or
// none that was recognised.
const credentialNone = "none"

// journal is the request journal: a ring buffer of the last size
// requests. It is safe for concurrent use. A journal of size 0 keeps
// nothing.
type journal struct {
	// size is fixed at creation; it is read without the lock, so it must
	// not be derived from entries, whose header add rewrites.
	size int

	mu      sync.Mutex
	entries []journalEntry // ring; entries[next%size] is the oldest once full
	next    int64          // Seq of the next entry, minus one
}

// newJournal returns a journal keeping the last size requests: size 0
// means DefaultJournalSize and a negative size turns the journal off.
func newJournal(size int) *journal {
	switch {
	case size == 0:
		size = DefaultJournalSize
	case size < 0:
		size = 0
	}
	return &journal{size: size, entries: make([]journalEntry, 0, size)}
}

// capacity returns how many entries the journal keeps.
func (j *journal) capacity() int { return j.size }

// add appends e, numbering it, and drops the oldest entry when full.
func (j *journal) add(e journalEntry) {
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

// journalFilter selects entries. Zero values select everything.
type journalFilter struct {
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

func (f journalFilter) match(e *journalEntry) bool {
	if e.Seq <= f.AfterSeq {
		return false
	}
	if f.LocationID != nil && !journalHasID(e.LocationID, *f.LocationID) && !journalHasID(e.POSLocationID, *f.LocationID) {
		return false
	}
	if f.StatusMax != 0 && (e.Status < f.StatusMin || e.Status > f.StatusMax) {
		return false
	}
	return true
}

func journalHasID(p *int64, id int64) bool { return p != nil && *p == id }

// query returns the entries that f selects, newest first, and the Seq of
// the newest entry in the journal (0 when empty), which a poller passes
// back as AfterSeq.
func (j *journal) query(f journalFilter) (out []journalEntry, last int64) {
	j.mu.Lock()
	defer j.mu.Unlock()
	out = []journalEntry{}
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
