// Package checkfixture holds the realistic check that the tests of the POS
// push share, in possync and in the server: 2 KB as a POS sends it, with
// nested modifiers and categories, discounts and exact money.
//
// It does not import possync, so that possync's own tests can use it too;
// Decode takes the type to decode into.
package checkfixture

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"testing"
)

//go:embed check.json
var check []byte

// JSON returns the check as a POS sends it. It is a copy, which the
// caller may change.
func JSON() []byte { return bytes.Clone(check) }

// Decode decodes the check into a new T, usually possync.Check, and fails
// t when it does not decode. The check is of location 1; callers that push
// it elsewhere set its LocationID.
func Decode[T any](t testing.TB) *T {
	t.Helper()
	v := new(T)
	if err := json.Unmarshal(check, v); err != nil {
		t.Fatalf("checkfixture: decode check.json into %T: %v", v, err)
	}
	return v
}
