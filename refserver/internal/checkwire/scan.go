package checkwire

import (
	"encoding/json"
	"unicode/utf8"
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

// ws skips white space. skipSpace works on copies of d.s and d.i, which
// the compiler keeps in registers: through d it would load both again for
// every byte, and skipping white space was the largest cost of decoding
// an indented body.
func (d *scanner) ws() { d.i = skipSpace(d.s, d.i) }

// skipSpace returns the end of the white space in s from i on.
func skipSpace(s string, i int) int {
	for i < len(s) && space[s[i]] {
		i++
	}
	return i
}

// space marks the bytes JSON takes as white space.
var space = [256]bool{' ': true, '\t': true, '\n': true, '\r': true}

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
	s, start := d.s, d.i
	j := start + 1
	for j < len(s) && plain[s[j]] {
		j++
	}
	if j < len(s) && s[j] == '"' {
		d.i = j + 1
		return s[start+1 : j], true
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

// open consumes the bracket that opens an object ('{') or array ('[')
// nested depth deep. Like encoding/json it refuses nesting past maxDepth.
func (d *scanner) open(c byte, depth int) bool { return depth <= maxDepth && d.consume(c) }

// container reads the object (open is '{') or array ('[') that comes
// next, nested depth deep: each member or element with elem (for an
// object, key included), separated by commas, up to the closing bracket.
// It serves the readers that are off the path of
// a valid check (unknown members, mergeRepeated), where a call through
// elem costs nothing that matters.
func (d *scanner) container(open byte, depth int, elem func() bool) bool {
	if !d.open(open, depth) {
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
