package sandbox

import (
	"context"
	"net/http"
	"strconv"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/wallet"
)

// PayCheckRequest is the body of POST
// /sandbox/locations/{locationId}/checks/{checkNumber}/payments: what a
// diner pays. Both fields are optional.
type PayCheckRequest struct {
	// Amount, tip excluded, must be greater than 0; nil pays what the
	// check still owes less its pending payments.
	Amount *client.Money `json:"amount,omitempty"`
	// Tip must not be negative; nil means no tip.
	Tip *client.Money `json:"tip,omitempty"`
}

// PayCheck has a diner pay towards a check, as a guest paying with the
// app would: the sandbox pays with a wallet card of its own, and the
// payment goes through every rule of a real one (client.ErrNotFound for
// an unknown location or check, client.ErrLocationOffline while the POS
// sends no heartbeat, client.ErrAmountExceedsOutstanding), then waits in
// the location's payments poll (possync) until the POS accepts it. A POS
// developer tests its payment handling without writing an app.
//
// POST /sandbox/locations/{locationId}/checks/{checkNumber}/payments
func (s *Service) PayCheck(ctx context.Context, locationID, checkNumber int64, req PayCheckRequest, opts ...client.Option) (wallet.Payment, error) {
	var out PayCheckResponse
	_, err := s.c.Do(ctx, &client.Request{
		Method: http.MethodPost,
		Route:  "/sandbox/locations/{locationId}/checks/{checkNumber}/payments",
		Params: []string{strconv.FormatInt(locationID, 10), strconv.FormatInt(checkNumber, 10)},
		Body:   req,
		Auth:   client.AuthAdminKey,
	}, &out, opts...)
	if err != nil {
		return wallet.Payment{}, err
	}
	return out.Payment, nil
}

// PayCheckResponse is the body of a diner's payment (PayCheck).
type PayCheckResponse struct {
	Payment wallet.Payment `json:"payment"`
}

// DinersRequest is the body of PUT /sandbox/locations/{locationId}/diners.
type DinersRequest struct {
	// EverySeconds is the time between two rounds, on the virtual clock;
	// at least 1.
	EverySeconds int `json:"everySeconds"`
	// Split is how many equal payments each check gets, 1 to 4; 0 means 1.
	Split int `json:"split,omitempty"`
	// TipPercent is the tip of each payment, in percent of its amount, 0
	// to 30.
	TipPercent int `json:"tipPercent,omitempty"`
}

// Diners are a location's diners on a timer, as the sandbox runs them.
type Diners struct {
	LocationID   int64 `json:"locationId"`
	EverySeconds int   `json:"everySeconds"`
	Split        int   `json:"split"`
	TipPercent   int   `json:"tipPercent"`
	// NextRunAt is when the next round is due, on the virtual clock.
	NextRunAt client.UnixTime `json:"nextRunAt"`
	// LastRunAt is when the last round ran; nil before the first.
	LastRunAt *client.UnixTime `json:"lastRunAt"`
	// LastError is why the last round paid nothing ("Location offline.",
	// say); nil when it did not fail.
	LastError *string `json:"lastError"`
}

// SetDiners starts diners at a location, or changes them: every
// EverySeconds of the virtual clock, each open check with something owed
// and no payment pending gets Split equal payments (the last takes the
// remainder, to the cent) with TipPercent tips, as PayCheck makes them.
// The first round is due EverySeconds after the call; AdvanceClock brings
// it on at once, and returns once its payments are made. A bad request is a 400002 naming each failing field.
//
// PUT /sandbox/locations/{locationId}/diners
func (s *Service) SetDiners(ctx context.Context, locationID int64, req DinersRequest, opts ...client.Option) (Diners, error) {
	var out Diners
	_, err := s.c.Do(ctx, &client.Request{
		Method: http.MethodPut,
		Route:  "/sandbox/locations/{locationId}/diners",
		Params: []string{strconv.FormatInt(locationID, 10)},
		Body:   req,
		Auth:   client.AuthAdminKey,
	}, &out, opts...)
	if err != nil {
		return Diners{}, err
	}
	return out, nil
}

// Diners returns a location's diners; client.ErrNotFound when it has
// none (the message tells "Diners not found." from "Location not
// found.").
//
// GET /sandbox/locations/{locationId}/diners
func (s *Service) Diners(ctx context.Context, locationID int64, opts ...client.Option) (Diners, error) {
	var out Diners
	_, err := s.c.Do(ctx, &client.Request{
		Method: http.MethodGet,
		Route:  "/sandbox/locations/{locationId}/diners",
		Params: []string{strconv.FormatInt(locationID, 10)},
		Auth:   client.AuthAdminKey,
	}, &out, opts...)
	if err != nil {
		return Diners{}, err
	}
	return out, nil
}

// StopDiners stops a location's diners; stopping none is not an error.
// Payments already made stay pending until the POS accepts them.
//
// DELETE /sandbox/locations/{locationId}/diners
func (s *Service) StopDiners(ctx context.Context, locationID int64, opts ...client.Option) error {
	_, err := s.c.Do(ctx, &client.Request{
		Method: http.MethodDelete,
		Route:  "/sandbox/locations/{locationId}/diners",
		Params: []string{strconv.FormatInt(locationID, 10)},
		Auth:   client.AuthAdminKey,
	}, nil, opts...)
	return err
}
