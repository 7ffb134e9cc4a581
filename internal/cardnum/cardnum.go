// Package cardnum holds the rules for payment card data: the checks the
// SDK makes before it sends card details to a provider, which are the
// checks the sandbox providers make when they receive them, and the few
// ways of showing part of a card number.
package cardnum

import (
	"strconv"
	"strings"
	"time"

	"github.com/hospo-dev/hospo-go/internal/fielderr"
)

// The reasons the checks give. They never repeat the values, so an error
// built from them cannot leak card data.
const (
	ReasonNumber  = "must be 12 to 19 digits"
	ReasonLuhn    = "fails the Luhn check"
	ReasonCVC     = "must be 3 or 4 digits"
	ReasonMonth   = "must be 1 to 12"
	ReasonYear    = "must be a two-digit year (0 to 99)"
	ReasonExpired = "the card has expired"
	ReasonHolder  = "must be at most 200 characters"
)

// maxHolderName is the longest holder name a provider takes, in bytes.
const maxHolderName = 200

// Card is card data as a provider takes it (contract section 6), with a
// two-digit ExpiryYear.
type Card struct {
	Number      string
	CVC         string
	ExpiryMonth int
	ExpiryYear  int
	HolderName  string
}

// Check records in s each field of c that a provider refuses whatever its
// clock says: a number of 12 to 19 digits that passes the Luhn check, a
// CVC of 3 or 4 digits, a month of 1 to 12, a two-digit year and a holder
// name of at most 200 bytes. Whether the card has expired is for Expired.
func Check(s *fielderr.Set, c Card) {
	switch {
	case !Digits(c.Number) || len(c.Number) < 12 || len(c.Number) > 19:
		s.Add("number", ReasonNumber)
	case !Luhn(c.Number):
		s.Add("number", ReasonLuhn)
	}
	if !Digits(c.CVC) || len(c.CVC) < 3 || len(c.CVC) > 4 {
		s.Add("cvc", ReasonCVC)
	}
	CheckExpiry(s, c.ExpiryMonth, c.ExpiryYear)
	if len(c.HolderName) > maxHolderName {
		s.Add("holderName", ReasonHolder)
	}
}

// CheckExpiry records in s an expiry month outside 1 to 12
// ("expiryMonth") and a year outside 0 to 99 ("expiryYear").
func CheckExpiry(s *fielderr.Set, month, yy int) {
	if !ValidMonth(month) {
		s.Add("expiryMonth", ReasonMonth)
	}
	if !ValidYear(yy) {
		s.Add("expiryYear", ReasonYear)
	}
}

// ValidMonth reports whether month is 1 to 12.
func ValidMonth(month int) bool { return month >= 1 && month <= 12 }

// ValidYear reports whether yy is a two-digit year, 0 to 99.
func ValidYear(yy int) bool { return yy >= 0 && yy <= 99 }

// CheckDigits records in s the field at path ("must be 6 digits") unless
// v is exactly n digits, like the first six or the last four of a number.
func CheckDigits(s *fielderr.Set, path, v string, n int) {
	if len(v) != n || !Digits(v) {
		s.Add(path, "must be "+strconv.Itoa(n)+" digits")
	}
}

// Expired reports whether a card expiring at the end of month/20yy has
// expired at now (UTC): a card is valid up to the end of its expiry month.
func Expired(month, yy int, now time.Time) bool {
	now = now.UTC()
	y, m := 2000+yy, time.Month(month)
	return y < now.Year() || (y == now.Year() && m < now.Month())
}

// Digits reports whether s is one or more ASCII digits.
func Digits(s string) bool {
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

// Luhn reports whether s is digits that pass the Luhn check.
func Luhn(s string) bool {
	if !Digits(s) {
		return false
	}
	sum, double := 0, false
	for i := len(s) - 1; i >= 0; i-- {
		d := int(s[i] - '0')
		if double {
			if d *= 2; d > 9 {
				d -= 9
			}
		}
		sum += d
		double = !double
	}
	return sum%10 == 0
}

// First6 returns the first six digits of a number (the BIN), or "" when
// it is shorter.
func First6(number string) string {
	if len(number) < 6 {
		return ""
	}
	return number[:6]
}

// Last4 returns the last four digits of a number, or "" when it is
// shorter.
func Last4(number string) string {
	if len(number) < 4 {
		return ""
	}
	return number[len(number)-4:]
}

// Mask returns number with every character but the last four replaced by
// '*' ("************1111"); a number of fewer than eight characters is
// masked whole, since its last four would reveal too much of it.
func Mask(number string) string {
	n := len(number)
	if n < 8 {
		return strings.Repeat("*", n)
	}
	return strings.Repeat("*", n-4) + number[n-4:]
}

// TwoDigits formats an expiry month or two-digit year the way a wallet
// entry carries it ("04").
func TwoDigits(n int) string {
	if n >= 0 && n < 10 {
		return "0" + strconv.Itoa(n)
	}
	return strconv.Itoa(n)
}
