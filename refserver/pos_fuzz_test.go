package refserver

import (
	"bytes"
	"errors"
	"testing"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/possync"
)

// FuzzCheckPushDecode runs arbitrary bodies through the check push's
// decoding and validation. Every body must end as a 400001 or a 400002 with
// the failing fields named, or as a check that passes Validate and whose
// canonical encoding (what is stored and hashed) decodes and validates to
// itself. Seeds are in testdata/fuzz/FuzzCheckPushDecode.
//
//	go test -run='^$' -fuzz=FuzzCheckPushDecode -fuzztime=30s ./refserver/
func FuzzCheckPushDecode(f *testing.F) {
	f.Add([]byte(`{}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		canonical, ok := fuzzDecodeCheck(t, body)
		if !ok {
			return
		}
		again, ok := fuzzDecodeCheck(t, canonical)
		if !ok {
			t.Fatalf("the canonical form of an accepted check is refused:\n%s", canonical)
		}
		if !bytes.Equal(canonical, again) {
			t.Fatalf("canonical form is not a fixed point:\n%s\n%s", canonical, again)
		}
	})
}

// fuzzDecodeCheck decodes and validates body as the handler does and
// returns the canonical encoding of an accepted check.
func fuzzDecodeCheck(t *testing.T, body []byte) ([]byte, bool) {
	t.Helper()
	var wc wireCheck
	err := decodeCheck(body, &wc)
	if err == nil {
		var c *possync.Check
		if c, err = checkFromWire(&wc); err == nil {
			if verr := c.Validate(); verr != nil {
				t.Fatalf("an accepted check fails Validate: %v", verr)
			}
			b, merr := c.MarshalJSON()
			if merr != nil {
				t.Fatalf("an accepted check does not encode: %v", merr)
			}
			return b, true
		}
	}
	var ae *APIError
	if !errors.As(err, &ae) {
		t.Fatalf("error %v (%T) is not an API error", err, err)
	}
	switch ae.Code {
	case client.CodeMalformedJSON:
	case client.CodeValidation:
		if m, ok := ae.ContextData.(map[string]string); !ok || len(m) == 0 {
			t.Fatalf("400002 without failing fields: %#v", ae.ContextData)
		}
	default:
		t.Fatalf("unexpected code %d for a check body", ae.Code)
	}
	return nil, false
}
