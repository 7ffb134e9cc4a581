package refserver

import (
	"errors"
	"maps"
	"net/http"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/internal/cardnum"
	"github.com/hospo-dev/hospo-go/refserver/internal/api"
	"github.com/hospo-dev/hospo-go/refserver/sandbox"
	"github.com/hospo-dev/hospo-go/refserver/store"
	"github.com/hospo-dev/hospo-go/wallet"
)

// The wallet, user, providerD key, location and payment endpoints, with the
// sandbox providers and the sandbox admin call that changes a card's
// status.
//
// Wallet rules (interface.md 2.3, 4.1):
//   - Every card insert makes one wallet entry, holding the token of each
//     provider it was sent for (providerBCse, providerDToken or both). The
//     same physical card inserted again, for the same or another provider,
//     is a new entry.
//   - The user's first entry becomes the default card; "default": true
//     makes the new entry the default.
//   - "save": false inserts a Temporary Card (status 4); true or absent, a
//     Live card (status 1).
//   - The card type comes from the first six digits (see cardTypeForBIN).
//   - first6Digits, last4Digits and the expiry must match the card the
//     provider tokenised.

// walletResponse is the body of a card insert.
type walletResponse struct {
	Wallet      []wallet.Card      `json:"wallet"`
	RequestInfo client.RequestInfo `json:"requestInfo"`
}

// userResponse is the body of GET /v1/user/me.
type userResponse struct {
	User        wallet.User        `json:"user"`
	RequestInfo client.RequestInfo `json:"requestInfo"`
}

// handleGetUser serves GET /v1/user/me?scope=wallet: the user with their
// wallet. scope may be absent (the wallet is included anyway: it is the
// only part of the user there is); any other scope is a 400003.
func (s *Server) handleGetUser(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if scopes, ok := q["scope"]; ok {
		for _, sc := range scopes {
			for _, part := range strings.Split(sc, ",") {
				if part != "wallet" {
					s.api.Error(w, r, apiErrMsg(client.CodeInvalidQuery, "Unknown scope; the one scope is wallet."))
					return
				}
			}
		}
	}
	userID := api.RequestFrom(r.Context()).Principal().UserID
	var u wallet.User
	err := s.db.Read(r.Context(), func(tx *store.Tx) error {
		var err error
		u, err = loadWalletUser(tx, userID)
		return err
	})
	if err != nil {
		s.api.Error(w, r, err)
		return
	}
	s.api.JSON(w, r, http.StatusOK, userResponse{User: u, RequestInfo: s.api.Info(r)})
}

// loadWalletUser reads the user and their wallet.
func loadWalletUser(tx *store.Tx, userID int64) (wallet.User, error) {
	row, err := tx.GetWalletUser(userID)
	if errors.Is(err, store.ErrNotFound) {
		return wallet.User{}, apiErr(client.CodeNotFound)
	}
	if err != nil {
		return wallet.User{}, err
	}
	cards, err := loadWallet(tx, userID, row.DefaultCardID)
	if err != nil {
		return wallet.User{}, err
	}
	u := wallet.User{
		UserID:      row.UserID,
		UserStatus:  row.UserStatus,
		DateCreated: unixTime(row.DateCreated),
		LastUpdated: unixTime(row.LastUpdated),
		Wallet:      cards,
	}
	if row.DefaultCardID != nil {
		u.DefaultCardID = *row.DefaultCardID
	}
	return u, nil
}

// loadWallet returns the user's wallet entries, oldest first, never nil
// (an empty wallet is [] on the wire).
func loadWallet(tx *store.Tx, userID int64, defaultCardID *int64) ([]wallet.Card, error) {
	rows, err := tx.WalletCards(userID)
	if err != nil {
		return nil, err
	}
	cards := make([]wallet.Card, 0, len(rows))
	for _, c := range rows {
		cards = append(cards, walletCard(c, defaultCardID))
	}
	return cards, nil
}

// walletCard renders a stored entry.
func walletCard(c store.Card, defaultCardID *int64) wallet.Card {
	out := wallet.Card{
		CardID:       c.CardID,
		Last4Digits:  c.Last4,
		Nickname:     c.Nickname,
		CardTypeID:   wallet.CardType(strconv.Itoa(c.CardTypeID)),
		CardStatusID: wallet.CardStatus(c.CardStatusID),
		Default:      defaultCardID != nil && *defaultCardID == c.CardID,
		ExpiryMonth:  c.ExpiryMonth,
		ExpiryYear:   c.ExpiryYear,
	}
	for _, p := range c.Providers {
		out.Gateways.Set(wallet.Gateway(p))
	}
	return out
}

