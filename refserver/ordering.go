package refserver

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/fulfillment"
	"github.com/hospo-dev/hospo-go/refserver/internal/api"
	"github.com/hospo-dev/hospo-go/refserver/store"
	"github.com/hospo-dev/hospo-go/universalpos"
)

// handleCreateOrder serves POST /ordering/v3/order: it checks the order
// against the location's synced menu, prices it from the menu and stores
// it in status created.
func (s *Server) handleCreateOrder(_ http.ResponseWriter, r *http.Request) (api.Write, error) {
	var req fulfillment.OrderRequest
	if _, err := api.Decode(r, &req); err != nil {
		return nil, err
	}
	q := api.RequestFrom(r.Context())
	bad := checkOrderRequest(q.Body(), &req)
	userID := q.Principal().UserID
	return func(tx *store.Tx) (any, error) {
		var lm *locationMenus // nil: no location to check the lines against
		if !bad.Has("locationId") {
			m, err := loadMenus(tx, req.LocationID)
			if errors.Is(err, store.ErrNotFound) {
				return nil, apiErr(client.CodeNotFound)
			}
			if err != nil {
				return nil, err
			}
			lm = &m
		}
		items, total, lineErrs := priceOrder(lm, req.Items)
		bad.MergeFields(lineErrs)
		if bad.Len() > 0 {
			return nil, validationErr(bad.Map())
		}
		itemsJSON, err := json.Marshal(items)
		if err != nil {
			return nil, err
		}
		id := newOrderID()
		if err := tx.InsertOrder(id, userID, req.LocationID, string(itemsJSON), total.Cents()); err != nil {
			return nil, err
		}
		return fulfillment.CreatedOrder{OrderID: id, Total: total, RequestInfo: s.api.Info(r)}, nil
	}, nil
}

// handleGetOrder serves GET /ordering/v3/order/{orderId}. Another user's
// order is 404001, like one that does not exist.
func (s *Server) handleGetOrder(w http.ResponseWriter, r *http.Request) {
	var o store.Order
	err := s.db.Read(r.Context(), func(tx *store.Tx) error {
		var err error
		o, err = userOrder(r.Context(), tx, chi.URLParam(r, "orderId"))
		return err
	})
	if err != nil {
		s.api.Error(w, r, err)
		return
	}
	order, err := orderResource(o)
	if err != nil {
		s.api.Error(w, r, err)
		return
	}
	s.api.JSON(w, r, http.StatusOK, fulfillment.OrderResponse{Order: order, RequestInfo: s.api.Info(r)})
}

// handleSetFulfillment serves the four POST
// /ordering/v3/order/{orderId}/fulfillment-type/{method} endpoints. The
// first fulfillment moves the order to fulfillment_set and wakes the
// dispatcher; the same method with the same fields again is accepted
// without effect (202); anything else is 409001.
func (s *Server) handleSetFulfillment(_ http.ResponseWriter, r *http.Request) (api.Write, error) {
	t := fulfillment.Type(chi.URLParam(r, "method"))
	if !t.Known() {
		return nil, apiErr(client.CodeNotFound)
	}
	m, err := parseFulfillment(t, api.RequestFrom(r.Context()).Body())
	if err != nil {
		return nil, err
	}
	canonical, err := canonicalFulfillment(m)
	if err != nil {
		return nil, err
	}
	orderID := chi.URLParam(r, "orderId")
	return func(tx *store.Tx) (any, error) {
		o, err := userOrder(r.Context(), tx, orderID)
		if err != nil {
			return nil, err
		}
		if o.FulfillmentType != nil {
			if *o.FulfillmentType == string(t) && o.FulfillmentJSON != nil && *o.FulfillmentJSON == canonical {
				return struct{}{}, nil
			}
			return nil, apiErr(client.CodeFulfillmentAlreadySet)
		}
		if err := tx.SetOrderFulfillment(o.OrderID, string(t), canonical); err != nil {
			if errors.Is(err, store.ErrNotFound) {
				// Not in status created without a fulfillment: cannot
				// happen while writes are serialised, but never set twice.
				return nil, apiErr(client.CodeFulfillmentAlreadySet)
			}
			return nil, err
		}
		tx.AfterCommit(s.orders.Wake)
		return struct{}{}, nil
	}, nil
}

// userOrder returns the order if it belongs to the request's user, and a
// 404001 otherwise (never telling which).
func userOrder(ctx context.Context, tx *store.Tx, orderID string) (store.Order, error) {
	if orderID == "" || len(orderID) > 64 {
		return store.Order{}, apiErr(client.CodeNotFound)
	}
	o, err := tx.GetOrder(orderID)
	if errors.Is(err, store.ErrNotFound) {
		return store.Order{}, apiErr(client.CodeNotFound)
	}
	if err != nil {
		return store.Order{}, err
	}
	if p := api.RequestFrom(ctx).Principal(); p.Kind != api.KindUser || p.UserID != o.UserID {
		return store.Order{}, apiErr(client.CodeNotFound)
	}
	return o, nil
}

// orderResource turns an orders row into the order of the API.
func orderResource(o store.Order) (fulfillment.Order, error) {
	out := fulfillment.Order{
		OrderID:    o.OrderID,
		LocationID: o.LocationID,
		Total:      client.MoneyFromCents(o.Total),
		Status:     fulfillment.Status(o.Status),
		POSOrderID: o.POSOrderID,
		CreatedAt:  client.UnixTime{Time: time.Unix(o.CreatedAt, 0).UTC()},
	}
	if err := json.Unmarshal([]byte(o.ItemsJSON), &out.Items); err != nil {
		return fulfillment.Order{}, fmt.Errorf("order %s: items_json: %w", o.OrderID, err)
	}
	if out.Items == nil {
		out.Items = []universalpos.OrderItem{}
	}
	if o.FulfillmentType != nil {
		out.FulfillmentType = fulfillment.Type(*o.FulfillmentType)
	}
	if o.FulfillmentJSON != nil {
		out.Fulfillment = json.RawMessage(*o.FulfillmentJSON)
	}
	return out, nil
}

// newOrderID returns a random (version 4) UUID.
func newOrderID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	const hexdigits = "0123456789abcdef"
	out := make([]byte, 0, 36)
	for i, c := range b {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			out = append(out, '-')
		}
		out = append(out, hexdigits[c>>4], hexdigits[c&0x0f])
	}
	return string(out)
}
