package fulfillment

import (
	"context"
	"fmt"
	"strconv"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/universalpos"
)

// LocationMenu is the body of GET /v2/location/{id}/menu: the menus last
// synced from the location's universal POS.
type LocationMenu struct {
	// Menus in the universal format. Empty until the first sync.
	Menus []universalpos.Menu `json:"menus"`
	// SyncedAt is when the menus were fetched from the POS; the zero time
	// (null on the wire) until the first sync.
	SyncedAt    client.UnixTime    `json:"syncedAt"`
	RequestInfo client.RequestInfo `json:"requestInfo"`
}

// Menu returns a location's menus, as a kiosk needs them to build an order.
// It needs no credential.
//
// GET /v2/location/{id}/menu
func (s *Service) Menu(ctx context.Context, locationID int64, opts ...client.Option) (LocationMenu, error) {
	var out LocationMenu
	_, err := s.c.Do(ctx, &client.Request{
		Method: "GET",
		Route:  "/v2/location/{id}/menu",
		Params: []string{strconv.FormatInt(locationID, 10)},
		Auth:   client.AuthNone,
	}, &out, opts...)
	if err != nil {
		return LocationMenu{}, fmt.Errorf("fulfillment: get menu: %w", err)
	}
	return out, nil
}
