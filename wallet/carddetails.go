package wallet

import (
	"encoding/json"
	"fmt"
	"log/slog"

	"github.com/hospo-dev/hospo-go/internal/cardnum"
	"github.com/hospo-dev/hospo-go/internal/fielderr"
)

// CardDetails are the raw details of a payment card, as a user types them.
// The SDK only ever sends them to a payment provider (providerD's
// tokenisation endpoint) or encrypts them for one (providerB's CSE); they
// never go to the service and are never stored.
//
// Printing a CardDetails with any fmt verb, logging it with log/slog or
// encoding it with encoding/json shows at most the last four digits of the
// number and never the CVC, so a stray log line cannot leak them.
type CardDetails struct {
	// Number is the card number: digits only, no spaces.
	Number string
	// CVC is the security code: digits only.
	CVC string
	// ExpiryMonth is 1 to 12.
	ExpiryMonth int
	// ExpiryYear is the two-digit year (29); a four-digit year (2029) is
	// accepted and sent as two digits.
	ExpiryYear int
	// HolderName is the name on the card.
	HolderName string
}

// Validate checks the details locally, before anything is sent, with the
// checks the providers make: a number of 12 to 19 digits that passes the
// Luhn check, a CVC of 3 or 4 digits, a month of 1 to 12, a two-digit year
// (or a four-digit one from 2000 to 2099, sent as two digits) and a holder
// name of at most 200 bytes. Whether the card has expired is left to the
// provider, whose clock decides (a sandbox's may not be yours). It returns
// nil or a *client.ValidationError with the provider's paths and reasons,
// which never contain the values.
func (d CardDetails) Validate() error {
	var s fielderr.Set
	yy := d.ExpiryYear
	if yy >= 2000 && yy <= 2099 {
		yy = d.expiryYY()
	}
	cardnum.Check(&s, cardnum.Card{Number: d.Number, CVC: d.CVC, ExpiryMonth: d.ExpiryMonth, ExpiryYear: yy, HolderName: d.HolderName})
	return s.Err()
}

// First6 returns the first six digits of the number (the BIN), or "" when
// the number is shorter.
func (d CardDetails) First6() string { return cardnum.First6(d.Number) }

// Last4 returns the last four digits of the number, or "" when the number is
// shorter.
func (d CardDetails) Last4() string { return cardnum.Last4(d.Number) }

// expiryYY returns the expiry year as two digits.
func (d CardDetails) expiryYY() int {
	if d.ExpiryYear >= 100 {
		return d.ExpiryYear % 100
	}
	return d.ExpiryYear
}

// MaskedNumber returns the number with every digit but the last four
// replaced by '*' ("************1111"); a number of fewer than eight
// characters is masked whole, since its last four would reveal too much.
func (d CardDetails) MaskedNumber() string { return cardnum.Mask(d.Number) }

// String returns the details with the number masked and the CVC hidden.
func (d CardDetails) String() string {
	cvc := ""
	if d.CVC != "" {
		cvc = "***"
	}
	return fmt.Sprintf("CardDetails{Number:%s CVC:%s Expiry:%02d/%02d HolderName:%q}",
		d.MaskedNumber(), cvc, d.ExpiryMonth, d.expiryYY(), d.HolderName)
}

// GoString is String, for %#v.
func (d CardDetails) GoString() string { return "wallet." + d.String() }

// Format makes every fmt verb (%d and %x included, which would otherwise
// print the fields) print the masked form.
func (d CardDetails) Format(f fmt.State, verb rune) {
	if verb == 'v' && f.Flag('#') {
		_, _ = f.Write([]byte(d.GoString()))
		return
	}
	_, _ = f.Write([]byte(d.String()))
}

// LogValue makes log/slog record the masked form.
func (d CardDetails) LogValue() slog.Value {
	return slog.GroupValue(
		slog.String("number", d.MaskedNumber()),
		slog.String("expiry", fmt.Sprintf("%02d/%02d", d.ExpiryMonth, d.expiryYY())),
	)
}

// MarshalJSON writes the masked form, so that encoding a struct that holds
// CardDetails (for a log or an error report) cannot leak the number or CVC.
// The SDK sends the real details to providers through a type of its own.
func (d CardDetails) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Number      string `json:"number"`
		ExpiryMonth int    `json:"expiryMonth"`
		ExpiryYear  int    `json:"expiryYear"`
		HolderName  string `json:"holderName"`
	}{d.MaskedNumber(), d.ExpiryMonth, d.expiryYY(), d.HolderName})
}

var (
	_ fmt.Stringer   = CardDetails{}
	_ fmt.GoStringer = CardDetails{}
	_ fmt.Formatter  = CardDetails{}
	_ slog.LogValuer = CardDetails{}
	_ json.Marshaler = CardDetails{}
)

// providerCard is the card data of contract section 6 as sent to a
// provider: the only place the real number and CVC are encoded.
type providerCard struct {
	KeyID       string `json:"keyId,omitempty"`
	Number      string `json:"number"`
	ExpiryMonth int    `json:"expiryMonth"`
	ExpiryYear  int    `json:"expiryYear"`
	CVC         string `json:"cvc"`
	HolderName  string `json:"holderName,omitempty"`
}

func (d CardDetails) wire() providerCard {
	return providerCard{
		Number:      d.Number,
		ExpiryMonth: d.ExpiryMonth,
		ExpiryYear:  d.expiryYY(),
		CVC:         d.CVC,
		HolderName:  d.HolderName,
	}
}
