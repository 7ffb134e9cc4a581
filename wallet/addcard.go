package wallet

import (
	"context"
	"errors"
	"fmt"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/internal/cardnum"
)

// ErrUnsupportedGateway is returned when a card is to be tokenised for a
// provider that the SDK cannot tokenise for (only providerB and providerD
// take card inserts).
var ErrUnsupportedGateway = errors.New("wallet: cannot tokenise for this provider")

// AddCardRequest describes a card to add with AddCard.
type AddCardRequest struct {
	// Card holds the details the user entered. They go to the providers
	// only (encrypted for providerB, over HTTPS to providerD).
	Card CardDetails
	// Providers lists the providers to tokenise for: ProviderB, ProviderD
	// or both. Both make one wallet entry holding both tokens.
	Providers []Gateway
	// Nickname is the user's label for the card (at most 50 characters).
	Nickname string
	// Default makes the card the user's default card.
	Default bool
	// Temporary inserts a Temporary Card (save=false) instead of a Live
	// one, for a single payment.
	Temporary bool
}

// AddCard tokenises req.Card for each provider of req.Providers and inserts
// the tokens into the wallet in one request, making one wallet entry. It
// returns that entry.
//
// Each provider step runs once per call; if the insert fails, call AddCard
// again (a providerD key serves one token, so tokens are not reusable).
func (s *Service) AddCard(ctx context.Context, req AddCardRequest, opts ...client.Option) (Card, error) {
	if err := req.Card.Validate(); err != nil {
		return Card{}, err
	}
	if len(req.Providers) == 0 {
		return Card{}, errors.New("wallet: AddCard: no provider to tokenise for")
	}
	ins := InsertCardRequest{
		ExpiryMonth:  req.Card.ExpiryMonth,
		ExpiryYear:   req.Card.expiryYY(),
		First6Digits: req.Card.First6(),
		Last4Digits:  req.Card.Last4(),
		Nickname:     req.Nickname,
		Save:         !req.Temporary,
		Default:      req.Default,
	}
	// Check the whole list first, so that no key is spent on a request
	// that is going to fail anyway.
	var want Gateways
	for _, g := range req.Providers {
		if g != ProviderB && g != ProviderD {
			return Card{}, fmt.Errorf("%w: %q", ErrUnsupportedGateway, string(g))
		}
		want.Set(g) // a provider asked for twice is tokenised once
	}
	var err error
	if want.ProviderB {
		if ins.ProviderBCse, err = s.ProviderBCSE(ctx, req.Card, opts...); err != nil {
			return Card{}, err
		}
	}
	if want.ProviderD {
		if ins.ProviderDToken, err = s.TokeniseProviderD(ctx, req.Card, opts...); err != nil {
			return Card{}, err
		}
	}
	cards, err := s.InsertCard(ctx, ins, opts...)
	if err != nil {
		return Card{}, err
	}
	c, ok := insertedCard(cards, req.Card, want)
	if !ok {
		return Card{}, errors.New("wallet: AddCard: the new card is missing from the wallet response")
	}
	return c, nil
}

// insertedCard finds the entry a card insert made: the newest entry with
// the card's last four digits and expiry and every flag asked for. Matching
// on those, not only on the highest id, keeps a concurrent insert of
// another card by the same user from being mistaken for this one.
func insertedCard(cards []Card, d CardDetails, want Gateways) (Card, bool) {
	var found Card
	ok := false
	for _, c := range cards {
		if !sameCard(c, d) || !hasAll(c.Gateways, want) {
			continue
		}
		if !ok || c.CardID > found.CardID {
			found, ok = c, true
		}
	}
	return found, ok
}

// sameCard reports whether wallet entry c shows the card d (last four
// digits and expiry).
func sameCard(c Card, d CardDetails) bool {
	return c.Last4Digits == d.Last4() &&
		c.ExpiryMonth == cardnum.TwoDigits(d.ExpiryMonth) &&
		c.ExpiryYear == cardnum.TwoDigits(d.expiryYY())
}

func hasAll(have, want Gateways) bool {
	for _, g := range []Gateway{ProviderA, ProviderB, ProviderC, ProviderD, ProviderE} {
		if want.Has(g) && !have.Has(g) {
			return false
		}
	}
	return true
}
