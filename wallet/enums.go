package wallet

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
)

// CardType is the cardTypeId of a card (interface section 2.6). On the wire
// it is a JSON string holding a number ("1"); a JSON number is accepted as
// well. A value this SDK does not know decodes without error and keeps its
// text, so a new card type added by the service stays visible instead of
// turning into CardTypeUnknown.
type CardType string

// The card types of the catalogue.
const (
	CardTypeUnknown       CardType = "0"
	CardTypeNetwork1      CardType = "1" // card of the first card network
	CardTypeNetwork2      CardType = "2" // card of the second card network
	CardTypeNetwork3      CardType = "3" // card of the third card network
	CardTypeMobileWallet1 CardType = "4" // mobile wallet of the first phone platform
	CardTypeMobileWallet2 CardType = "5" // mobile wallet of the second phone platform
)

var cardTypeNames = map[CardType]string{
	CardTypeUnknown:       "unknown",
	CardTypeNetwork1:      "network-1",
	CardTypeNetwork2:      "network-2",
	CardTypeNetwork3:      "network-3",
	CardTypeMobileWallet1: "mobile-wallet-1",
	CardTypeMobileWallet2: "mobile-wallet-2",
}

// Known reports whether t is one of the card types of the catalogue.
func (t CardType) Known() bool { _, ok := cardTypeNames[t]; return ok }

// String returns a short name such as "network-1", or "CardType(9)" for a
// value outside the catalogue.
func (t CardType) String() string {
	if n, ok := cardTypeNames[t]; ok {
		return n
	}
	return "CardType(" + string(t) + ")"
}

// MarshalJSON writes the type as a JSON string, the form of interface 2.2.
func (t CardType) MarshalJSON() ([]byte, error) { return json.Marshal(string(t)) }

// UnmarshalJSON accepts a JSON string or a JSON number; null leaves t
// unchanged.
func (t *CardType) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case bytes.Equal(b, []byte("null")):
		return nil
	case len(b) > 0 && b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*t = CardType(s)
		return nil
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return fmt.Errorf("wallet: cardTypeId must be a string or a number, got %.20s", b)
	}
	*t = CardType(n.String())
	return nil
}

// CardStatus is the cardStatusId of a card (interface section 3). Values
// outside the catalogue decode without error and print as CardStatus(n).
type CardStatus int

// The card statuses of the catalogue.
const (
	CardStatusLive            CardStatus = 1
	CardStatusUserCancelled   CardStatus = 2
	CardStatusSystemCancelled CardStatus = 3
	CardStatusTemporary       CardStatus = 4 // inserted with save=false
	CardStatusBlockedFraud    CardStatus = 5
)

var cardStatusNames = map[CardStatus]string{
	CardStatusLive:            "live",
	CardStatusUserCancelled:   "user-cancelled",
	CardStatusSystemCancelled: "system-cancelled",
	CardStatusTemporary:       "temporary",
	CardStatusBlockedFraud:    "blocked-fraud",
}

// Known reports whether s is one of the card statuses of the catalogue.
func (s CardStatus) Known() bool { _, ok := cardStatusNames[s]; return ok }

// Usable reports whether a card in this status can pay: only Live and
// Temporary cards can; any other status makes a payment fail with 409005.
func (s CardStatus) Usable() bool { return s == CardStatusLive || s == CardStatusTemporary }

// String returns a short name such as "live", or "CardStatus(9)" for a value
// outside the catalogue.
func (s CardStatus) String() string {
	if n, ok := cardStatusNames[s]; ok {
		return n
	}
	return "CardStatus(" + strconv.Itoa(int(s)) + ")"
}

// Gateway names a payment provider, as in a location's
// locationPaymentDetails.gateway and the flags of a card. Unknown names are
// kept as they are.
type Gateway string

// The payment providers.
const (
	ProviderA Gateway = "providerA"
	ProviderB Gateway = "providerB"
	ProviderC Gateway = "providerC"
	ProviderD Gateway = "providerD"
	ProviderE Gateway = "providerE"
)

// String returns the provider's name.
func (g Gateway) String() string { return string(g) }

// Gateways holds a card's provider flags: a flag is true when the service
// holds that provider's token for the card (interface section 2.2).
type Gateways struct {
	ProviderA bool `json:"providerA"`
	ProviderB bool `json:"providerB"`
	ProviderC bool `json:"providerC"`
	ProviderD bool `json:"providerD"`
	ProviderE bool `json:"providerE"`
}

// Has reports whether the flag of gateway g is set; false for an unknown
// gateway.
func (gw Gateways) Has(g Gateway) bool {
	switch g {
	case ProviderA:
		return gw.ProviderA
	case ProviderB:
		return gw.ProviderB
	case ProviderC:
		return gw.ProviderC
	case ProviderD:
		return gw.ProviderD
	case ProviderE:
		return gw.ProviderE
	}
	return false
}

// Set sets the flag of gateway g and reports whether g is a known gateway.
func (gw *Gateways) Set(g Gateway) bool {
	switch g {
	case ProviderA:
		gw.ProviderA = true
	case ProviderB:
		gw.ProviderB = true
	case ProviderC:
		gw.ProviderC = true
	case ProviderD:
		gw.ProviderD = true
	case ProviderE:
		gw.ProviderE = true
	default:
		return false
	}
	return true
}
