package refserver

import (
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/hospo-dev/hospo-go/fulfillment"
	"github.com/hospo-dev/hospo-go/refserver/internal/api"
	"github.com/hospo-dev/hospo-go/refserver/rules"
	"github.com/hospo-dev/hospo-go/refserver/store"
)

// handleCreateOrder serves POST /ordering/v3/order (rules.CreateOrder).
func (s *Server) handleCreateOrder(r *http.Request) (api.Write, error) {
	var req fulfillment.OrderRequest
	if _, err := api.Decode(r, &req); err != nil {
		return nil, err
	}
	q := api.RequestFrom(r.Context())
	bad := rules.CheckOrder(q.Body(), &req)
	return func(tx *store.Tx) (any, error) {
		o, err := rules.CreateOrder(tx, q.Principal().UserID, req, bad)
		if err != nil {
			return nil, err
		}
		o.RequestInfo = s.api.Info(r)
		return o, nil
	}, nil
}

// handleGetOrder serves GET /ordering/v3/order/{orderId} (rules.GetOrder).
func (s *Server) handleGetOrder(r *http.Request) (api.Read, error) {
	return func(tx *store.Tx) (any, error) {
		o, err := rules.GetOrder(tx, api.RequestFrom(r.Context()).Principal().UserID, chi.URLParam(r, "orderId"))
		return fulfillment.OrderResponse{Order: o, RequestInfo: s.api.Info(r)}, err
	}, nil
}

// handleSetFulfillment serves the four POST
// /ordering/v3/order/{orderId}/fulfillment-type/{method} endpoints
// (rules.SetFulfillment), answering 202 with {}. The first fulfillment of
// an order wakes the dispatcher, which sends it to the location's POS.
func (s *Server) handleSetFulfillment(r *http.Request) (api.Write, error) {
	t := fulfillment.Type(chi.URLParam(r, "method"))
	if !t.Known() {
		// Each fulfillment type is an endpoint of its own: another one
		// is no route, like any path the router does not know.
		return nil, api.RouteNotFound(r)
	}
	q := api.RequestFrom(r.Context())
	m, err := rules.DecodeFulfillment(t, q.Body())
	if err != nil {
		return nil, err
	}
	return func(tx *store.Tx) (any, error) {
		set, err := rules.SetFulfillment(tx, q.Principal().UserID, chi.URLParam(r, "orderId"), m)
		if err != nil {
			return nil, err
		}
		if set {
			tx.AfterCommit(s.orders.Wake)
		}
		return struct{}{}, nil
	}, nil
}
