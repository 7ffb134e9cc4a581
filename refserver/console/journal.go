package console

import (
	"net/url"
	"time"
)

// Journal is the request journal as the requests page reads it.
type Journal interface {
	// Capacity is how many requests the journal keeps, 0 when it is
	// turned off.
	Capacity() int
	// Query returns the entries that q selects, newest first. q holds the
	// filter parameters of GET /sandbox/requests (limit, locationId,
	// status, after), read by the same rules; the error says which of them
	// is wrong and what it must be, in words fit for the page.
	Query(q url.Values) ([]JournalEntry, error)
}

// JournalEntry is one request of the journal: the fields of an entry of
// GET /sandbox/requests, which document each.
type JournalEntry struct {
	Seq           int64
	Time          time.Time
	Method        string
	Route         string
	Status        int
	ErrorCode     *int
	DurationMs    float64
	RequestID     string
	Credential    string
	UserID        *int64
	POSLocationID *int64
	KeyID         *int64
	LocationID    *int64
}

// noJournal is the journal of a console given none: turned off.
type noJournal struct{}

func (noJournal) Capacity() int                            { return 0 }
func (noJournal) Query(url.Values) ([]JournalEntry, error) { return nil, nil }
