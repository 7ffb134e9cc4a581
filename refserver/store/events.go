package store

import (
	"fmt"
	"sync"
)

// The statements of events (contract.md section 8): the event log that the
// feed reads, and the waits of feed requests for new events.

// Event is a row of the events table. DataJSON is the event's data object
// as JSON.
type Event struct {
	// Seq orders events (the feed's cursor is made of it).
	Seq       int64
	EventID   string
	Type      string
	CreatedAt int64
	// LocationID is the location the event is about; nil for an event
	// that belongs to one API key (OwnerKeyID).
	LocationID *int64
	OwnerKeyID *int64
	DataJSON   string
}

// eventSignal tells waiters that deliveries were queued: each waiter takes
// the current channel, which the next commit with events closes and
// replaces. Nobody waits holding a connection or the writer.
type eventSignal struct {
	mu sync.Mutex
	ch chan struct{}
}

func (s *eventSignal) wait() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ch == nil {
		s.ch = make(chan struct{})
	}
	return s.ch
}

func (s *eventSignal) notify() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ch != nil {
		close(s.ch)
		s.ch = nil
	}
}

// DeliverySignal returns a channel that is closed once a transaction that
// queued webhook deliveries (QueueDeliveries, QueueDelivery) has committed
// after this call. Take it before looking at the queue, then wait on it:
// deliveries queued in between are never missed. Most events have no
// webhook subscribed, and waking the dispatcher for them would cost it a
// look at the queue for nothing.
func (db *DB) DeliverySignal() <-chan struct{} { return db.deliveries.wait() }

// InsertEvent records e (EventID, Type, LocationID or OwnerKeyID, DataJSON)
// at the transaction's time and returns its seq. The feed waits it can
// match (WaitForEvents) are told once the transaction commits.
func (tx *Tx) InsertEvent(e Event) (int64, error) {
	res, err := tx.exec(`INSERT INTO events (event_id, type, location_id, owner_key_id, created_at, data_json)
		VALUES (?, ?, ?, ?, ?, ?)`, e.EventID, e.Type, e.LocationID, e.OwnerKeyID, tx.Unix(), e.DataJSON)
	if err != nil {
		return 0, fmt.Errorf("insert event: %w", err)
	}
	tx.AfterCommit(func() { tx.db.feed.notify(e.Type, e.LocationID, e.OwnerKeyID) })
	return res.LastInsertId()
}

// EventID returns the id of the event seq, or ErrNotFound.
func (tx *Tx) EventID(seq int64) (string, error) {
	var id string
	err := tx.queryRow(`SELECT event_id FROM events WHERE seq = ?`, seq).Scan(&id)
	return id, notFound(err)
}

const eventColumns = `seq, event_id, type, created_at, location_id, owner_key_id, data_json`

func scanEvent(sc scanner, e *Event) error {
	return sc.Scan(&e.Seq, &e.EventID, &e.Type, &e.CreatedAt, &e.LocationID, &e.OwnerKeyID, &e.DataJSON)
}

// FeedQuery selects the events an API key reads from the feed.
type FeedQuery struct {
	KeyID int64
	// After is the seq after which to read (0: from the oldest).
	After int64
	// TypesJSON is a JSON array of the types to read; "" reads every type.
	TypesJSON string
	Limit     int
}

// EventFeed returns up to q.Limit events after q.After, oldest first, of
// the locations in the key's scope and those owned by the key.
func (tx *Tx) EventFeed(q FeedQuery) ([]Event, error) {
	rows, err := tx.query(`SELECT `+eventColumns+` FROM events
		WHERE seq > ?
		AND (location_id IN (SELECT location_id FROM api_key_locations WHERE key_id = ?) OR owner_key_id = ?)
		AND (? = '' OR type IN (SELECT value FROM json_each(?)))
		ORDER BY seq LIMIT ?`, q.After, q.KeyID, q.KeyID, q.TypesJSON, q.TypesJSON, q.Limit)
	if err != nil {
		return nil, fmt.Errorf("event feed: %w", err)
	}
	defer rows.Close()
	var out []Event
	for rows.Next() {
		var e Event
		if err := scanEvent(rows, &e); err != nil {
			return nil, fmt.Errorf("event feed: %w", err)
		}
		out = append(out, e)
	}
	return out, rows.Err()
}
