package codec

import (
	"bytes"
	"unicode/utf16"
	"unicode/utf8"
)

// CheckText returns the *Malformed of a body whose strings would not
// decode to what was sent: bytes that are not UTF-8, or a \u escape of
// half a surrogate pair. encoding/json puts U+FFFD in their place without
// a word, and the altered text would be stored. Every body is JSON, so the
// check is made once on the bytes, before any decoder sees them (package
// api makes it as it reads a body).
func CheckText(body []byte) error {
	if !utf8.Valid(body) {
		return malformed("Malformed JSON body: the body is not valid UTF-8.")
	}
	if i := loneSurrogate(body); i >= 0 {
		return malformedf("Malformed JSON body: a \\u escape at byte %d is half a surrogate pair.", i)
	}
	return nil
}

// loneSurrogate returns the offset of the first \u escape in body that is
// half a UTF-16 surrogate pair without its other half, or -1.
func loneSurrogate(body []byte) int {
	for i := 0; ; {
		j := bytes.IndexByte(body[i:], '\\')
		if j < 0 {
			return -1
		}
		i += j
		r, ok := escapedRune(body, i)
		switch {
		case !ok: // another escape, or not one at all
			i += 2
		case utf16.IsSurrogate(r):
			lo, ok := escapedRune(body, i+6)
			if !ok || r >= 0xDC00 || utf16.DecodeRune(r, lo) == utf8.RuneError {
				return i
			}
			i += 12
		default:
			i += 6
		}
		if i >= len(body) {
			return -1
		}
	}
}

// escapedRune decodes the \uXXXX escape at body[i:], if there is one.
func escapedRune(body []byte, i int) (rune, bool) {
	if i+6 > len(body) || body[i] != '\\' || body[i+1] != 'u' {
		return 0, false
	}
	var r rune
	for _, c := range body[i+2 : i+6] {
		switch {
		case '0' <= c && c <= '9':
			r = r<<4 | rune(c-'0')
		case 'a' <= c && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case 'A' <= c && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}
