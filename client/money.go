package client

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Money is an exact amount of currency with at most two fraction digits.
//
// It is held as an integer number of hundredths (cents), so arithmetic is
// exact: MustParseMoney("0.10").Add(MustParseMoney("0.20")) equals
// MustParseMoney("0.30"). On the wire it is a JSON number such as 12.50; it is
// never converted through float64 in either direction. The zero value is 0.00.
type Money struct {
	cents int64
}

// ErrMoneyPrecision reports an amount with more than two fraction digits.
var ErrMoneyPrecision = errors.New("money: more than 2 fraction digits")

// ErrMoneySyntax reports text that is not a decimal number.
var ErrMoneySyntax = errors.New("money: not a decimal number")

// ErrMoneyRange reports an amount too large to hold.
var ErrMoneyRange = errors.New("money: amount out of range")

// MoneyFromCents returns the amount of c hundredths: MoneyFromCents(1234) is 12.34.
func MoneyFromCents(c int64) Money { return Money{cents: c} }

// ParseMoney parses a decimal amount such as "12", "12.5", "-1.99" or "1e2",
// ignoring white space around it ("12.50 " is 12.50). It reads any JSON
// number, the form money takes on the wire, so exponent notation is
// accepted when the value it denotes has at most two fraction digits ("1e2"
// is 100.00, "1.5e-1" is 0.15); "1e-3" is refused with ErrMoneyPrecision,
// "1e999" with ErrMoneyRange. Leading "+" signs, hex, special values and
// white space inside the number are refused.
func ParseMoney(s string) (Money, error) {
	if m, ok := parsePlainMoney(s); ok {
		return m, nil
	}
	return parseMoney(strings.TrimSpace(s))
}

// parsePlainMoney parses the form nearly every amount takes, an optional
// minus, 1 to 16 integer digits and an optional fraction of 1 or 2 digits,
// without the string building of parseMoney, which decoders of busy
// requests felt. ok is false for every other form.
func parsePlainMoney(s string) (m Money, ok bool) {
	i := 0
	neg := i < len(s) && s[i] == '-'
	if neg {
		i++
	}
	start := i
	var v int64
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		v = v*10 + int64(s[i]-'0')
		i++
	}
	if i == start || i-start > 16 {
		return Money{}, false
	}
	v *= 100
	if i < len(s) {
		frac := s[i+1:]
		if s[i] != '.' || len(frac) == 0 || len(frac) > 2 || !allDigits(frac) {
			return Money{}, false
		}
		v += int64(frac[0]-'0') * 10
		if len(frac) == 2 {
			v += int64(frac[1] - '0')
		}
	}
	if neg {
		v = -v
	}
	return Money{cents: v}, true
}

// parseMoney is ParseMoney for every form.
func parseMoney(s string) (Money, error) {
	orig := s
	if s == "" {
		return Money{}, fmt.Errorf("%w: empty", ErrMoneySyntax)
	}
	neg := false
	if s[0] == '-' {
		neg = true
		s = s[1:]
	}
	mant, exp := s, 0
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		mant = s[:i]
		e, err := strconv.ParseInt(s[i+1:], 10, 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return Money{}, fmt.Errorf("%w: %q", ErrMoneySyntax, truncate(orig, 40))
		}
		// A huge exponent is still a number (1e999 is valid JSON): it is
		// out of range, or has too many fraction digits, unless the digits
		// are all zeros. Clamping it just beyond the mantissa's length keeps
		// that verdict and bounds the work below (ParseInt saturates on
		// ErrRange).
		lim := int64(len(mant) + 40)
		exp = int(max(-lim, min(e, lim)))
	}
	intPart, frac := mant, ""
	if i := strings.IndexByte(mant, '.'); i >= 0 {
		intPart, frac = mant[:i], mant[i+1:]
		if frac == "" {
			return Money{}, fmt.Errorf("%w: %q", ErrMoneySyntax, truncate(orig, 40))
		}
	}
	if intPart == "" || !allDigits(intPart) || !allDigits(frac) {
		return Money{}, fmt.Errorf("%w: %q", ErrMoneySyntax, truncate(orig, 40))
	}
	// digits * 10^(exp - len(frac)) is the value; we want it in hundredths.
	digits := strings.TrimLeft(intPart+frac, "0")
	shift := exp - len(frac) + 2 // power of ten applied to digits to get cents
	if shift < 0 {
		// The dropped digits must all be zeros, otherwise precision is lost.
		n := -shift
		if n >= len(digits) {
			if strings.Trim(digits, "0") != "" {
				return Money{}, fmt.Errorf("%w: %q", ErrMoneyPrecision, truncate(orig, 40))
			}
			digits = ""
		} else {
			if strings.Trim(digits[len(digits)-n:], "0") != "" {
				return Money{}, fmt.Errorf("%w: %q", ErrMoneyPrecision, truncate(orig, 40))
			}
			digits = digits[:len(digits)-n]
		}
		shift = 0
	}
	if digits == "" {
		return Money{}, nil
	}
	// int64 holds 19 digits; ParseInt catches the 19-digit values beyond it.
	// The sign goes in before parsing so that the most negative amount,
	// which String produces, parses back.
	if len(digits)+shift > 19 {
		return Money{}, fmt.Errorf("%w: %q", ErrMoneyRange, truncate(orig, 40))
	}
	if neg {
		digits = "-" + digits
	}
	v, err := strconv.ParseInt(digits+strings.Repeat("0", shift), 10, 64)
	if err != nil {
		return Money{}, fmt.Errorf("%w: %q", ErrMoneyRange, truncate(orig, 40))
	}
	return Money{cents: v}, nil
}

