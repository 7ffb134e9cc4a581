package rules

import (
	"errors"
	"time"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/refserver/internal/api"
	"github.com/hospo-dev/hospo-go/refserver/store"
	"github.com/hospo-dev/hospo-go/wallet"
)

// POSOnlineWindow is how old a POS's last heartbeat may be for its location
// to count as online: the 5-minute heartbeat interval plus a minute of grace.
const POSOnlineWindow = 6 * time.Minute

// posOnlineSeconds is POSOnlineWindow in the whole seconds heartbeats are
// stored in.
const posOnlineSeconds = int64(POSOnlineWindow / time.Second)

// GetLocation returns the location object of GET /v1/location/{id}
// (404001 for an unknown id); the bills' table.location scope shows the
// same object. posStatus is online while the POS's last heartbeat is at
// most POSOnlineWindow old at the transaction's time; universalPos is nil
// unless a universal POS is registered.
func GetLocation(tx *store.Tx, id int64) (wallet.Location, error) {
	l, err := tx.GetLocationDetails(id)
	if err != nil {
		return wallet.Location{}, notFound(err, "Location")
	}
	loc := wallet.Location{
		LocationID:             l.LocationID,
		Name:                   l.Name,
		LocationPaymentDetails: wallet.PaymentDetails{Gateway: wallet.Gateway(l.Gateway)},
		POSStatus:              wallet.POSStatusOffline,
	}
	if l.LastHeartbeat != nil {
		hb := unixTime(*l.LastHeartbeat)
		loc.LastHeartbeat = &hb
		if heartbeatFresh(*l.LastHeartbeat, tx.Unix()) {
			loc.POSStatus = wallet.POSStatusOnline
		}
	}
	if l.POSURL != nil {
		u := &wallet.UniversalPOS{Message: l.POSHealthMessage}
		if l.POSHealth != nil {
			h := wallet.POSHealth(*l.POSHealth)
			u.Health = &h
		}
		if l.POSHealthCheckedAt != nil {
			t := unixTime(*l.POSHealthCheckedAt)
			u.CheckedAt = &t
		}
		if l.MenuSyncedAt != nil {
			t := unixTime(*l.MenuSyncedAt)
			u.MenuSyncedAt = &t
		}
		loc.UniversalPOS = u
	}
	return loc, nil
}

// offlineContext is the contextData of a 409003: when the POS was last
// heard from, so the caller can tell a POS that never ran from one that
// stopped, and how long a heartbeat counts.
type offlineContext struct {
	LastHeartbeat       *int64 `json:"lastHeartbeat"` // Unix seconds; null when the POS never sent one
	OfflineAfterSeconds int64  `json:"offlineAfterSeconds"`
}

// locationOffline returns the 409003 of a location whose POS last sent a
// heartbeat at lastHeartbeat (Unix seconds; nil for never).
func locationOffline(lastHeartbeat *int64) *api.Error {
	e := api.Err(client.CodeLocationOffline)
	e.ContextData = offlineContext{LastHeartbeat: lastHeartbeat, OfflineAfterSeconds: posOnlineSeconds}
	return e
}

// heartbeatFresh reports whether a heartbeat at hb (Unix seconds) still
// counts the location as online at now: at most POSOnlineWindow ago (a
// heartbeat "from the future", after the virtual clock was moved, counts).
func heartbeatFresh(hb, now int64) bool {
	return now-hb <= posOnlineSeconds
}

// notFound turns store.ErrNotFound into the 404001 of kind (see
// api.NotFound) and passes any other error on.
func notFound(err error, kind string) error {
	if errors.Is(err, store.ErrNotFound) {
		return api.NotFound(kind)
	}
	return err
}

// unixTime converts Unix seconds to the wire time type.
func unixTime(sec int64) client.UnixTime { return client.UnixTime{Time: time.Unix(sec, 0).UTC()} }
