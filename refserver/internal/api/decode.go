package api

import (
	"bytes"
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/internal/fielderr"
)

// Decode decodes the request body, which must be exactly one JSON value,
// into v, and returns the fields that fail so far, path -> reason: each of
// the required paths that is absent or null (see MissingFields), and each
// value that breaks its own type's rule (money with more than two fraction
// digits or out of range; v holds the zero value there). The map is empty,
// never nil, so that a handler adds its own findings and answers them all
// in one 400002 (contract.md section 2: a bad money value does not hide a
// missing field). err is a 400001 for an empty body, bad JSON, text that is
// not UTF-8 (see CheckText) or a field of the wrong JSON type (naming the
// field). Unknown fields are ignored, so
// that older servers accept requests from newer clients.
func Decode(r *http.Request, v any, required ...string) (problems map[string]string, err error) {
	body := RequestFrom(r.Context()).Body()
	problems, err = decodeValues(body, v)
	if err != nil {
		return nil, err
	}
	if problems == nil {
		problems = map[string]string{}
	}
	for path, reason := range MissingFields(body, required...) {
		if _, found := problems[path]; !found {
			problems[path] = reason
		}
	}
	return problems, nil
}

// DecodeBytes decodes body into v with the errors of Decode. Values that
// break their own type's rule make it a 400002 naming every one of them;
// v is then decoded in full but for those values, and ValueProblems gives
// them back to a caller that checks more rules before answering.
func DecodeBytes(body []byte, v any) error {
	problems, err := decodeValues(body, v)
	if err != nil {
		return err
	}
	if len(problems) > 0 {
		e := Invalid(problems)
		e.decoded = true
		return e
	}
	return nil
}

// ValueProblems splits an error of DecodeBytes: when err says only that
// values broke their own type's rule, it returns those fields, path ->
// reason, and a nil error, so that the caller goes on checking the value
// (decoded in full but for those fields) and reports everything in one
// 400002. Any other err is returned as it is.
func ValueProblems(err error) (map[string]string, error) {
	var ae *Error
	if errors.As(err, &ae) && ae.decoded {
		return ae.fields, nil
	}
	return nil, err
}

// WithDecoded returns what to answer for a body whose decoding found
// decoded (the problems of Decode or ValueProblems) and whose rule check
// then answered err: one 400002 naming decoding's findings and every field
// of err, a 400002 too, that they do not cover (a value decoding refused
// is zero, and its zero value would only add a misleading second reason).
// With nothing decoded, or an err of another kind, err is returned as it
// is.
func WithDecoded(decoded map[string]string, err error) error {
	if len(decoded) == 0 {
		return err
	}
	var ae *Error
	if err != nil && !(errors.As(err, &ae) && ae.Code == client.CodeValidation) {
		return err
	}
	var f fielderr.Set
	f.MergeFields(decoded)
	if ae != nil {
		f.MergeFields(ae.Fields())
		return invalid(f.Map(), f.Omitted()+ae.omitted)
	}
	return InvalidSet(&f)
}

