package sim

import "github.com/hospo-dev/hospo-go/refserver/store"

// The magic test cards (contract.md section 9), beside DeclineCardNumber:
// they tokenise like any other card, and the provider declines their
// payments with a reason, the declineCode of the 402001's contextData.
const (
	// InsufficientFundsCardNumber declines every payment:
	// DeclineInsufficientFunds.
	InsufficientFundsCardNumber = "4000000000009995"
	// FraudulentCardNumber declines its payment as DeclineFraudulent, and
	// the service blocks the card (status 5), so that later payments are
	// 409005 before they reach the provider.
	FraudulentCardNumber = "4000000000000259"
)

// The declineCodes of the magic cards.
const (
	DeclineInsufficientFunds = "insufficient_funds"
	DeclineFraudulent        = "fraudulent"
)

// magicCards maps each magic card number to its declineCode.
var magicCards = map[string]string{
	InsufficientFundsCardNumber: DeclineInsufficientFunds,
	FraudulentCardNumber:        DeclineFraudulent,
}

// DeclineBlocksCard reports whether a decline with code makes the service
// block the card (card status 5), as a fraud alert does.
func DeclineBlocksCard(code string) bool { return code == DeclineFraudulent }

// providerToken is the provider's record of token, issued for c: the one
// place that decides whether, and why, the provider declines payments
// with it.
func (c Card) providerToken(provider, token string) store.ProviderToken {
	code, magic := magicCards[c.Number]
	return store.ProviderToken{
		Token:       token,
		Provider:    provider,
		First6:      c.First6(),
		Last4:       c.Last4(),
		ExpiryMonth: c.ExpiryMonth,
		ExpiryYear:  c.ExpiryYear,
		Decline:     magic || c.Number == DeclineCardNumber,
		DeclineCode: code,
	}
}
