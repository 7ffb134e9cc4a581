package rules

import (
	"fmt"
	"strings"

	"github.com/hospo-dev/hospo-go/refserver/internal/api"
	"github.com/hospo-dev/hospo-go/refserver/sim"
	"github.com/hospo-dev/hospo-go/refserver/store"
	"github.com/hospo-dev/hospo-go/sandbox"
)

// DemoPOSRequest is the body of PUT /sandbox/locations/{locationId}/demo-pos.
// Pointers tell a count left out from one sent as 0.
type DemoPOSRequest struct {
	Mode      *string `json:"mode"`
	FailCount *int64  `json:"failCount"`
	DelayMs   *int64  `json:"delayMs"`
}

// The bounds and defaults of the demo POS modes.
const (
	maxDemoPOSFailCount     = 1000
	maxDemoPOSDelayMs       = 60_000
	defaultDemoPOSFailCount = 1
	defaultDemoPOSDelayMs   = 3000
)

// CheckDemoPOS checks a demo POS body raw, decoded into req: a 400002
// naming every failing field (an unknown mode, a count out of range), nil
// when none fails. A count the mode does not use is checked, then
// ignored, so that a form can send both.
func CheckDemoPOS(raw []byte, req *DemoPOSRequest) error {
	bad := missing(raw, "mode")
	if req.Mode != nil {
		if !sandbox.DemoPOSMode(*req.Mode).Known() {
			var names []string
			for _, m := range sandbox.DemoPOSModes() {
				names = append(names, string(m))
			}
			bad["mode"] = "must be one of " + strings.Join(names, ", ")
		}
	}
	if req.FailCount != nil && (*req.FailCount < 0 || *req.FailCount > maxDemoPOSFailCount) {
		bad["failCount"] = fmt.Sprintf("must be between 0 and %d", maxDemoPOSFailCount)
	}
	if req.DelayMs != nil && (*req.DelayMs < 1 || *req.DelayMs > maxDemoPOSDelayMs) {
		bad["delayMs"] = fmt.Sprintf("must be between 1 and %d", maxDemoPOSDelayMs)
	}
	if len(bad) > 0 {
		return api.Invalid(bad)
	}
	return nil
}

// SetDemoPOS wires a location to the demo universal POS of demo, in place
// of any POS it had, and sets the mode the POS answers it in. The caller
// has the POS monitor check the location again once this commits. req has
// passed CheckDemoPOS.
func SetDemoPOS(tx *store.Tx, demo sim.Demo, locationID int64, req DemoPOSRequest) (sandbox.DemoPOS, error) {
	if _, err := tx.GetLocationDetails(locationID); err != nil {
		return sandbox.DemoPOS{}, notFound(err, "Location")
	}
	m := store.DemoPOSMode{LocationID: locationID, Mode: *req.Mode}
	switch sandbox.DemoPOSMode(m.Mode) {
	case sandbox.DemoPOSFailThenAccept:
		m.FailCount = defaultDemoPOSFailCount
		if req.FailCount != nil {
			m.FailCount = *req.FailCount
		}
	case sandbox.DemoPOSSlow:
		m.DelayMs = defaultDemoPOSDelayMs
		if req.DelayMs != nil {
			m.DelayMs = *req.DelayMs
		}
	}
	if err := demo.WireLocation(tx, locationID); err != nil {
		return sandbox.DemoPOS{}, err
	}
	if err := tx.PutDemoPOSMode(m); err != nil {
		return sandbox.DemoPOS{}, err
	}
	return GetDemoPOS(tx, locationID)
}

// GetDemoPOS returns how the demo POS answers a location: accept when no
// mode was set. An unknown location is a 404001.
func GetDemoPOS(tx *store.Tx, locationID int64) (sandbox.DemoPOS, error) {
	if _, err := tx.GetLocationDetails(locationID); err != nil {
		return sandbox.DemoPOS{}, notFound(err, "Location")
	}
	m, err := tx.GetDemoPOSMode(locationID)
	if err != nil {
		return sandbox.DemoPOS{}, err
	}
	return sandbox.DemoPOS{
		LocationID: locationID, Mode: sandbox.DemoPOSMode(m.Mode),
		FailCount: int(m.FailCount), FailuresLeft: int(m.FailuresLeft), DelayMs: int(m.DelayMs),
	}, nil
}