// handleCardInsert serves POST /v3/user/me/wallet/card/insert. The body is
// checked first, naming every failing field; then each token is exchanged
// with its provider, and the entry is written, all in one transaction, so
// a failure leaves no trace (a providerD key is only consumed by an insert
// that succeeds).
func (s *Server) handleCardInsert(_ http.ResponseWriter, r *http.Request) (api.Write, error) {
	var req wallet.InsertCardRequest
	if _, err := api.Decode(r, &req); err != nil {
		return nil, err
	}
	q := api.RequestFrom(r.Context())
	if bad := validateCardInsert(q.Body(), &req, s.clock.Now()); len(bad) > 0 {
		return nil, validationErr(bad)
	}
	userID := q.Principal().UserID

	// providerB's key is read before the write transaction: parsing it is
	// the slow part and needs no lock.
	var pbKey *sandbox.ProviderBKey
	if req.ProviderBCse != "" {
		err := s.db.Read(r.Context(), func(tx *store.Tx) error {
			var err error
			pbKey, err = sandbox.LoadProviderBKey(tx)
			return err
		})
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return nil, err
		}
		// pbKey is nil when no key was ever handed out: no CSE can be valid.
	}
	claim := sandbox.CardClaim{First6: req.First6Digits, Last4: req.Last4Digits, ExpiryMonth: req.ExpiryMonth, ExpiryYear: req.ExpiryYear}

	return func(tx *store.Tx) (any, error) {
		// Both exchanges run before either verdict, so that a request with
		// two bad tokens hears about both.
		tokens := map[string]string{}
		bad := map[string]string{}
		if req.ProviderBCse != "" {
			tok, p, err := sandbox.ExchangeProviderBCSE(tx, pbKey, req.ProviderBCse, claim)
			if err != nil {
				return nil, err
			}
			maps.Copy(bad, p)
			tokens[sandbox.ProviderB] = tok
		}
		if req.ProviderDToken != "" {
			tok, p, err := sandbox.ExchangeProviderDToken(tx, userID, req.ProviderDToken, claim)
			if err != nil {
				return nil, err
			}
			maps.Copy(bad, p)
			tokens[sandbox.ProviderD] = tok
		}
		if len(bad) > 0 {
			return nil, validationErr(bad) // rolls back any token issued above
		}
		status := cardInsertStatus(q.Body(), &req)
		cardID, err := tx.InsertCard(store.Card{
			UserID:       userID,
			First6:       req.First6Digits,
			Last4:        req.Last4Digits,
			Nickname:     req.Nickname,
			CardTypeID:   cardTypeNumber(cardTypeForBIN(req.First6Digits)),
			CardStatusID: status,
			ExpiryMonth:  cardnum.TwoDigits(req.ExpiryMonth),
			ExpiryYear:   cardnum.TwoDigits(req.ExpiryYear),
		})
		if err != nil {
			return nil, err
		}
		for _, p := range []string{sandbox.ProviderB, sandbox.ProviderD} {
			if tok, ok := tokens[p]; ok {
				if err := tx.InsertCardToken(cardID, p, tok); err != nil {
					return nil, err
				}
			}
		}
		user, err := tx.GetWalletUser(userID)
		if err != nil {
			return nil, err
		}
		if req.Default || user.DefaultCardID == nil {
			err = tx.SetDefaultCard(userID, cardID)
			user.DefaultCardID = &cardID
		} else {
			err = tx.TouchUser(userID)
		}
		if err != nil {
			return nil, err
		}
		cards, err := loadWallet(tx, userID, user.DefaultCardID)
		if err != nil {
			return nil, err
		}
		return walletResponse{Wallet: cards, RequestInfo: s.api.Info(r)}, nil
	}, nil
}

// cardStatusRequest is the body of POST /sandbox/cards/{cardId}/status.
type cardStatusRequest struct {
	CardStatusID int `json:"cardStatusId"`
}

// handleSetCardStatus serves POST /sandbox/cards/{cardId}/status (admin):
// it sets a wallet entry's status, to try out what each status allows
// (only Live and Temporary cards can pay). It answers 200 with {}.
func (s sandboxAPI) handleSetCardStatus(_ http.ResponseWriter, r *http.Request) (api.Write, error) {
	cardID, ok := walletIDParam(r, "cardId")
	if !ok {
		return nil, apiErr(client.CodeNotFound)
	}
	var req cardStatusRequest
	bad, err := api.Decode(r, &req, "cardStatusId")
	if err != nil {
		return nil, err
	}
	if len(bad) > 0 {
		return nil, validationErr(bad)
	}
	if !wallet.CardStatus(req.CardStatusID).Known() {
		return nil, validationErr(map[string]string{"cardStatusId": "must be 1, 2, 3, 4 or 5"})
	}
	return func(tx *store.Tx) (any, error) {
		if err := tx.SetCardStatus(cardID, req.CardStatusID); err != nil {
			if errors.Is(err, store.ErrNotFound) {
				return nil, apiErr(client.CodeNotFound)
			}
			return nil, err
		}
		return struct{}{}, nil
	}, nil
}

// walletIDParam reads a positive integer path parameter; anything else
// names no resource (404001).
func walletIDParam(r *http.Request, name string) (int64, bool) {
	id, err := strconv.ParseInt(chi.URLParam(r, name), 10, 64)
	return id, err == nil && id > 0
}

// unixTime converts Unix seconds to the wire time type.
func unixTime(sec int64) client.UnixTime { return client.UnixTime{Time: timeUnix(sec)} }
