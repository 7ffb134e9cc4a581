package refserver

import (
	"errors"
	"net/http"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/refserver/internal/api"
	"github.com/hospo-dev/hospo-go/refserver/store"
	"github.com/hospo-dev/hospo-go/wallet"
)

// paymentResponse is the body of both payment endpoints.
type paymentResponse struct {
	Payment     wallet.Payment     `json:"payment"`
	RequestInfo client.RequestInfo `json:"requestInfo"`
}

// handleCreatePayment serves POST /payments/v1/payment: a pending payment
// towards a check, which the location's POS then sees in its payments poll
// until it accepts it. The checks run in this order, each failing with
// its own code:
//
//  1. the body: every field present, at most two decimals, and
//     wallet.CreatePaymentRequest.Validate's rules (400002);
//  2. the location, the card (the user's own) and the check's bill exist
//     (404001; another user's card looks exactly like an unknown one, and
//     a void check cannot be paid);
//  3. the card's status is Live or Temporary (409005);
//  4. the card holds a token for the location's gateway (404006);
//  5. the location's POS is online (409003);
//  6. amount <= outstanding minus the payments the POS has not accepted
//     yet (409002);
//  7. the provider accepts the token (402001 for the decline test card).
//
// Everything runs in one transaction, so two concurrent payments cannot
// both fit into the same outstanding amount.
func (s *Server) handleCreatePayment(_ http.ResponseWriter, r *http.Request) (api.Write, error) {
	var req wallet.CreatePaymentRequest
	decoded, err := api.Decode(r, &req)
	if err != nil {
		return nil, err
	}
	if bad := withDecoded(decoded, checkPaymentRequest(api.RequestFrom(r.Context()).Body(), &req)); bad != nil {
		return nil, validationErr(bad)
	}
	userID := api.RequestFrom(r.Context()).Principal().UserID
	return func(tx *store.Tx) (any, error) {
		loc, err := tx.GetLocationDetails(req.LocationID)
		if err != nil {
			return nil, notFoundAs404(err)
		}
		card, err := tx.GetCard(req.CardID)
		if err != nil {
			return nil, notFoundAs404(err)
		}
		if card.UserID != userID {
			return nil, apiErr(client.CodeNotFound)
		}
		bill, err := tx.GetPayableBill(req.LocationID, req.CheckNumber)
		if err != nil {
			return nil, notFoundAs404(err)
		}
		if bill.Status == "void" {
			return nil, apiErr(client.CodeNotFound)
		}
		if !wallet.CardStatus(card.CardStatusID).Usable() {
			return nil, apiErr(client.CodeCardNotUsable)
		}
		token, err := tx.CardToken(card.CardID, loc.Gateway)
		if errors.Is(err, store.ErrNotFound) {
			// The message is interface.md's, word for word; the gateway
			// the card lacks goes in contextData.
			e := apiErr(client.CodeCardNotTokenised)
			e.ContextData = map[string]string{"gateway": loc.Gateway}
			return nil, e
		}
		if err != nil {
			return nil, err
		}
		if loc.LastHeartbeat == nil || !heartbeatFresh(*loc.LastHeartbeat, tx.Unix()) {
			return nil, apiErr(client.CodeLocationOffline)
		}
		pending, err := tx.PendingPaymentsTotal(bill.BillID)
		if err != nil {
			return nil, err
		}
		if req.Amount.Cents() > bill.OutstandingAmount-pending {
			return nil, apiErr(client.CodeAmountExceedsOutstanding)
		}
		pt, err := tx.GetProviderToken(token)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return nil, err
		}
		if err == nil && pt.Decline {
			return nil, apiErr(client.CodePaymentDeclined)
		}
		p, err := tx.InsertPaymentRecord(store.PaymentRecord{
			LocationID:  req.LocationID,
			CheckNumber: req.CheckNumber,
			BillID:      bill.BillID,
			UserID:      userID,
			CardID:      card.CardID,
			Amount:      req.Amount.Cents(),
			Tip:         req.Tip.Cents(),
		})
		if err != nil {
			return nil, err
		}
		return paymentResponse{Payment: walletPayment(p), RequestInfo: s.api.Info(r)}, nil
	}, nil
}

// handleGetPayment serves GET /payments/v1/payment/{paymentId}: one of the
// user's payments; another user's is a 404001, like an unknown one.
func (s *Server) handleGetPayment(w http.ResponseWriter, r *http.Request) {
	id, ok := walletIDParam(r, "paymentId")
	if !ok {
		s.api.Error(w, r, apiErr(client.CodeNotFound))
		return
	}
	userID := api.RequestFrom(r.Context()).Principal().UserID
	var p store.PaymentRecord
	err := s.db.Read(r.Context(), func(tx *store.Tx) error {
		var err error
		if p, err = tx.GetPaymentRecord(id); err != nil {
			return notFoundAs404(err)
		}
		if p.UserID != userID {
			return apiErr(client.CodeNotFound)
		}
		return nil
	})
	if err != nil {
		s.api.Error(w, r, err)
		return
	}
	s.api.JSON(w, r, http.StatusOK, paymentResponse{Payment: walletPayment(p), RequestInfo: s.api.Info(r)})
}

// walletPayment renders a stored payment.
func walletPayment(p store.PaymentRecord) wallet.Payment {
	return wallet.Payment{
		PaymentID:   p.PaymentID,
		LocationID:  p.LocationID,
		CheckNumber: p.CheckNumber,
		BillID:      p.BillID,
		CardID:      p.CardID,
		Amount:      client.MoneyFromCents(p.Amount),
		Tip:         client.MoneyFromCents(p.Tip),
		Status:      wallet.PaymentStatus(p.Status),
		CreatedAt:   unixTime(p.CreatedAt),
	}
}

// notFoundAs404 turns store.ErrNotFound into a 404001 and passes any other
// error on.
func notFoundAs404(err error) error {
	if errors.Is(err, store.ErrNotFound) {
		return apiErr(client.CodeNotFound)
	}
	return err
}
