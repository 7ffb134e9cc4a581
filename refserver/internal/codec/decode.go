package codec

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/internal/fielderr"
)

// Malformed is why a body cannot be read at all: Message is the message
// of its 400001 ("Malformed JSON body: ..."), which names the field at
// fault when there is one and never echoes a value.
type Malformed struct{ Message string }

func (e *Malformed) Error() string { return e.Message }

func malformed(msg string) error { return &Malformed{Message: msg} }

func malformedf(format string, args ...any) error {
	return &Malformed{Message: fmt.Sprintf(format, args...)}
}

// Decode decodes body, which must be exactly one JSON value, into v, a
// pointer. problems names the values that break their own type's rule
// (money precision and range), path -> reason; v holds them as zero and
// everything else as decoded. err is a *Malformed for an empty body, bad
// JSON or a field of the wrong JSON type (naming the field). Unknown fields
// are ignored, as encoding/json ignores them. body must have passed
// CheckText, as every body the server reads has: encoding/json would take
// the text CheckText refuses, altered.
func Decode(body []byte, v any) (problems map[string]string, err error) {
	if len(bytes.TrimSpace(body)) == 0 {
		return nil, malformed("Malformed JSON body: the body is empty.")
	}
	// json.Unmarshal works on the body in place; a Decoder would copy it
	// into a buffer of its own first. Its errors are less precise (a body
	// cut off inside a literal is "invalid character", trailing data hides
	// a type error), so a failure is decoded again, into a fresh value, the
	// Decoder's way to describe it.
	err = json.Unmarshal(body, v)
	if err == nil {
		return nil, nil
	}
	var (
		syn *json.SyntaxError
		typ *json.UnmarshalTypeError
	)
	if errors.As(err, &syn) || errors.As(err, &typ) {
		return nil, describeDecodeFailure(body, reflect.New(reflect.TypeOf(v).Elem()).Interface())
	}
	// A value's own UnmarshalJSON failed, and encoding/json stopped there.
	// Find every such value; when each only breaks a rule, decode the body
	// again with those values null, so that the rest is decoded and checked.
	problems = map[string]string{}
	var refused error
	patched, changed := walkValues(body, reflect.TypeOf(v).Elem(), "", func(path string, ferr error) bool {
		if reason, ok := valueRuleReason(ferr); ok {
			problems[path] = reason
			return true
		}
		if refused == nil {
			refused = malformedValue(path, ferr)
		}
		return false
	})
	if refused != nil {
		return nil, refused
	}
	if !changed {
		return nil, malformed("Malformed JSON body.")
	}
	rv := reflect.ValueOf(v).Elem()
	rv.SetZero()
	if err := json.Unmarshal(patched, v); err != nil {
		// What the first failure hid: a field of the wrong type further on.
		return nil, describeDecodeFailure(patched, reflect.New(rv.Type()).Interface())
	}
	return problems, nil
}

// valueRuleReason returns the 400002 reason of a value that decoded as its
// JSON type but breaks its Go type's rule.
func valueRuleReason(err error) (string, bool) {
	switch {
	case errors.Is(err, client.ErrMoneyPrecision):
		return fielderr.ReasonMoneyPrecision, true
	case errors.Is(err, client.ErrMoneyRange):
		return fielderr.ReasonOutOfRange, true
	}
	return "", false
}

// malformedValue is the 400001 of a value at path whose own UnmarshalJSON
// refused it for its form.
func malformedValue(path string, err error) error {
	if errors.Is(err, client.ErrMoneySyntax) {
		return malformedf("Malformed JSON body: field %q must be a number.", path)
	}
	return malformedf("Malformed JSON body: field %q has an invalid value.", path)
}

// describeDecodeFailure decodes body, which json.Unmarshal refused for its
// syntax or a type, with a Decoder and returns the catalogue error for why.
func describeDecodeFailure(body []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(v); err != nil {
		return decodeError(err)
	}
	return malformed("Malformed JSON body: unexpected data after the JSON value.")
}

func decodeError(err error) error {
	var (
		syn *json.SyntaxError
		typ *json.UnmarshalTypeError
	)
	switch {
	case errors.As(err, &syn):
		return malformedf("Malformed JSON body: %s (at byte %d).", syn.Error(), syn.Offset)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return malformed("Malformed JSON body: unexpected end of the body.")
	case errors.As(err, &typ):
		want := jsonKind(typ.Type)
		// Value is "number 4242..." for a number: name only its kind, so
		// that a card number or CVC sent as a number is never echoed.
		got, _, _ := strings.Cut(typ.Value, " ")
		if typ.Field == "" {
			return malformedf("Malformed JSON body: the body must be %s, not %s.", want, got)
		}
		return malformedf("Malformed JSON body: field %q must be %s, not %s.", typ.Field, want, got)
	}
	if _, ok := valueRuleReason(err); ok {
		// Only after a rule failure that walkValues could not place.
		return malformed("Malformed JSON body.")
	}
	return malformed("Malformed JSON body: a field has an invalid value.")
}

// jsonKind names the JSON type a Go type is decoded from.
func jsonKind(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Struct, reflect.Map:
		return "an object"
	}
	return "a different type"
}
