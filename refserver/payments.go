package refserver

import (
	"net/http"

	"github.com/hospo-dev/hospo-go/refserver/internal/api"
	"github.com/hospo-dev/hospo-go/refserver/rules"
	"github.com/hospo-dev/hospo-go/refserver/store"
	"github.com/hospo-dev/hospo-go/wallet"
)

// handleCreatePayment serves POST /payments/v1/payment (rules.CreatePayment).
func (s *Server) handleCreatePayment(r *http.Request) (api.Write, error) {
	var req wallet.CreatePaymentRequest
	decoded, err := api.Decode(r, &req)
	if err != nil {
		return nil, err
	}
	q := api.RequestFrom(r.Context())
	if err := api.WithDecoded(decoded, rules.CheckPayment(q.Body(), &req)); err != nil {
		return nil, err
	}
	return func(tx *store.Tx) (any, error) {
		p, err := rules.CreatePayment(tx, q.Principal().UserID, req)
		if err != nil {
			return nil, err
		}
		return wallet.PaymentResponse{Payment: p, RequestInfo: s.api.Info(r)}, nil
	}, nil
}

// handleGetPayment serves GET /payments/v1/payment/{paymentId} (rules.GetPayment).
func (s *Server) handleGetPayment(r *http.Request) (api.Read, error) {
	id, ok := idParam(r, "paymentId")
	if !ok {
		return nil, api.NotFound("Payment")
	}
	return func(tx *store.Tx) (any, error) {
		p, err := rules.GetPayment(tx, api.RequestFrom(r.Context()).Principal().UserID, id)
		return wallet.PaymentResponse{Payment: p, RequestInfo: s.api.Info(r)}, err
	}, nil
}
