package checkwire

import (
	"encoding/json"
	"errors"
	"strconv"
	"unicode/utf8"

	"github.com/hospo-dev/hospo-go/client"
)

// maxDepth is encoding/json's limit on nested arrays and objects. The
// decoder keeps the same one, so that it refuses exactly the bodies that
// encoding/json refuses for being too deep.
const maxDepth = 10000

// scanner reads JSON text. It works on the body as one string, so that the
// strings of a check are substrings of it: one allocation for all of them.
// Every method reports false on text it does not read the way
// encoding/json would, and the caller gives up.
type scanner struct {
	s string
	i int
	// lenient takes money that breaks its rule (too many decimals, out of
	// range) as zero and reads on, once api.DecodeBytes has named those
	// values, so that one 400002 names them and every other failing field.
	lenient bool
}

// ws skips white space.
func (d *scanner) ws() {
	for d.i < len(d.s) && d.s[d.i] <= ' ' {
		switch d.s[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// peek skips white space and returns the next byte, 0 at the end.
func (d *scanner) peek() byte {
	d.ws()
	if d.i == len(d.s) {
		return 0
	}
	return d.s[d.i]
}

// consume skips white space and then c, reporting whether c came next.
func (d *scanner) consume(c byte) bool {
	if d.peek() != c {
		return false
	}
	d.i++
	return true
}

// literal consumes lit (true, false or null) if it comes next.
func (d *scanner) literal(lit string) bool {
	if len(d.s)-d.i >= len(lit) && d.s[d.i:d.i+len(lit)] == lit {
		d.i += len(lit)
		return true
	}
	return false
}

// null consumes a JSON null if one comes next.
func (d *scanner) null() bool { return d.peek() == 'n' && d.literal("null") }

// str reads a string and returns its value. A string without escapes that
// is valid UTF-8 (what clients send) is a substring of the body; any other
// is unquoted by encoding/json itself, so that escapes, surrogates and
// invalid UTF-8 come out exactly as it decodes them.
func (d *scanner) str() (string, bool) {
	if d.peek() != '"' {
		return "", false
	}
	start := d.i
	j := start + 1
	for j < len(d.s) && plain[d.s[j]] {
		j++
	}
	if j < len(d.s) && d.s[j] == '"' {
		d.i = j + 1
		return d.s[start+1 : j], true
	}
	// Escapes, control characters or bytes past ASCII: find the end, then
	// let encoding/json judge what is not plain valid UTF-8.
	escaped := false
	for ; j < len(d.s); j++ {
		switch c := d.s[j]; {
		case c == '"':
			d.i = j + 1
			if v := d.s[start+1 : j]; !escaped && utf8.ValidString(v) {
				return v, true
			}
			var u string
			if json.Unmarshal([]byte(d.s[start:d.i]), &u) != nil {
				return "", false
			}
			return u, true
		case c == '\\':
			escaped = true
			j++ // the escaped byte cannot end the string
		case c < 0x20:
			return "", false
		}
	}
	return "", false
}

// plain marks the bytes a string holds as they are: printable ASCII other
// than the quote and the backslash.
var plain = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

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
	for j < len(s) && s[j] >= '0' && s[j] <= '9' {
		j++
	}
	return j
}

// int64 reads an integer into *p, as encoding/json reads one into an
// int64: a number with a fraction or an exponent, or out of range, is an
// error there.
func (d *scanner) int64(p *int64) bool {
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

// skip reads any one JSON value, checking its syntax: the value of a
// member the check does not have, which encoding/json ignores. depth is
// the nesting of the value's container.
func (d *scanner) skip(depth int) bool {
	switch d.peek() {
	case '{':
		return d.container('{', depth+1, func() bool {
			_, ok := d.str()
			return ok && d.consume(':') && d.skip(depth+1)
		})
	case '[':
		return d.container('[', depth+1, func() bool { return d.skip(depth + 1) })
	case '"':
		_, ok := d.str()
		return ok
	case 't':
		return d.literal("true")
	case 'f':
		return d.literal("false")
	case 'n':
		return d.literal("null")
	}
	_, _, ok := d.number()
	return ok
}

// container reads the object (open is '{') or array ('[') that comes
// next, nested depth deep: the bracket, then each member or element with
// elem (for an object, key included), separated by commas, up to the
// closing bracket. Like encoding/json it refuses nesting past maxDepth.
// Every reader of objects and arrays here goes through it, so that all of
// them read the same punctuation the same way.
func (d *scanner) container(open byte, depth int, elem func() bool) bool {
	if depth > maxDepth || !d.consume(open) {
		return false
	}
	end := byte(']')
	if open == '{' {
		end = '}'
	}
	if d.consume(end) {
		return true
	}
	for {
		if !elem() {
			return false
		}
		if d.consume(end) {
			return true
		}
		if !d.consume(',') {
			return false
		}
	}
}
