package rules

import (
	"errors"
	"maps"
	"strconv"
	"time"

	"github.com/hospo-dev/hospo-go/internal/cardnum"
	"github.com/hospo-dev/hospo-go/internal/fielderr"
	"github.com/hospo-dev/hospo-go/refserver/internal/api"
	"github.com/hospo-dev/hospo-go/refserver/sim"
	"github.com/hospo-dev/hospo-go/refserver/store"
	"github.com/hospo-dev/hospo-go/wallet"
)

// The wallet's rules (interface.md 2.3, 4.1):
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

// GetWallet returns the user with their wallet (GET /v1/user/me).
func GetWallet(tx *store.Tx, userID int64) (wallet.User, error) {
	row, err := tx.GetWalletUser(userID)
	if err != nil {
		return wallet.User{}, notFound(err, "User")
	}
	cards, err := walletCards(tx, userID, row.DefaultCardID)
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

// walletCards returns the user's wallet entries, oldest first, never nil
// (an empty wallet is [] on the wire).
func walletCards(tx *store.Tx, userID int64, defaultCardID *int64) ([]wallet.Card, error) {
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

// CheckCardInsert checks a card insert body raw, decoded into req, and
// returns a 400002 naming every failing field (nil when none fails): the
// fields missing or null, wallet.InsertCardRequest.Validate's rules, and
// an expiry not in the past at now, the virtual clock's time.
//
// The SDK's type cannot tell "save" absent from false, and absent means a
// Live card: CheckCardInsert sets req.Save when the body leaves it out.
func CheckCardInsert(raw []byte, req *wallet.InsertCardRequest, now time.Time) error {
	var bad fielderr.Set
	bad.Require(raw, "expiryMonth", "expiryYear", "first6Digits", "last4Digits")
	absent := fielderr.Missing(raw, "providerBCse", "providerDToken", "save")
	// Nor can it tell a token sent empty from one not sent; the wire can. A
	// token sent empty is refused as such, and counts as sent for the rule
	// that one of the two is required.
	checked := *req
	for _, t := range []struct {
		path  string
		token *string
	}{{"providerBCse", &checked.ProviderBCse}, {"providerDToken", &checked.ProviderDToken}} {
		if _, gone := absent[t.path]; !gone && *t.token == "" {
			bad.Add(t.path, "must not be empty")
			*t.token = "(empty)"
		}
	}
	_ = bad.Merge(checked.Validate()) // nil or a *client.ValidationError
	if !bad.Has("expiryMonth") && !bad.Has("expiryYear") && cardnum.Expired(req.ExpiryMonth, req.ExpiryYear, now) {
		bad.Add("expiryYear", cardnum.ReasonExpired)
	}
	if _, gone := absent["save"]; gone {
		req.Save = true
	}
	return invalid(&bad)
}

// ProviderBKey returns the key a card insert's providerBCse was encrypted
// to: nil when req has none, or when no key was ever handed out (then no
// CSE can be valid). Read it in a read transaction before InsertCard's
// write transaction: parsing it is the slow part and needs no lock.
func ProviderBKey(tx *store.Tx, req *wallet.InsertCardRequest) (*sim.ProviderBKey, error) {
	if req.ProviderBCse == "" {
		return nil, nil
	}
	k, err := sim.LoadProviderBKey(tx)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	return k, err
}

// InsertCard adds a card to userID's wallet and returns the whole wallet
// (POST /v3/user/me/wallet/card/insert). req has passed CheckCardInsert;
// pbKey is ProviderBKey's. Each token is exchanged with its provider and
// the entry written in the one transaction, so a failure leaves no trace
// (a providerD key is only consumed by an insert that succeeds).
func InsertCard(tx *store.Tx, userID int64, req wallet.InsertCardRequest, pbKey *sim.ProviderBKey) ([]wallet.Card, error) {
	claim := sim.CardClaim{First6: req.First6Digits, Last4: req.Last4Digits, ExpiryMonth: req.ExpiryMonth, ExpiryYear: req.ExpiryYear}
	// Both exchanges run before either verdict, so that a request with two
	// bad tokens hears about both.
	tokens := map[string]string{}
	bad := map[string]string{}
	if req.ProviderBCse != "" {
		tok, p, err := sim.ExchangeProviderBCSE(tx, pbKey, req.ProviderBCse, claim)
		if err != nil {
			return nil, err
		}
		maps.Copy(bad, p)
		tokens[sim.ProviderB] = tok
	}
	if req.ProviderDToken != "" {
		tok, p, err := sim.ExchangeProviderDToken(tx, userID, req.ProviderDToken, claim)
		if err != nil {
			return nil, err
		}
		maps.Copy(bad, p)
		tokens[sim.ProviderD] = tok
	}
	if len(bad) > 0 {
		return nil, api.Invalid(bad) // rolls back any token issued above
	}
	status := wallet.CardStatusLive
	if !req.Save {
		status = wallet.CardStatusTemporary
	}
	cardID, err := tx.InsertCard(store.Card{
		UserID:       userID,
		First6:       req.First6Digits,
		Last4:        req.Last4Digits,
		Nickname:     req.Nickname,
		CardTypeID:   cardTypeNumber(cardTypeForBIN(req.First6Digits)),
		CardStatusID: int(status),
		ExpiryMonth:  cardnum.TwoDigits(req.ExpiryMonth),
		ExpiryYear:   cardnum.TwoDigits(req.ExpiryYear),
	})
	if err != nil {
		return nil, err
	}
	for _, p := range []string{sim.ProviderB, sim.ProviderD} {
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
	return walletCards(tx, userID, user.DefaultCardID)
}

// cardTypeForBIN derives a card's type from its first six digits, the
// reference server's documented mapping for the three card networks:
//
//	4                      -> 1 (first network)
//	51-55, 2221-2720       -> 2 (second network)
//	34, 37                 -> 3 (third network)
//	anything else          -> 0 (unknown)
//
// Types 4 and 5 (mobile wallets) describe how a card is presented, which a
// BIN cannot tell, so an insert never gets them.
func cardTypeForBIN(first6 string) wallet.CardType {
	if len(first6) < 4 || !cardnum.Digits(first6) {
		return wallet.CardTypeUnknown
	}
	two, _ := strconv.Atoi(first6[:2])
	four, _ := strconv.Atoi(first6[:4])
	switch {
	case first6[0] == '4':
		return wallet.CardTypeNetwork1
	case two >= 51 && two <= 55, four >= 2221 && four <= 2720:
		return wallet.CardTypeNetwork2
	case two == 34 || two == 37:
		return wallet.CardTypeNetwork3
	}
	return wallet.CardTypeUnknown
}

// cardTypeNumber returns the numeric id of a card type, as stored.
func cardTypeNumber(t wallet.CardType) int {
	n, err := strconv.Atoi(string(t))
	if err != nil {
		return 0
	}
	return n
}

// CardStatusRequest is the body of POST /sandbox/cards/{cardId}/status.
type CardStatusRequest struct {
	CardStatusID int `json:"cardStatusId"`
}

// CheckCardStatus checks a card status body raw, decoded into req: a
// 400002 when the status is missing or outside the catalogue.
func CheckCardStatus(raw []byte, req *CardStatusRequest) error {
	if bad := fielderr.Missing(raw, "cardStatusId"); len(bad) > 0 {
		return api.Invalid(bad)
	}
	if !wallet.CardStatus(req.CardStatusID).Known() {
		return api.Invalid(map[string]string{"cardStatusId": "must be 1, 2, 3, 4 or 5"})
	}
	return nil
}

// SetCardStatus sets a wallet entry's status (POST
// /sandbox/cards/{cardId}/status), to try out what each status allows
// (only Live and Temporary cards can pay); a 404001 for an unknown card.
// req has passed CheckCardStatus.
func SetCardStatus(tx *store.Tx, cardID int64, req CardStatusRequest) error {
	return notFound(tx.SetCardStatus(cardID, req.CardStatusID), "Card")
}
