package wallet

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
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

// ErrInvalidCardDetails is wrapped by the error of CardDetails.Validate.
var ErrInvalidCardDetails = errors.New("wallet: invalid card details")

// Validate checks the details locally, before anything is sent: digits
// only, a number of 12 to 19 digits that passes the Luhn check, a CVC of 3
// or 4 digits, a month of 1 to 12 and a two- or four-digit year. The
// provider checks again (expiry against its clock included). The error
// names the failing fields and never contains their values.
func (d CardDetails) Validate() error {
	var bad []string
	if n := len(d.Number); n < 12 || n > 19 || !digits(d.Number) || !luhn(d.Number) {
		bad = append(bad, "number")
	}
	if n := len(d.CVC); n < 3 || n > 4 || !digits(d.CVC) {
		bad = append(bad, "cvc")
	}
	if d.ExpiryMonth < 1 || d.ExpiryMonth > 12 {
		bad = append(bad, "expiryMonth")
	}
	if y := d.ExpiryYear; y < 0 || (y > 99 && (y < 2000 || y > 2099)) {
		bad = append(bad, "expiryYear")
	}
	if len(bad) > 0 {
		return fmt.Errorf("%w: %s", ErrInvalidCardDetails, strings.Join(bad, ", "))
	}
	return nil
}

// First6 returns the first six digits of the number (the BIN), or "" when
// the number is shorter.
func (d CardDetails) First6() string {
	if len(d.Number) < 6 {
		return ""
	}
	return d.Number[:6]
}

// Last4 returns the last four digits of the number, or "" when the number is
// shorter.
func (d CardDetails) Last4() string {
	if len(d.Number) < 4 {
		return ""
	}
	return d.Number[len(d.Number)-4:]
}

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
func (d CardDetails) MaskedNumber() string {
	n := len(d.Number)
	if n == 0 {
		return ""
	}
	if n < 8 {
		return strings.Repeat("*", n)
	}
	return strings.Repeat("*", n-4) + d.Number[n-4:]
}

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

func digits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// luhn reports whether a string of digits passes the Luhn check.
func luhn(s string) bool {
	sum := 0
	double := false
	for i := len(s) - 1; i >= 0; i-- {
		d := int(s[i] - '0')
		if double {
			d *= 2
			if d > 9 {
				d -= 9
			}
		}
		sum += d
		double = !double
	}
	return sum%10 == 0
}

// twoDigits formats a month or two-digit year as the wallet shows it ("04").
func twoDigits(n int) string {
	if n >= 0 && n < 10 {
		return "0" + strconv.Itoa(n)
	}
	return strconv.Itoa(n)
}
