package store

import (
	"errors"
	"path/filepath"
	"strconv"
	"testing"
)

// A feed wait is woken only by the commit of an event it can match: one
// of its locations or owned by its key, of a type it asked for. Events of
// other locations, other keys or other types, and a rolled-back event,
// leave it waiting.
func TestWaitForEventsWakesOnlyMatchingWaits(t *testing.T) {
	t.Parallel()
	db := openTest(t, filepath.Join(t.TempDir(), "w.db"), nil)
	loc := func(id int64) *int64 { return &id }
	n := 0
	commit := func(e Event) {
		t.Helper()
		n++
		e.EventID, e.DataJSON = "evt_"+strconv.Itoa(n), "{}"
		if err := db.Write(t.Context(), func(tx *Tx) error { _, err := tx.InsertEvent(e); return err }); err != nil {
			t.Fatal(err)
		}
	}
	woken := func(ch <-chan struct{}) bool {
		select {
		case <-ch:
			return true
		default:
			return false
		}
	}

	all, stopAll := db.WaitForEvents(FeedWait{KeyID: 1, Locations: []int64{10, 11}})
	defer stopAll()
	closed, stopClosed := db.WaitForEvents(FeedWait{KeyID: 1, Locations: []int64{10, 11}, Types: []string{"bill.closed"}})
	defer stopClosed()
	other, stopOther := db.WaitForEvents(FeedWait{KeyID: 2, Locations: []int64{12}})
	defer stopOther()

	commit(Event{Type: "ping", OwnerKeyID: loc(3)})             // another key's ping
	commit(Event{Type: "location.online", LocationID: loc(13)}) // a location nobody waits for
	_ = db.Write(t.Context(), func(tx *Tx) error {              // rolled back
		_, _ = tx.InsertEvent(Event{EventID: "evt_rb", Type: "bill.closed", LocationID: loc(10), DataJSON: "{}"})
		return errors.New("roll back")
	})
	if woken(all) || woken(closed) || woken(other) {
		t.Fatal("a wait was woken by an event it cannot match")
	}
	commit(Event{Type: "location.online", LocationID: loc(11)})
	if !woken(all) || woken(closed) || woken(other) {
		t.Fatalf("after location.online at 11: all %v, closed %v, other %v", woken(all), woken(closed), woken(other))
	}
	commit(Event{Type: "bill.closed", LocationID: loc(10)})
	if !woken(closed) || woken(other) {
		t.Fatalf("after bill.closed at 10: closed %v, other %v", woken(closed), woken(other))
	}
	commit(Event{Type: "ping", OwnerKeyID: loc(2)}) // the key's own ping
	if !woken(other) {
		t.Fatal("a key's ping did not wake its wait")
	}

	// A stopped wait is forgotten: nothing is left filed.
	stopAll()
	stopClosed()
	stopOther()
	db.feed.mu.Lock()
	defer db.feed.mu.Unlock()
	if len(db.feed.byLocation) != 0 || len(db.feed.byOwner) != 0 {
		t.Errorf("waits left filed: %v %v", db.feed.byLocation, db.feed.byOwner)
	}
}
