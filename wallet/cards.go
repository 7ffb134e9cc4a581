package wallet

import (
	"cmp"
	"context"
	"net/http"
	"slices"
	"strconv"
	"unicode"
	"unicode/utf8"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/internal/cardnum"
	"github.com/hospo-dev/hospo-go/internal/fielderr"
)

// Card is one entry of a user's wallet (interface section 2.2). The wallet
// has one entry per tokenisation event: the same physical card tokenised for
// two providers at different times is two entries, each with its own CardID.
type Card struct {
	CardID       int64      `json:"cardId"`
	Last4Digits  string     `json:"last4Digits"`
	Nickname     string     `json:"nickname"`
	CardTypeID   CardType   `json:"cardTypeId"`
	CardStatusID CardStatus `json:"cardStatusId"`
	Default      bool       `json:"default"`
	// ExpiryMonth is the month as two digits, "01" to "12".
	ExpiryMonth string `json:"expiryMonth"`
	// ExpiryYear is the two-digit year, "29" for 2029.
	ExpiryYear string   `json:"expiryYear"`
	Gateways   Gateways `json:"gateways"`
}

// User is the user record returned with scope=wallet (interface section 2.3).
type User struct {
	UserID      int64           `json:"userId"`
	UserStatus  int             `json:"userStatus"`
	DateCreated client.UnixTime `json:"dateCreated"`
	LastUpdated client.UnixTime `json:"lastUpdated"`
	// DefaultCardID is the default card's id; 0 while the wallet is empty.
	DefaultCardID int64  `json:"defaultCardId"`
	Wallet        []Card `json:"wallet"`
}

// DefaultCard returns the wallet entry marked default.
func (u User) DefaultCard() (Card, bool) {
	i := slices.IndexFunc(u.Wallet, func(c Card) bool { return c.Default })
	if i < 0 {
		return Card{}, false
	}
	return u.Wallet[i], true
}

// InsertCardRequest is the body of a card insert (interface section 4.1).
// At least one of ProviderBCse and ProviderDToken must be set; both in one
// request make one wallet entry holding both tokens. AddCard fills this in
// from card details.
type InsertCardRequest struct {
	// ExpiryMonth is 1 to 12.
	ExpiryMonth int `json:"expiryMonth"`
	// ExpiryYear is the two-digit year (29 for 2029).
	ExpiryYear int `json:"expiryYear"`
	// First6Digits and Last4Digits are the card number's first six and last
	// four digits; the service checks them against the tokenised card.
	First6Digits string `json:"first6Digits"`
	Last4Digits  string `json:"last4Digits"`
	// Nickname is the user's label, at most 50 characters; may be empty.
	Nickname string `json:"nickname"`
	// Save keeps the card in the wallet as Live. False inserts a Temporary
	// Card (status 4), meant for one payment. It is always sent, so the zero
	// value means a temporary card: set it deliberately.
	Save bool `json:"save"`
	// Default makes the new entry the user's default card. The first card
	// of a wallet becomes the default anyway.
	Default bool `json:"default"`
	// ProviderBCse is providerB's client-side-encrypted card data (see
	// EncryptProviderBCSE and Service.ProviderBCSE).
	ProviderBCse string `json:"providerBCse,omitempty"`
	// ProviderDToken is the token from providerD's tokenisation endpoint
	// (see Service.TokeniseProviderD).
	ProviderDToken string `json:"providerDToken,omitempty"`
}

// maxNickname is the longest nickname, in characters.
const maxNickname = 50

// Validate checks the request the way the service does before it
// exchanges the tokens: first6Digits of 6 digits and last4Digits of 4, an
// expiry month of 1 to 12 and a two-digit year, a nickname of at most 50
// characters without control characters, and a providerBCse or a
// providerDToken. It returns nil or a *client.ValidationError with the
// service's paths and reasons. The service also refuses an expired card
// (on its own clock) and digits or an expiry that do not match the card
// the provider tokenised.
func (r InsertCardRequest) Validate() error {
	var s fielderr.Set
	cardnum.CheckDigits(&s, "first6Digits", r.First6Digits, 6)
	cardnum.CheckDigits(&s, "last4Digits", r.Last4Digits, 4)
	cardnum.CheckExpiry(&s, r.ExpiryMonth, r.ExpiryYear)
	switch {
	case utf8.RuneCountInString(r.Nickname) > maxNickname:
		s.Add("nickname", "must be at most "+strconv.Itoa(maxNickname)+" characters")
	case !printable(r.Nickname):
		s.Add("nickname", "must not contain control characters")
	}
	if r.ProviderBCse == "" && r.ProviderDToken == "" {
		const reason = "one of providerBCse and providerDToken is required"
		s.Add("providerBCse", reason)
		s.Add("providerDToken", reason)
	}
	return s.Err()
}

// printable reports whether s is valid UTF-8 without control characters.
func printable(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if unicode.IsControl(r) {
			return false
		}
	}
	return true
}

// WalletResponse is the body of a card insert.
type WalletResponse struct {
	Wallet      []Card             `json:"wallet"`
	RequestInfo client.RequestInfo `json:"requestInfo"`
}

// UserResponse is the body of GET /v1/user/me.
type UserResponse struct {
	User        User               `json:"user"`
	RequestInfo client.RequestInfo `json:"requestInfo"`
}

// InsertCard adds a card to the user's wallet and returns the whole wallet,
// the new entry included (use NewestCard to pick it out).
//
// POST /v3/user/me/wallet/card/insert
func (s *Service) InsertCard(ctx context.Context, req InsertCardRequest, opts ...client.Option) ([]Card, error) {
	var out WalletResponse
	_, err := s.c.Do(ctx, &client.Request{
		Method: http.MethodPost,
		Route:  "/v3/user/me/wallet/card/insert",
		Body:   req,
		Auth:   client.AuthAccessToken,
	}, &out, opts...)
	if err != nil {
		return nil, err
	}
	return out.Wallet, nil
}

// GetWallet returns the user with their wallet.
//
// GET /v1/user/me?scope=wallet
func (s *Service) GetWallet(ctx context.Context, opts ...client.Option) (User, error) {
	var out UserResponse
	_, err := s.c.Do(ctx, &client.Request{
		Method: http.MethodGet,
		Route:  "/v1/user/me",
		Query:  map[string][]string{"scope": {"wallet"}},
		Auth:   client.AuthAccessToken,
	}, &out, opts...)
	if err != nil {
		return User{}, err
	}
	return out.User, nil
}

// NewestCard returns the wallet entry with the highest id: the service
// numbers entries in insertion order, so after InsertCard it is the entry
// just added.
func NewestCard(cards []Card) (Card, bool) {
	if len(cards) == 0 {
		return Card{}, false
	}
	return slices.MaxFunc(cards, func(a, b Card) int { return cmp.Compare(a.CardID, b.CardID) }), true
}
