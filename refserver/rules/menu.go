package rules

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/fulfillment"
	"github.com/hospo-dev/hospo-go/refserver/store"
	"github.com/hospo-dev/hospo-go/universalpos"
)

// GetMenu returns the menus last synced from a location's universal POS,
// in the universal format, for kiosks (GET /v2/location/{id}/menu): no
// menus and a zero SyncedAt before the first sync, a 404001 for an unknown
// location.
func GetMenu(tx *store.Tx, locationID int64) (fulfillment.LocationMenu, error) {
	lm, err := loadMenus(tx, locationID)
	if err != nil {
		return fulfillment.LocationMenu{}, notFound(err, "Location")
	}
	return fulfillment.LocationMenu{Menus: lm.menus, SyncedAt: client.UnixTime{Time: lm.syncedAt}}, nil
}

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
