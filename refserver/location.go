package refserver

import (
	"errors"
	"net/http"
	"time"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/refserver/store"
	"github.com/hospo-dev/hospo-go/wallet"
)

// posOnlineWindow is how old a POS's last heartbeat may be for its location
// to count as online: the 5-minute heartbeat interval plus a minute of grace.
const posOnlineWindow = 6 * time.Minute

// locationResponse is the body of GET /v1/location/{id}.
type locationResponse struct {
	Location    wallet.Location    `json:"location"`
	RequestInfo client.RequestInfo `json:"requestInfo"`
}

// handleGetLocation serves GET /v1/location/{locationId}: the location's
// public details, needing no credential. posStatus is online while the
// POS's last heartbeat is at most posOnlineWindow old on the virtual
// clock; universalPos is null unless a universal POS is registered.
func (s *Server) handleGetLocation(w http.ResponseWriter, r *http.Request) {
	id, ok := walletIDParam(r, "locationId")
	if !ok {
		s.api.Error(w, r, apiErr(client.CodeNotFound))
		return
	}
	var loc wallet.Location
	err := s.db.Read(r.Context(), func(tx *store.Tx) error {
		var err error
		loc, err = locationDetails(tx, id)
		return err
	})
	if err != nil {
		s.api.Error(w, r, err)
		return
	}
	s.api.JSON(w, r, http.StatusOK, locationResponse{Location: loc, RequestInfo: s.api.Info(r)})
}

// locationDetails builds the location object of GET /v1/location/{id}
// (404001 for an unknown id). The bills area's table.location scope shows
// the same object.
func locationDetails(tx *store.Tx, id int64) (wallet.Location, error) {
	l, err := tx.GetLocationDetails(id)
	if errors.Is(err, store.ErrNotFound) {
		return wallet.Location{}, apiErr(client.CodeNotFound)
	}
	if err != nil {
		return wallet.Location{}, err
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

// heartbeatFresh reports whether a heartbeat at hb (Unix seconds) still
// counts the location as online at now: at most posOnlineWindow ago (a
// heartbeat "from the future", after the virtual clock was moved, counts).
func heartbeatFresh(hb, now int64) bool {
	return now-hb <= int64(posOnlineWindow.Seconds())
}