// decodeValues decodes body into v. problems names the values that break
// their own type's rule (money precision and range), left zero in v; err is
// the 400001 of a body that cannot be decoded.
func decodeValues(body []byte, v any) (problems map[string]string, err error) {
	if len(bytes.TrimSpace(body)) == 0 {
		return nil, ErrMsg(client.CodeMalformedJSON, "Malformed JSON body: the body is empty.")
	}
	if err := CheckText(body); err != nil {
		return nil, err
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
	var malformed error
	patched, changed := walkValues(body, reflect.TypeOf(v).Elem(), "", func(path string, ferr error) bool {
		if reason, ok := valueRuleReason(ferr); ok {
			problems[path] = reason
			return true
		}
		if malformed == nil {
			malformed = malformedValue(path, ferr)
		}
		return false
	})
	if malformed != nil {
		return nil, malformed
	}
	if !changed {
		return nil, ErrMsg(client.CodeMalformedJSON, "Malformed JSON body.")
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
		return ErrMsg(client.CodeMalformedJSON, fmt.Sprintf("Malformed JSON body: field %q must be a number.", path))
	}
	return ErrMsg(client.CodeMalformedJSON, fmt.Sprintf("Malformed JSON body: field %q has an invalid value.", path))
}

// describeDecodeFailure decodes body, which json.Unmarshal refused for its
// syntax or a type, with a Decoder and returns the catalogue error for why.
func describeDecodeFailure(body []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(v); err != nil {
		return decodeError(err)
	}
	return ErrMsg(client.CodeMalformedJSON, "Malformed JSON body: unexpected data after the JSON value.")
}

func decodeError(err error) error {
	var (
		syn *json.SyntaxError
		typ *json.UnmarshalTypeError
	)
	switch {
	case errors.As(err, &syn):
		return ErrMsg(client.CodeMalformedJSON, fmt.Sprintf("Malformed JSON body: %s (at byte %d).", syn.Error(), syn.Offset))
	case errors.Is(err, io.ErrUnexpectedEOF):
		return ErrMsg(client.CodeMalformedJSON, "Malformed JSON body: unexpected end of the body.")
	case errors.As(err, &typ):
		want := jsonKind(typ.Type)
		// Value is "number 4242..." for a number: name only its kind, so
		// that a card number or CVC sent as a number is never echoed.
		got, _, _ := strings.Cut(typ.Value, " ")
		if typ.Field == "" {
			return ErrMsg(client.CodeMalformedJSON, fmt.Sprintf("Malformed JSON body: the body must be %s, not %s.", want, got))
		}
		return ErrMsg(client.CodeMalformedJSON, fmt.Sprintf("Malformed JSON body: field %q must be %s, not %s.", typ.Field, want, got))
	}
	if _, ok := valueRuleReason(err); ok {
		// Only after a rule failure that walkValues could not place.
		return ErrMsg(client.CodeMalformedJSON, "Malformed JSON body.")
	}
	return ErrMsg(client.CodeMalformedJSON, "Malformed JSON body: a field has an invalid value.")
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

var (
	jsonUnmarshalerType = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// walkValues walks raw and the Go type t together and calls visit with
// the path and error of every value whose own UnmarshalJSON (or
// UnmarshalText) fails; encoding/json stops at the first such error
// without saying which field it came from. It returns raw with each value
// for which visit returned true replaced by null, and whether there was
// one; objects keep their members in order, duplicates included, so that
// the patched body decodes like the original.
func walkValues(raw []byte, t reflect.Type, path string, visit func(path string, err error) (replace bool)) ([]byte, bool) {
	raw = bytes.TrimSpace(raw)
	if t == nil || len(raw) == 0 {
		return raw, false
	}
	pt := reflect.PointerTo(t)
	if pt.Implements(jsonUnmarshalerType) {
		if err := reflect.New(t).Interface().(json.Unmarshaler).UnmarshalJSON(raw); err != nil && visit(path, err) {
			return []byte("null"), true
		}
		return raw, false
	}
	if pt.Implements(textUnmarshalerType) && raw[0] == '"' {
		var str string
		if json.Unmarshal(raw, &str) != nil {
			return raw, false
		}
		if err := reflect.New(t).Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(str)); err != nil && visit(path, err) {
			return []byte("null"), true
		}
		return raw, false
	}
	switch t.Kind() {
	case reflect.Pointer:
		return walkValues(raw, t.Elem(), path, visit)
	case reflect.Struct, reflect.Map:
		members, ok := objectMembers(raw)
		if !ok {
			return raw, false
		}
		changed := false
		for i, m := range members {
			var ft reflect.Type
			if t.Kind() == reflect.Map {
				ft = t.Elem()
			} else if ft, ok = fieldByJSONName(t, m.key); !ok {
				continue
			}
			if out, c := walkValues(m.raw, ft, fielderr.Join(path, m.key), visit); c {
				members[i].raw, changed = out, true
			}
		}
		if !changed {
			return raw, false
		}
		b := []byte{'{'}
		for i, m := range members {
			if i > 0 {
				b = append(b, ',')
			}
			k, _ := json.Marshal(m.key)
			b = append(append(append(b, k...), ':'), m.raw...)
		}
		return append(b, '}'), true
	case reflect.Slice, reflect.Array:
		var a []json.RawMessage
		if json.Unmarshal(raw, &a) != nil {
			return raw, false
		}
		changed := false
		for i, el := range a {
			if out, c := walkValues(el, t.Elem(), fielderr.Index(path, i), visit); c {
				a[i], changed = out, true
			}
		}
		if !changed {
			return raw, false
		}
		b, _ := json.Marshal(a)
		return b, true
	}
	return raw, false
}

// member is one member of a JSON object, as it is in the body.
type member struct {
	key string
	raw json.RawMessage
}

// objectMembers returns the members of the JSON object raw in order,
// duplicates included; ok is false when raw is not an object.
func objectMembers(raw []byte) ([]member, bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, false
	}
	var out []member
	for dec.More() {
		tok, err := dec.Token()
		key, ok := tok.(string)
		if err != nil || !ok {
			return nil, false
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, false
		}
		out = append(out, member{key, v})
	}
	return out, true
}

// fieldByJSONName finds the type of the struct field that encoding/json
// would decode key into: exact tag or name match first, then a
// case-insensitive one, looking into embedded structs.
func fieldByJSONName(t reflect.Type, key string) (reflect.Type, bool) {
	var fold reflect.Type
	var walk func(t reflect.Type) reflect.Type
	walk = func(t reflect.Type) reflect.Type {
		for i := range t.NumField() {
			f := t.Field(i)
			tag := f.Tag.Get("json")
			if tag == "-" {
				continue
			}
			name, _, _ := strings.Cut(tag, ",")
			if f.Anonymous && name == "" {
				et := f.Type
				if et.Kind() == reflect.Pointer {
					et = et.Elem()
				}
				if et.Kind() == reflect.Struct {
					if ft := walk(et); ft != nil {
						return ft
					}
					continue
				}
			}
			if !f.IsExported() {
				continue
			}
			if name == "" {
				name = f.Name
			}
			if name == key {
				return f.Type
			}
			if fold == nil && strings.EqualFold(name, key) {
				fold = f.Type
			}
		}
		return nil
	}
	if ft := walk(t); ft != nil {
		return ft, true
	}
	return fold, fold != nil
}

// MissingFields checks that each path is present and not null in the JSON
// object raw, and returns path -> "required" for each that is not (nil when
// all are there). Paths are dotted field names; "[]" after a name applies
// the rest of the path to every element of that array:
//
//	"checkNumber", "menuItems[].price", "customer.address.lineOne"
//
// A nested path is only checked when its parent is present and non-null
// (list the parent too when it is required itself), and results name the
// element: "menuItems[2].price". Values of the wrong type are DecodeBytes'
// business and are skipped here.
func MissingFields(raw []byte, paths ...string) map[string]string {
	return fielderr.Missing(raw, paths...)
}
