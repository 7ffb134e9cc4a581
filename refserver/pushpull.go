package refserver

import (
	"net/http"
	"strconv"

	"github.com/go-chi/chi/v5"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/possync"
	"github.com/hospo-dev/hospo-go/refserver/internal/api"
	"github.com/hospo-dev/hospo-go/refserver/internal/checkwire"
	"github.com/hospo-dev/hospo-go/refserver/rules"
	"github.com/hospo-dev/hospo-go/refserver/store"
)

// The four POS push-pull endpoints (interface.md 4.8-4.11). All take a POS
// access token bound to one location: a user token is a 403001, and so is
// a location in the path or body other than the token's.
//
// A pushed check is stored as a bill, upserted by (locationId,
// checkNumber): the billId is made on the first push and stays; the
// version starts at 1 and moves only when a push changes the check's
// content (compared by a SHA-256 of its canonical JSON). The bill's
// lastUpdated is the time of the latest push that changed the content, so a
// POS re-sending an unchanged closed check does not move the bill in the
// closed-bills listing.

// handleCheckPush stores a check: POST /v1/pos/push-pull/check.
func (s *Server) handleCheckPush(r *http.Request) (api.Write, error) {
	q := api.RequestFrom(r.Context())
	push, err := checkwire.Decode(q.Body())
	if err != nil {
		return nil, err
	}
	loc := push.LocationID()
	// The location is checked before the content, so that a POS learns
	// nothing about the rules of a location it cannot write to.
	if loc != nil && !q.Principal().CanSeeLocation(*loc) {
		return nil, api.ErrMsg(client.CodeForbidden, "The check's locationId is not the location of this POS token.")
	}
	if err := push.Validate(); err != nil {
		return nil, err
	}
	row, err := store.NewCheckRow(&push.Check)
	if err != nil {
		return nil, err
	}
	return func(tx *store.Tx) (any, error) {
		p, err := rules.PushCheck(tx, row)
		if err != nil {
			return nil, err
		}
		return api.Located{
			Response: possync.PushResult{BillID: p.BillID, Version: p.Version, RequestInfo: s.api.Info(r)},
			Location: loc,
		}, nil
	}, nil
}

// handlePaymentsPoll serves GET /v1/pos/push-pull/payments/{locationId}
// (rules.PendingPayments).
func (s *Server) handlePaymentsPoll(r *http.Request) (api.Read, error) {
	loc, err := posLocation(r)
	if err != nil {
		return nil, err
	}
	return func(tx *store.Tx) (any, error) {
		checks, err := rules.PendingPayments(tx, loc)
		return possync.PaymentsResponse{Checks: checks, RequestInfo: s.api.Info(r)}, err
	}, nil
}

// handleAcceptPayment serves POST /v1/pos/push-pull/accept-payment
// (rules.AcceptPayment).
func (s *Server) handleAcceptPayment(r *http.Request) (api.Write, error) {
	var req possync.AcceptRequest
	if _, err := api.Decode(r, &req); err != nil {
		return nil, err
	}
	q := api.RequestFrom(r.Context())
	if err := rules.CheckAccept(q.Body(), &req); err != nil {
		return nil, err
	}
	return func(tx *store.Tx) (any, error) {
		res, err := rules.AcceptPayment(tx, q.Principal().LocationID, req.PaymentID)
		if err != nil {
			return nil, err
		}
		res.RequestInfo = s.api.Info(r)
		return res, nil
	}, nil
}

// handleHeartbeat serves POST /v1/pos/push-pull/heartbeat/{locationId}
// (rules.Heartbeat). A body, if any, is ignored (but read, like every
// body: one over the size limit is still a 413001).
func (s *Server) handleHeartbeat(r *http.Request) (api.Write, error) {
	loc, err := posLocation(r)
	if err != nil {
		return nil, err
	}
	return func(tx *store.Tx) (any, error) {
		res, err := rules.Heartbeat(tx, loc)
		if err != nil {
			return nil, err
		}
		res.RequestInfo = s.api.Info(r)
		return res, nil
	}, nil
}

// posLocation returns the {locationId} of the path when it is the POS
// token's location: 404001 when it is not an id at all, 403001 when it is
// another location's.
func posLocation(r *http.Request) (int64, error) {
	id, err := strconv.ParseInt(chi.URLParam(r, "locationId"), 10, 64)
	if err != nil || id <= 0 {
		return 0, api.NotFound("Location")
	}
	if !api.RequestFrom(r.Context()).Principal().CanSeeLocation(id) {
		return 0, api.ErrMsg(client.CodeForbidden, "This POS token is for another location.")
	}
	return id, nil
}
