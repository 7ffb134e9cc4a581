package possync

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzCheckJSON decodes arbitrary bytes as a check. Whatever decodes must
// survive Validate and Clone, and its encoding must be a fixed point:
// decoding and encoding it again gives the same bytes. Seeds are in
// testdata/fuzz/FuzzCheckJSON.
//
//	go test -run='^$' -fuzz=FuzzCheckJSON -fuzztime=30s ./possync/
func FuzzCheckJSON(f *testing.F) {
	f.Add([]byte(`{}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var c Check
		if json.Unmarshal(data, &c) != nil {
			return
		}
		_ = c.Validate() // must not panic, whatever the nesting
		b, err := json.Marshal(&c)
		if err != nil {
			t.Fatalf("a decoded check does not encode: %v", err)
		}
		var back Check
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("the encoding does not decode: %v\n%s", err, b)
		}
		b2, err := json.Marshal(&back)
		if err != nil || !bytes.Equal(b, b2) {
			t.Fatalf("encoding is not a fixed point (%v):\n%s\n%s", err, b, b2)
		}
		cl, err := json.Marshal(c.Clone())
		if err != nil || !bytes.Equal(b, cl) {
			t.Fatalf("clone differs (%v):\n%s\n%s", err, b, cl)
		}
	})
}
