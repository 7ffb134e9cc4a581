package checkwire

import (
	"errors"
	"strconv"

	"github.com/hospo-dev/hospo-go/client"
)

// The numbers of a check are read in two ways. Nearly all of them are
// short plain integers ("4", "40117") and amounts with at most two
// decimals ("74.10"), which int64 and money read as the digits go by,
// without cutting out their text and parsing it again. Any other number
// (an exponent, a third decimal, a leading zero, more digits than surely
// fit) is cut out by number and parsed by strconv or client.ParseMoney,
// which decide what it is worth or why it is refused, exactly as
// encoding/json and Money's UnmarshalJSON do.

// maxPlainIntDigits is the most digits of an integer read as it goes by:
// 18 digits always fit in an int64.
const maxPlainIntDigits = 18

// maxPlainMoneyDigits is the most integer digits of an amount read as it
// goes by, as client.ParseMoney's own plain form has it.
const maxPlainMoneyDigits = 16

// isDigit reports whether c is a decimal digit.
func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// numberGoesOn reports whether c, after digits, would continue the
// number: then the plain readers leave the number to the general one.
func numberGoesOn(c byte) bool { return isDigit(c) || c == '.' || c == 'e' || c == 'E' }

// plainDigits reads the run of digits of s from j on, up to max+1 of them,
// returning their value (meaningful only for at most max digits), where
// the run stopped and whether it is a JSON integer of 1 to max digits (no
// leading zero).
func plainDigits(s string, j, max int) (v int64, end int, ok bool) {
	start := j
	for j < len(s) && isDigit(s[j]) && j-start <= max {
		v = v*10 + int64(s[j]-'0')
		j++
	}
	n := j - start
	return v, j, n > 0 && n <= max && (n == 1 || s[start] != '0')
}

// ended reports whether the number that ends at j in s ends there.
func ended(s string, j int) bool { return j == len(s) || !numberGoesOn(s[j]) }

// number reads a JSON number and returns its text and whether it is an
// integer (no fraction, no exponent).
func (d *scanner) number() (text string, integer bool, ok bool) {
	d.ws()
	s, start := d.s, d.i
	j := start
	if j < len(s) && s[j] == '-' {
		j++
	}
	switch {
	case j < len(s) && s[j] == '0':
		j++
	case j < len(s) && s[j] >= '1' && s[j] <= '9':
		j = digits(s, j)
	default:
		return "", false, false
	}
	integer = true
	if j < len(s) && s[j] == '.' {
		integer = false
		k := j + 1
		if j = digits(s, k); j == k {
			return "", false, false
		}
	}
	if j < len(s) && (s[j] == 'e' || s[j] == 'E') {
		integer = false
		j++
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		k := j
		if j = digits(s, j); j == k {
			return "", false, false
		}
	}
	d.i = j
	return s[start:j], integer, true
}

// digits returns the end of the run of decimal digits in s from j on.
func digits(s string, j int) int {
	for j < len(s) && isDigit(s[j]) {
		j++
	}
	return j
}

// int64 reads an integer into *p, as encoding/json reads one into an
// int64: a number with a fraction or an exponent, or out of range, is an
// error there.
func (d *scanner) int64(p *int64) bool {
	d.ws()
	s, j := d.s, d.i
	neg := j < len(s) && s[j] == '-'
	if neg {
		j++
	}
	if v, end, ok := plainDigits(s, j, maxPlainIntDigits); ok && ended(s, end) {
		if neg {
			v = -v
		}
		*p, d.i = v, end
		return true
	}
	text, integer, ok := d.number()
	if !ok || !integer {
		return false
	}
	n, err := strconv.ParseInt(text, 10, 64)
	if err != nil {
		return false
	}
	*p = n
	return true
}

// int reads an integer into *p, which must hold it.
func (d *scanner) int(p *int) bool {
	var n int64
	if !d.int64(&n) || int64(int(n)) != n {
		return false
	}
	*p = int(n)
	return true
}

// money reads a number into *p as client.Money's UnmarshalJSON does,
// which is what encoding/json calls for it. Money in any other JSON type
// is an error there.
func (d *scanner) money(p *client.Money) bool {
	d.ws()
	s, j := d.s, d.i
	neg := j < len(s) && s[j] == '-'
	if neg {
		j++
	}
	if v, end, ok := plainDigits(s, j, maxPlainMoneyDigits); ok {
		v *= 100
		if end < len(s) && s[end] == '.' {
			// One or two decimals; a third goes to client.ParseMoney.
			k := end + 1
			switch {
			case k+1 < len(s) && isDigit(s[k]) && isDigit(s[k+1]):
				v += int64(s[k]-'0')*10 + int64(s[k+1]-'0')
				end = k + 2
			case k < len(s) && isDigit(s[k]):
				v += int64(s[k]-'0') * 10
				end = k + 1
			default:
				end = -1
			}
		}
		if end >= 0 && ended(s, end) {
			if neg {
				v = -v
			}
			*p, d.i = client.MoneyFromCents(v), end
			return true
		}
	}
	text, _, ok := d.number()
	if !ok {
		return false
	}
	m, err := client.ParseMoney(text)
	if err != nil {
		if d.lenient && (errors.Is(err, client.ErrMoneyPrecision) || errors.Is(err, client.ErrMoneyRange)) {
			*p = client.Money{}
			return true
		}
		return false
	}
	*p = m
	return true
}
