// Package wallet is the wallet and payments area of the hospo API: a user's
// cards, card tokenisation with the payment providers, location details and
// payments towards a check.
//
// # Cards and tokens
//
// The service never sees raw card details. A card is tokenised at a payment
// provider, and the insert call (InsertCard) stores the provider's token as
// a wallet entry. Each provider issues its own token, and a location pays
// through one provider (Location.LocationPaymentDetails.Gateway), so a card
// can pay at a location only if its entry holds that provider's token. The
// wallet has one entry per tokenisation event: a card tokenised for
// providerB today and for providerD tomorrow is two entries.
//
// Two providers take card inserts:
//
//   - providerB: the card is encrypted on the client to providerB's public
//     key (EncryptProviderBCSE, Service.ProviderBCSE) and the service
//     forwards the ciphertext to providerB.
//   - providerD: the client gets a single-use key from the service
//     (Service.ProviderDKeys) and posts the card over HTTPS straight to the
//     provider's tokenisationUri, which answers with a token
//     (Service.TokeniseProviderD). Plain-http URIs are refused.
//
// AddCard does all of it for one or both providers and inserts the result
// as one entry. CardDetails, the type that holds a number and CVC, prints
// and logs them masked.
//
// # Payments and 404006
//
// CreatePayment pays towards a check. When the card lacks the token of the
// location's provider the call fails with 404006:
//
//	errors.Is(err, client.ErrCardNotTokenised)
//
// PayWithRecovery handles that case: it finds the location's provider,
// tokenises the card for it (asking the caller for the details, which the
// SDK never stores), inserts it and pays again, once, under an
// Idempotency-Key derived from the caller's, so that re-running it after a
// crash cannot pay twice.
//
// # Usage
//
//	c, err := client.New(client.WithBaseURL(url), client.WithAccessToken(userToken))
//	...
//	w := wallet.NewService(c, wallet.WithProviderRootCAs(pool))
//	card, err := w.AddCard(ctx, wallet.AddCardRequest{
//		Card:      wallet.CardDetails{Number: "4111111111111111", CVC: "123", ExpiryMonth: 12, ExpiryYear: 30},
//		Providers: []wallet.Gateway{wallet.ProviderB, wallet.ProviderD},
//	})
//	...
//	p, err := w.CreatePayment(ctx, wallet.CreatePaymentRequest{
//		LocationID: loc, CheckNumber: check, CardID: card.CardID,
//		Amount: client.MustParseMoney("24.50"),
//	}, client.WithIdempotencyKey(orderKey))
package wallet
