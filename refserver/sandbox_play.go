package refserver

import (
	"bytes"
	"net/http"
	"strconv"

	"github.com/go-chi/chi/v5"

	"github.com/hospo-dev/hospo-go/refserver/internal/api"
	"github.com/hospo-dev/hospo-go/refserver/rules"
	"github.com/hospo-dev/hospo-go/refserver/store"
	"github.com/hospo-dev/hospo-go/sandbox"
)

// The sandbox plays the other side (contract.md section 9): a diner who
// pays, diners on a timer, and the demo universal POS's modes.

// handlePayCheck is POST
// /sandbox/locations/{locationId}/checks/{checkNumber}/payments
// (rules.PayCheck). The body is optional: none pays what the check owes.
func (s sandboxAPI) handlePayCheck(r *http.Request) (api.Write, error) {
	locationID, ok := idParam(r, "locationId")
	if !ok {
		return nil, api.NotFound("Location")
	}
	checkNumber, err := strconv.ParseInt(chi.URLParam(r, "checkNumber"), 10, 64)
	if err != nil {
		return nil, api.NotFound("Check")
	}
	var req sandbox.PayCheckRequest
	if len(bytes.TrimSpace(api.RequestFrom(r.Context()).Body())) > 0 {
		decoded, err := api.Decode(r, &req)
		if err != nil {
			return nil, err
		}
		if err := api.WithDecoded(decoded, rules.CheckPayCheck(req)); err != nil {
			return nil, err
		}
	}
	return func(tx *store.Tx) (any, error) {
		p, err := rules.PayCheck(tx, locationID, checkNumber, req)
		if err != nil {
			return nil, err
		}
		return sandbox.PayCheckResponse{Payment: p}, nil
	}, nil
}

// handleSetDiners is PUT /sandbox/locations/{locationId}/diners
// (rules.SetDiners). The runner is woken once it commits, to plan the new
// first round.
func (s sandboxAPI) handleSetDiners(r *http.Request) (api.Write, error) {
	locationID, ok := idParam(r, "locationId")
	if !ok {
		return nil, api.NotFound("Location")
	}
	var req rules.DinersRequest
	decoded, err := api.Decode(r, &req)
	if err != nil {
		return nil, err
	}
	if err := api.WithDecoded(decoded, rules.CheckDiners(api.RequestFrom(r.Context()).Body(), &req)); err != nil {
		return nil, err
	}
	return func(tx *store.Tx) (any, error) {
		d, err := rules.SetDiners(tx, locationID, req)
		if err != nil {
			return nil, err
		}
		tx.AfterCommit(s.diners.Wake)
		return d, nil
	}, nil
}

// handleGetDiners is GET /sandbox/locations/{locationId}/diners
// (rules.GetDiners).
func (s sandboxAPI) handleGetDiners(r *http.Request) (api.Read, error) {
	return readLocation(r, func(tx *store.Tx, locationID int64) (any, error) {
		return rules.GetDiners(tx, locationID)
	})
}

// handleStopDiners is DELETE /sandbox/locations/{locationId}/diners
// (rules.StopDiners): 204, also when there were none.
func (s sandboxAPI) handleStopDiners(w http.ResponseWriter, r *http.Request) {
	locationID, ok := idParam(r, "locationId")
	if !ok {
		s.api.Error(w, r, api.NotFound("Location"))
		return
	}
	err := s.db.Write(r.Context(), func(tx *store.Tx) error { return rules.StopDiners(tx, locationID) })
	if err != nil {
		s.api.Error(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// handleSetDemoPOS is PUT /sandbox/locations/{locationId}/demo-pos
// (rules.SetDemoPOS). Once it commits, the POS monitor checks the
// location's POS again, so that its health and menu follow the mode at
// once.
func (s sandboxAPI) handleSetDemoPOS(r *http.Request) (api.Write, error) {
	locationID, ok := idParam(r, "locationId")
	if !ok {
		return nil, api.NotFound("Location")
	}
	var req rules.DemoPOSRequest
	decoded, err := api.Decode(r, &req)
	if err != nil {
		return nil, err
	}
	if err := api.WithDecoded(decoded, rules.CheckDemoPOS(api.RequestFrom(r.Context()).Body(), &req)); err != nil {
		return nil, err
	}
	return func(tx *store.Tx) (any, error) {
		d, err := rules.SetDemoPOS(tx, s.demo, locationID, req)
		if err != nil {
			return nil, err
		}
		tx.AfterCommit(func() { s.monitor.Registered(locationID) })
		return d, nil
	}, nil
}

// handleGetDemoPOS is GET /sandbox/locations/{locationId}/demo-pos
// (rules.GetDemoPOS).
func (s sandboxAPI) handleGetDemoPOS(r *http.Request) (api.Read, error) {
	return readLocation(r, func(tx *store.Tx, locationID int64) (any, error) {
		return rules.GetDemoPOS(tx, locationID)
	})
}

// readLocation is the Read of a GET about the location of the path,
// answered with what rule reads of it.
func readLocation(r *http.Request, rule func(tx *store.Tx, locationID int64) (any, error)) (api.Read, error) {
	locationID, ok := idParam(r, "locationId")
	if !ok {
		return nil, api.NotFound("Location")
	}
	return func(tx *store.Tx) (any, error) { return rule(tx, locationID) }, nil
}
