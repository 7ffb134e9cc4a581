package rules

import (
	"time"

	"github.com/hospo-dev/hospo-go/events"
	"github.com/hospo-dev/hospo-go/refserver/store"
)

// A location's presence as its events tell it (contract.md section 8): a
// new location is offline; a heartbeat puts it online (location.online);
// POSOnlineWindow without one puts it offline again (location.offline),
// which MarkStaleOffline notices. The 409003 of a payment reads the
// heartbeat's freshness itself, so it never waits for the events.

// heartbeatPresence is what a heartbeat does to the location's presence,
// in the heartbeat's transaction: a location that counted as online but
// whose previous heartbeat had gone stale without MarkStaleOffline
// noticing yet goes offline first, so that the events always alternate.
func heartbeatPresence(tx *store.Tx, locationID int64) error {
	p, err := tx.GetPresence(locationID)
	if err != nil {
		return err
	}
	now := tx.Unix()
	if p.Online && (p.LastHeartbeat == nil || !heartbeatFresh(*p.LastHeartbeat, now)) {
		if err := goOffline(tx, p); err != nil {
			return err
		}
		p.Online = false
	}
	if err := tx.TouchHeartbeat(locationID); err != nil {
		return err
	}
	if p.Online {
		return nil
	}
	if err := tx.SetPresence(locationID, true); err != nil {
		return err
	}
	hb := unixTime(now)
	return recordEvent(tx, events.TypeLocationOnline, locationID, events.LocationStatus{LocationID: locationID, LastHeartbeat: &hb})
}

func goOffline(tx *store.Tx, p store.Presence) error {
	if err := tx.SetPresence(p.LocationID, false); err != nil {
		return err
	}
	d := events.LocationStatus{LocationID: p.LocationID}
	if p.LastHeartbeat != nil {
		hb := unixTime(*p.LastHeartbeat)
		d.LastHeartbeat = &hb
	}
	return recordEvent(tx, events.TypeLocationOffline, p.LocationID, d)
}

// MarkStaleOffline puts offline up to limit locations that count as
// online but whose last heartbeat is older than POSOnlineWindow, each with
// its location.offline event, and returns how many it did.
func MarkStaleOffline(tx *store.Tx, limit int) (int, error) {
	stale, err := tx.StalePresences(tx.Unix()-posOnlineSeconds, limit)
	if err != nil {
		return 0, err
	}
	for _, p := range stale {
		if err := goOffline(tx, p); err != nil {
			return 0, err
		}
	}
	return len(stale), nil
}

// NextOffline returns the (virtual) time at which the location that has
// gone longest without a heartbeat turns offline unless it sends one; ok
// is false when no location counts as online.
func NextOffline(tx *store.Tx) (at time.Time, ok bool, err error) {
	hb, ok, err := tx.OldestOnlineHeartbeat()
	if err != nil || !ok {
		return time.Time{}, false, err
	}
	// Stale once now - hb > the window, in whole seconds.
	return time.Unix(hb+posOnlineSeconds+1, 0), true, nil
}
