package sandbox

import (
	"context"
	"net/http"
	"strconv"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/wallet"
)

// SetCardStatus sets the status of a wallet entry, to try out what each
// status allows: only wallet.CardStatusLive and wallet.CardStatusTemporary
// cards can pay, any other makes a payment fail with 409005
// (client.ErrCardNotUsable). An unknown card is a 404001; a status outside
// the catalogue is a 400002.
//
// POST /sandbox/cards/{cardId}/status
func (s *Service) SetCardStatus(ctx context.Context, cardID int64, status wallet.CardStatus, opts ...client.Option) error {
	_, err := s.c.Do(ctx, &client.Request{
		Method: http.MethodPost,
		Route:  "/sandbox/cards/{cardId}/status",
		Params: []string{strconv.FormatInt(cardID, 10)},
		Body: struct {
			CardStatusID wallet.CardStatus `json:"cardStatusId"`
		}{status},
		Auth: client.AuthAdminKey,
	}, nil, opts...)
	return err
}
