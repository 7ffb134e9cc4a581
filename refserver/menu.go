package refserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/fulfillment"
	"github.com/hospo-dev/hospo-go/refserver/store"
	"github.com/hospo-dev/hospo-go/universalpos"
)

// locationMenus is a location's menu cache, decoded.
type locationMenus struct {
	menus []universalpos.Menu
	// syncedAt is the zero time before the first sync.
	syncedAt time.Time
}

// loadMenus reads the menus last synced from a location's universal POS.
// An unknown location is store.ErrNotFound; a location whose menu has not
// been synced has no menus and a zero syncedAt.
func loadMenus(tx *store.Tx, locationID int64) (locationMenus, error) {
	m, err := tx.GetLocationMenu(locationID)
	if err != nil {
		return locationMenus{}, err
	}
	var out locationMenus
	if m.SyncedAt != nil {
		out.syncedAt = time.Unix(*m.SyncedAt, 0).UTC()
	}
	if m.MenuJSON != nil {
		if out.menus, err = decodeMenuJSON([]byte(*m.MenuJSON)); err != nil {
			return locationMenus{}, fmt.Errorf("location %d: menu_json: %w", locationID, err)
		}
	}
	if out.menus == nil {
		out.menus = []universalpos.Menu{}
	}
	return out, nil
}

// decodeMenuJSON reads locations.menu_json: the array of menus as synced, or
// the POS's whole {"menus": [...]} body.
func decodeMenuJSON(b []byte) ([]universalpos.Menu, error) {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || string(b) == "null" {
		return nil, nil
	}
	var menus []universalpos.Menu
	if b[0] == '{' {
		var body struct {
			Menus []universalpos.Menu `json:"menus"`
		}
		err := json.Unmarshal(b, &body)
		return body.Menus, err
	}
	err := json.Unmarshal(b, &menus)
	return menus, err
}

// locationIDParam reads a positive integer path parameter; anything else names
// no resource (404001).
func locationIDParam(r *http.Request, name string) (int64, bool) {
	id, err := strconv.ParseInt(chi.URLParam(r, name), 10, 64)
	return id, err == nil && id > 0
}

// handleLocationMenu serves GET /v2/location/{id}/menu: the location's
// menus in the universal format, for kiosks. It needs no credential: a
// menu is public.
func (s *Server) handleLocationMenu(w http.ResponseWriter, r *http.Request) {
	id, ok := locationIDParam(r, "id")
	if !ok {
		s.api.Error(w, r, apiErr(client.CodeNotFound))
		return
	}
	var lm locationMenus
	err := s.db.Read(r.Context(), func(tx *store.Tx) error {
		var err error
		lm, err = loadMenus(tx, id)
		return err
	})
	if errors.Is(err, store.ErrNotFound) {
		err = apiErr(client.CodeNotFound)
	}
	if err != nil {
		s.api.Error(w, r, err)
		return
	}
	s.api.JSON(w, r, http.StatusOK, fulfillment.LocationMenu{
		Menus:       lm.menus,
		SyncedAt:    client.UnixTime{Time: lm.syncedAt},
		RequestInfo: s.api.Info(r),
	})
}