// MustParseMoney is ParseMoney for constants in code and tests; it panics on
// bad input.
func MustParseMoney(s string) Money {
	m, err := ParseMoney(s)
	if err != nil {
		panic(err)
	}
	return m
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// Cents returns m in hundredths: 12.34 is 1234.
func (m Money) Cents() int64 { return m.cents }

// Add returns m + o.
func (m Money) Add(o Money) Money { return Money{cents: m.cents + o.cents} }

// Sub returns m - o.
func (m Money) Sub(o Money) Money { return Money{cents: m.cents - o.cents} }

// Mul returns m multiplied by a whole quantity n.
func (m Money) Mul(n int64) Money { return Money{cents: m.cents * n} }

// Neg returns -m.
func (m Money) Neg() Money { return Money{cents: -m.cents} }

// Cmp compares m and o and returns -1, 0 or +1.
func (m Money) Cmp(o Money) int {
	switch {
	case m.cents < o.cents:
		return -1
	case m.cents > o.cents:
		return 1
	}
	return 0
}

// IsZero reports whether m is 0.00.
func (m Money) IsZero() bool { return m.cents == 0 }

// IsNegative reports whether m is below zero.
func (m Money) IsNegative() bool { return m.cents < 0 }

// String formats m with exactly two fraction digits, as "12.50" or "-1.99".
func (m Money) String() string { return string(m.appendTo(make([]byte, 0, 24))) }

func (m Money) appendTo(b []byte) []byte {
	c := m.cents
	var u uint64
	if c < 0 {
		b = append(b, '-')
		u = uint64(-(c + 1)) + 1 // safe for math.MinInt64
	} else {
		u = uint64(c)
	}
	b = strconv.AppendUint(b, u/100, 10)
	f := u % 100
	return append(b, '.', byte('0'+f/10), byte('0'+f%10))
}

// MarshalJSON writes m as a JSON number with two fraction digits.
func (m Money) MarshalJSON() ([]byte, error) { return m.appendTo(make([]byte, 0, 24)), nil }

// UnmarshalJSON reads a JSON number. A JSON string, or a number with more
// than two fraction digits, is an error. JSON null leaves m unchanged, as
// encoding/json does for other types.
func (m *Money) UnmarshalJSON(b []byte) error {
	s := string(b)
	if s == "null" {
		return nil
	}
	if s == "" || s[0] == '"' {
		return fmt.Errorf("%w: money must be a JSON number, got %s", ErrMoneySyntax, truncate(s, 40))
	}
	v, err := ParseMoney(s)
	if err != nil {
		return err
	}
	*m = v
	return nil
}

// MarshalText writes the form of String, so that Money can appear in query
// strings, map keys and CSV.
func (m Money) MarshalText() ([]byte, error) { return m.appendTo(make([]byte, 0, 24)), nil }

// AppendText appends the form of String to b (encoding.TextAppender), for
// encoders that build a document in one buffer. The form is also the JSON
// number that MarshalJSON writes.
func (m Money) AppendText(b []byte) ([]byte, error) { return m.appendTo(b), nil }

// UnmarshalText parses the form written by MarshalText.
func (m *Money) UnmarshalText(b []byte) error {
	v, err := ParseMoney(string(b))
	if err != nil {
		return err
	}
	*m = v
	return nil
}

// MaxMoney is the largest amount Money can hold.
var MaxMoney = Money{cents: math.MaxInt64}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
