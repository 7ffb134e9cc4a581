package sandbox

import (
	"context"
	"net/http"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/wallet"
)

// Fixtures is the demo fixture's credentials: what GET /sandbox/fixtures
// and POST /sandbox/reset answer. Credentials made later through the admin
// API are shown once, in the creating answer, and are not listed here.
type Fixtures struct {
	Users     []User     `json:"users"`
	Locations []Location `json:"locations"`
	APIKeys   []APIKey   `json:"apiKeys"`
}

// Location returns the first location of the fixture that pays through
// gateway, so that a program can pick the providerD location without
// relying on the fixture's order.
func (f Fixtures) Location(gateway wallet.Gateway) (Location, bool) {
	for _, l := range f.Locations {
		if l.Gateway == gateway {
			return l, true
		}
	}
	return Location{}, false
}

// User is a sandbox user and its access token, for client.WithAccessToken.
type User struct {
	UserID      int64  `json:"userId"`
	AccessToken string `json:"accessToken"`
}

// Location is a sandbox location with the payment provider it pays through
// and its POS access token, the credential of the POS push-pull endpoints
// (possync).
type Location struct {
	LocationID     int64          `json:"locationId"`
	Name           string         `json:"name"`
	Gateway        wallet.Gateway `json:"gateway"`
	POSAccessToken string         `json:"posAccessToken"`
}

// APIKey is a vendor API key (client.WithAPIKey) and the locations whose
// bills it may read.
type APIKey struct {
	APIKey string `json:"apiKey"`
	// KeyID identifies the key in the request journal (JournalEntry.KeyID).
	// The fixture does not list it: it is 0 there.
	KeyID       int64   `json:"keyId,omitempty"`
	LocationIDs []int64 `json:"locationIds"`
}

// CreateLocationRequest is the body of POST /sandbox/locations.
type CreateLocationRequest struct {
	// Name is shown on the console and in the location's details; 1 to
	// 200 characters.
	Name string `json:"name"`
	// Gateway is the payment provider the location pays through.
	Gateway wallet.Gateway `json:"gateway"`
	// POSURL, when set, wires the location to the universal POS served at
	// that http(s) URL, which orders are then sent to. Empty: no universal
	// POS.
	POSURL string `json:"posUrl,omitempty"`
	// POSToken is the bearer token the service sends to the POS at POSURL.
	// It needs POSURL.
	POSToken string `json:"posToken,omitempty"`
}

// Fixtures returns the demo fixture's credentials.
//
// GET /sandbox/fixtures
func (s *Service) Fixtures(ctx context.Context, opts ...client.Option) (Fixtures, error) {
	var out Fixtures
	_, err := s.c.Do(ctx, &client.Request{
		Method: http.MethodGet,
		Route:  "/sandbox/fixtures",
		Auth:   client.AuthAdminKey,
	}, &out, opts...)
	if err != nil {
		return Fixtures{}, err
	}
	return out, nil
}

// Reset puts the sandbox back to a fresh demo fixture: every user, card,
// check, payment, order and credential made since is gone, the virtual
// clock is back at real time and every fault is cleared. It returns the new
// fixture. The demo credentials are derived from the admin key, so they are
// the same as before the reset.
//
// POST /sandbox/reset
func (s *Service) Reset(ctx context.Context, opts ...client.Option) (Fixtures, error) {
	var out Fixtures
	_, err := s.c.Do(ctx, &client.Request{
		Method: http.MethodPost,
		Route:  "/sandbox/reset",
		Auth:   client.AuthAdminKey,
	}, &out, opts...)
	if err != nil {
		return Fixtures{}, err
	}
	return out, nil
}

// CreateUser makes a user with an empty wallet. Its access token is shown
// this once: the sandbox keeps only a hash of it.
//
// POST /sandbox/users
func (s *Service) CreateUser(ctx context.Context, opts ...client.Option) (User, error) {
	var out User
	_, err := s.c.Do(ctx, &client.Request{
		Method: http.MethodPost,
		Route:  "/sandbox/users",
		Auth:   client.AuthAdminKey,
	}, &out, opts...)
	if err != nil {
		return User{}, err
	}
	return out, nil
}

// CreateLocation makes a location. Its POS access token is shown this
// once. The returned Location's Name and Gateway are those of req. A bad
// name, gateway or POS URL is a 400002 naming each failing field.
//
// POST /sandbox/locations
func (s *Service) CreateLocation(ctx context.Context, req CreateLocationRequest, opts ...client.Option) (Location, error) {
	var out Location
	_, err := s.c.Do(ctx, &client.Request{
		Method: http.MethodPost,
		Route:  "/sandbox/locations",
		Body:   req,
		Auth:   client.AuthAdminKey,
	}, &out, opts...)
	if err != nil {
		return Location{}, err
	}
	out.Name, out.Gateway = req.Name, req.Gateway
	return out, nil
}

// CreateAPIKey makes a vendor API key that may read the bills of
// locationIDs. The key is shown this once. The returned LocationIDs are
// sorted, without repeats. An unknown location is a 400002 naming it.
//
// POST /sandbox/api-keys
func (s *Service) CreateAPIKey(ctx context.Context, locationIDs []int64, opts ...client.Option) (APIKey, error) {
	if locationIDs == nil {
		locationIDs = []int64{} // sent as [], which the server names in its 400002, not as null
	}
	var out APIKey
	_, err := s.c.Do(ctx, &client.Request{
		Method: http.MethodPost,
		Route:  "/sandbox/api-keys",
		Body: struct {
			LocationIDs []int64 `json:"locationIds"`
		}{locationIDs},
		Auth: client.AuthAdminKey,
	}, &out, opts...)
	if err != nil {
		return APIKey{}, err
	}
	return out, nil
}
