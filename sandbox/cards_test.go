package sandbox

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/wallet"
)

func TestSetCardStatus(t *testing.T) {
	t.Parallel()
	s, mt := newMockService(t)
	var rec recorder
	mt.RegisterResponder(http.MethodPost, testBase+"sandbox/cards/42/status", rec.json(200, `{}`))
	mt.RegisterResponder(http.MethodPost, testBase+"sandbox/cards/43/status", rec.json(404, errorBody(client.CodeNotFound, "Card not found.", "")))

	if err := s.SetCardStatus(context.Background(), 42, wallet.CardStatusBlockedFraud); err != nil {
		t.Fatal(err)
	}
	c := rec.last(t)
	testAdminRequest(t, c, http.MethodPost, "/prefix/sandbox/cards/42/status")
	testBody(t, c, `{"cardStatusId":5}`)

	err := s.SetCardStatus(context.Background(), 43, wallet.CardStatusLive)
	if !errors.Is(err, client.ErrNotFound) {
		t.Errorf("unknown card: err = %v, want ErrNotFound", err)
	}
}
