package refserver

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/refserver/internal/api"
	"github.com/hospo-dev/hospo-go/refserver/rules"
	"github.com/hospo-dev/hospo-go/refserver/sim"
	"github.com/hospo-dev/hospo-go/refserver/store"
	"github.com/hospo-dev/hospo-go/wallet"
)

// handleGetUser serves GET /v1/user/me?scope=wallet (rules.GetWallet).
// scope may be absent (the wallet is included anyway: it is the only part
// of the user there is); any other scope is a 400003.
func (s *Server) handleGetUser(r *http.Request) (api.Read, error) {
	for _, sc := range r.URL.Query()["scope"] {
		for _, part := range strings.Split(sc, ",") {
			if part != "wallet" {
				return nil, api.ErrMsg(client.CodeInvalidQuery, "Unknown scope; the one scope is wallet.")
			}
		}
	}
	return func(tx *store.Tx) (any, error) {
		u, err := rules.GetWallet(tx, api.RequestFrom(r.Context()).Principal().UserID)
		return wallet.UserResponse{User: u, RequestInfo: s.api.Info(r)}, err
	}, nil
}

// handleCardInsert serves POST /v3/user/me/wallet/card/insert
// (rules.InsertCard).
func (s *Server) handleCardInsert(r *http.Request) (api.Write, error) {
	var req wallet.InsertCardRequest
	if _, err := api.Decode(r, &req); err != nil {
		return nil, err
	}
	q := api.RequestFrom(r.Context())
	if err := rules.CheckCardInsert(q.Body(), &req, s.clock.Now()); err != nil {
		return nil, err
	}
	var pbKey *sim.ProviderBKey
	err := s.db.Read(r.Context(), func(tx *store.Tx) (err error) {
		pbKey, err = rules.ProviderBKey(tx, &req)
		return err
	})
	if err != nil {
		return nil, err
	}
	return func(tx *store.Tx) (any, error) {
		cards, err := rules.InsertCard(tx, q.Principal().UserID, req, pbKey)
		if err != nil {
			return nil, err
		}
		return wallet.WalletResponse{Wallet: cards, RequestInfo: s.api.Info(r)}, nil
	}, nil
}

// handleSetCardStatus serves POST /sandbox/cards/{cardId}/status (admin;
// rules.SetCardStatus). It answers 200 with {}.
func (s sandboxAPI) handleSetCardStatus(r *http.Request) (api.Write, error) {
	cardID, ok := idParam(r, "cardId")
	if !ok {
		return nil, api.NotFound("Card")
	}
	var req rules.CardStatusRequest
	if _, err := api.Decode(r, &req); err != nil {
		return nil, err
	}
	if err := rules.CheckCardStatus(api.RequestFrom(r.Context()).Body(), &req); err != nil {
		return nil, err
	}
	return func(tx *store.Tx) (any, error) {
		if err := rules.SetCardStatus(tx, cardID, req); err != nil {
			return nil, err
		}
		return struct{}{}, nil
	}, nil
}

// idParam reads a positive integer path parameter; anything else names no
// resource (404001).
func idParam(r *http.Request, name string) (int64, bool) {
	id, err := strconv.ParseInt(chi.URLParam(r, name), 10, 64)
	return id, err == nil && id > 0
}
