package wallet

import (
	"context"
	"net/http"
	"strconv"

	"github.com/hospo-dev/hospo-go/client"
)

// POSStatus says whether a location's POS is reachable for payments.
// Unknown values are kept as they are.
type POSStatus string

// The POS statuses. A location is online while its POS's last heartbeat is
// at most 6 minutes old; payments at an offline location fail with 409003.
const (
	POSStatusOnline  POSStatus = "online"
	POSStatusOffline POSStatus = "offline"
)

// String returns the status text.
func (s POSStatus) String() string { return string(s) }

// POSHealth is the last health check result of a location's universal POS.
type POSHealth string

// The health results. Unknown values are kept as they are.
const (
	POSHealthOK          POSHealth = "OK"
	POSHealthFailed      POSHealth = "FAILED"      // the POS answered that it is not healthy
	POSHealthUnreachable POSHealth = "UNREACHABLE" // no valid answer, a timeout included
)

// String returns the health text.
func (h POSHealth) String() string { return string(h) }

// Location is a location's public details (GET /v1/location/{id}).
type Location struct {
	LocationID int64  `json:"locationId"`
	Name       string `json:"name"`
	// LocationPaymentDetails.Gateway is the provider the location pays
	// through; a card needs that provider's token to pay there.
	LocationPaymentDetails PaymentDetails `json:"locationPaymentDetails"`
	POSStatus              POSStatus      `json:"posStatus"`
	// LastHeartbeat is the time of the POS's last heartbeat; nil before the
	// first.
	LastHeartbeat *client.UnixTime `json:"lastHeartbeat"`
	// UniversalPOS describes the location's universal POS; nil when the
	// location has none registered.
	UniversalPOS *UniversalPOS `json:"universalPos"`
}

// PaymentDetails is a location's locationPaymentDetails.
type PaymentDetails struct {
	Gateway Gateway `json:"gateway"`
}

// UniversalPOS is the state of a location's universal POS as the service
// last saw it. Every field is nil until the first health check or menu sync.
type UniversalPOS struct {
	Health       *POSHealth       `json:"health"`
	Message      *string          `json:"message"`
	CheckedAt    *client.UnixTime `json:"checkedAt"`
	MenuSyncedAt *client.UnixTime `json:"menuSyncedAt"`
}

// LocationResponse is the body of GET /v1/location/{id}.
type LocationResponse struct {
	Location    Location           `json:"location"`
	RequestInfo client.RequestInfo `json:"requestInfo"`
}

// GetLocation returns a location's details, including the payment provider
// it uses. The endpoint needs no credential.
//
// GET /v1/location/{id}
func (s *Service) GetLocation(ctx context.Context, locationID int64, opts ...client.Option) (Location, error) {
	var out LocationResponse
	_, err := s.c.Do(ctx, &client.Request{
		Method: http.MethodGet,
		Route:  "/v1/location/{locationId}",
		Params: []string{strconv.FormatInt(locationID, 10)},
		Auth:   client.AuthNone,
	}, &out, opts...)
	if err != nil {
		return Location{}, err
	}
	return out.Location, nil
}
