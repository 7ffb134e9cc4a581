package sandbox

import (
	"context"
	"net/http"
	"slices"
	"strconv"

	"github.com/hospo-dev/hospo-go/client"
)

// DemoPOSMode is how the sandbox's demo universal POS treats a location.
// A mode this package does not know decodes without error and keeps its
// text.
type DemoPOSMode string

// The demo POS modes.
const (
	// DemoPOSAccept accepts every order it can (the default).
	DemoPOSAccept DemoPOSMode = "accept"
	// DemoPOSReject refuses every order with a 422: the order is failed.
	DemoPOSReject DemoPOSMode = "reject"
	// DemoPOSFailThenAccept answers the next FailCount orders 503, which
	// the service retries with backoff, then accepts.
	DemoPOSFailThenAccept DemoPOSMode = "fail-then-accept"
	// DemoPOSSlow answers everything after DelayMs; beyond the service's
	// timeout (10 s for an order) that is a timeout, retried like a 503.
	DemoPOSSlow DemoPOSMode = "slow"
	// DemoPOSOffline reports its health FAILED and answers orders (and
	// menus) 503: the location's POS shows offline.
	DemoPOSOffline DemoPOSMode = "offline"
)

// String returns the mode's wire name.
func (m DemoPOSMode) String() string { return string(m) }

// DemoPOSModes returns every mode of the demo universal POS, the default
// (DemoPOSAccept) first.
func DemoPOSModes() []DemoPOSMode { return slices.Clone(demoPOSModes) }

var demoPOSModes = []DemoPOSMode{DemoPOSAccept, DemoPOSReject, DemoPOSFailThenAccept, DemoPOSSlow, DemoPOSOffline}

// Known reports whether m is one of the modes of this package.
func (m DemoPOSMode) Known() bool { return slices.Contains(demoPOSModes, m) }

// DemoPOSRequest is the body of PUT /sandbox/locations/{locationId}/demo-pos.
type DemoPOSRequest struct {
	Mode DemoPOSMode `json:"mode"`
	// FailCount is how many orders fail before the POS accepts, for
	// DemoPOSFailThenAccept only: 0 to 1000; 0 means 1.
	FailCount int `json:"failCount,omitempty"`
	// DelayMs is how long each answer waits, for DemoPOSSlow only: 1 to
	// 60000 milliseconds; 0 means 3000.
	DelayMs int `json:"delayMs,omitempty"`
}

// DemoPOS is the demo universal POS as a location sees it.
type DemoPOS struct {
	LocationID int64       `json:"locationId"`
	Mode       DemoPOSMode `json:"mode"`
	// FailCount is the failures the mode was set with, and FailuresLeft
	// those still to come (DemoPOSFailThenAccept).
	FailCount    int `json:"failCount"`
	FailuresLeft int `json:"failuresLeft"`
	// DelayMs is the delay of DemoPOSSlow.
	DelayMs int `json:"delayMs"`
}

// SetDemoPOS wires a location to the demo universal POS, replacing any
// other POS it had, and sets how the POS behaves for it: to see what
// ordering does when the POS refuses, fails for a while, is slow or is
// down. The POS's health and menu are checked again at once. An unknown
// location is a 404001; a bad mode or count a 400002.
//
// PUT /sandbox/locations/{locationId}/demo-pos
func (s *Service) SetDemoPOS(ctx context.Context, locationID int64, req DemoPOSRequest, opts ...client.Option) (DemoPOS, error) {
	var out DemoPOS
	_, err := s.c.Do(ctx, &client.Request{
		Method: http.MethodPut,
		Route:  "/sandbox/locations/{locationId}/demo-pos",
		Params: []string{strconv.FormatInt(locationID, 10)},
		Body:   req,
		Auth:   client.AuthAdminKey,
	}, &out, opts...)
	if err != nil {
		return DemoPOS{}, err
	}
	return out, nil
}

// DemoPOS returns how the demo universal POS behaves for a location
// (DemoPOSAccept when no mode was set).
//
// GET /sandbox/locations/{locationId}/demo-pos
func (s *Service) DemoPOS(ctx context.Context, locationID int64, opts ...client.Option) (DemoPOS, error) {
	var out DemoPOS
	_, err := s.c.Do(ctx, &client.Request{
		Method: http.MethodGet,
		Route:  "/sandbox/locations/{locationId}/demo-pos",
		Params: []string{strconv.FormatInt(locationID, 10)},
		Auth:   client.AuthAdminKey,
	}, &out, opts...)
	if err != nil {
		return DemoPOS{}, err
	}
	return out, nil
}
