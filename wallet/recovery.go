package wallet

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/hospo-dev/hospo-go/client"
)

// RecoveryRequest is the input of PayWithRecovery.
type RecoveryRequest struct {
	// Payment is the payment to make.
	Payment CreatePaymentRequest
	// IdempotencyKey is the caller's key for this payment (1 to 255
	// characters), kept by the caller across restarts. The first attempt
	// uses it; the attempt after recovery uses RecoveryIdempotencyKey of it.
	IdempotencyKey string
	// CardDetails supplies the card's details when the card must be
	// tokenised for gateway, for example by asking the user to enter them
	// again: the SDK never keeps card details. It is called at most once,
	// and only when no wallet entry can be reused.
	CardDetails func(ctx context.Context, gateway Gateway) (CardDetails, error)
	// Nickname labels the wallet entry that recovery adds.
	Nickname string
	// Temporary adds that entry as a Temporary Card instead of a Live one.
	Temporary bool
}

// RecoveryIdempotencyKey returns the Idempotency-Key that PayWithRecovery
// uses for the payment after recovery. It is derived from the caller's key
// alone, so a re-run of the same logical payment sends the same key.
func RecoveryIdempotencyKey(key string) string {
	sum := sha256.Sum256([]byte("hospo-go/wallet/pay-with-recovery\x00" + key))
	return "recovery-" + hex.EncodeToString(sum[:])
}

// PayWithRecovery makes a payment and, when it fails with 404006 (the card
// has no token for the location's provider), recovers once: it looks up
// the location's gateway (GetLocation), tokenises the card for it and
// inserts it into the wallet, then pays again with the new wallet entry.
//
// Safe to re-run after a crash: the first attempt is sent with
// req.IdempotencyKey and the attempt after recovery with
// RecoveryIdempotencyKey(req.IdempotencyKey). Before tokenising, the wallet
// is searched for an entry that already shows the same card (card type,
// last four digits and expiry) with the gateway's token and a usable
// status; the oldest such entry is used. The wallet shows nothing more of
// a card, so two cards of one user that agree on all three cannot be told
// apart; a caller for whom that matters should not reuse entries (pass a
// payment whose card already holds the gateway's token instead). So a re-run after a crash finds the entry the
// first run inserted, pays with the same card under the same key, and gets
// the first run's payment back instead of paying twice.
//
// Any error other than 404006, or a second 404006, is returned as it is.
//
// opts apply to every call the helper makes (a per-call access token, for
// example). Do not pass client.WithIdempotencyKey in opts: the helper keys
// its payments itself, and the card insert gets a fresh key of its own.
func (s *Service) PayWithRecovery(ctx context.Context, req RecoveryRequest, opts ...client.Option) (Payment, error) {
	if req.IdempotencyKey == "" {
		return Payment{}, errors.New("wallet: PayWithRecovery needs an IdempotencyKey")
	}
	pay := func(p CreatePaymentRequest, key string) (Payment, error) {
		return s.CreatePayment(ctx, p, append(opts[:len(opts):len(opts)], client.WithIdempotencyKey(key))...)
	}
	p, err := pay(req.Payment, req.IdempotencyKey)
	if err == nil || !errors.Is(err, client.ErrCardNotTokenised) {
		return p, err
	}
	payErr := err

	loc, err := s.GetLocation(ctx, req.Payment.LocationID, opts...)
	if err != nil {
		return Payment{}, fmt.Errorf("wallet: recovery: location lookup: %w", err)
	}
	gw := loc.LocationPaymentDetails.Gateway
	user, err := s.GetWallet(ctx, opts...)
	if err != nil {
		return Payment{}, fmt.Errorf("wallet: recovery: wallet lookup: %w", err)
	}
	card, ok := reusableCard(user.Wallet, req.Payment.CardID, gw)
	if !ok {
		if gw != ProviderB && gw != ProviderD {
			return Payment{}, fmt.Errorf("%w %q: %w", ErrUnsupportedGateway, string(gw), payErr)
		}
		if req.CardDetails == nil {
			return Payment{}, fmt.Errorf("wallet: recovery needs RecoveryRequest.CardDetails: %w", payErr)
		}
		details, err := req.CardDetails(ctx, gw)
		if err != nil {
			return Payment{}, fmt.Errorf("wallet: recovery: card details: %w", err)
		}
		// A fresh key for the insert, so that a key in opts (against the
		// advice above) cannot turn it into a replay or a 409004.
		insertOpts := append(opts[:len(opts):len(opts)], client.WithIdempotencyKey(randomKey()))
		card, err = s.AddCard(ctx, AddCardRequest{
			Card:      details,
			Providers: []Gateway{gw},
			Nickname:  req.Nickname,
			Temporary: req.Temporary,
		}, insertOpts...)
		if err != nil {
			return Payment{}, fmt.Errorf("wallet: recovery: adding the card for %s: %w", gw, err)
		}
	}
	retry := req.Payment
	retry.CardID = card.CardID
	return pay(retry, RecoveryIdempotencyKey(req.IdempotencyKey))
}

// randomKey returns a fresh Idempotency-Key of 128 random bits.
func randomKey() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	return hex.EncodeToString(b[:])
}

// reusableCard finds the oldest usable wallet entry that shows the same
// card as entry cardID (type, last four digits, expiry) and holds
// gateway's token.
func reusableCard(cards []Card, cardID int64, gw Gateway) (Card, bool) {
	var orig *Card
	for i := range cards {
		if cards[i].CardID == cardID {
			orig = &cards[i]
			break
		}
	}
	if orig == nil {
		return Card{}, false
	}
	var found Card
	ok := false
	for _, c := range cards {
		if c.CardTypeID != orig.CardTypeID || c.Last4Digits != orig.Last4Digits ||
			c.ExpiryMonth != orig.ExpiryMonth || c.ExpiryYear != orig.ExpiryYear {
			continue
		}
		if !c.Gateways.Has(gw) || !c.CardStatusID.Usable() {
			continue
		}
		if !ok || c.CardID < found.CardID {
			found, ok = c, true
		}
	}
	return found, ok
}
