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
	"sort"
	"strings"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/internal/fielderr"
)

// Decode decodes the request body, which must be exactly one JSON value,
// into v, and returns path -> "required" for each of the required paths
// that is absent or null (see MissingFields): an empty map, never nil, so
// that a handler can add its own findings before answering them in one
// 400002. err is a 400001 for an empty body, bad JSON or a field of the
// wrong JSON type (naming the field), or a 400002 for money with more than
// two fraction digits (naming the path). Unknown fields are ignored, so
// that older servers accept requests from newer clients.
func Decode(r *http.Request, v any, required ...string) (missing map[string]string, err error) {
	body := RequestFrom(r.Context()).Body()
	if err := DecodeBytes(body, v); err != nil {
		return nil, err
	}
	missing = MissingFields(body, required...)
	if missing == nil {
		missing = map[string]string{}
	}
	return missing, nil
}

// DecodeBytes decodes body into v with the errors of Decode.
func DecodeBytes(body []byte, v any) error {
	if len(bytes.TrimSpace(body)) == 0 {
		return ErrMsg(client.CodeMalformedJSON, "Malformed JSON body: the body is empty.")
	}
	// json.Unmarshal works on the body in place; a Decoder would copy it
	// into a buffer of its own first. Its errors are less precise (a body
	// cut off inside a literal is "invalid character", trailing data hides
	// a type error), so a failure is decoded again, into a fresh value, the
	// Decoder's way to describe it.
	if err := json.Unmarshal(body, v); err != nil {
		fresh := reflect.New(reflect.TypeOf(v).Elem()).Interface()
		return describeDecodeFailure(body, fresh)
	}
	return nil
}

// describeDecodeFailure decodes body, which json.Unmarshal refused, with a
// Decoder and returns the catalogue error for why.
func describeDecodeFailure(body []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(v); err != nil {
		return decodeError(body, v, err)
	}
	return ErrMsg(client.CodeMalformedJSON, "Malformed JSON body: unexpected data after the JSON value.")
}

func decodeError(body []byte, v any, err error) error {
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
		if typ.Field == "" {
			return ErrMsg(client.CodeMalformedJSON, fmt.Sprintf("Malformed JSON body: the body must be %s, not %s.", want, typ.Value))
		}
		return ErrMsg(client.CodeMalformedJSON, fmt.Sprintf("Malformed JSON body: field %q must be %s, not %s.", typ.Field, want, typ.Value))
	}
	// An error from a field's own UnmarshalJSON (money, enums, times):
	// find which field it came from.
	path, ferr := locateValueError(body, reflect.TypeOf(v), "")
	if ferr == nil {
		return ErrMsg(client.CodeMalformedJSON, "Malformed JSON body.")
	}
	switch {
	case errors.Is(ferr, client.ErrMoneyPrecision):
		return Invalid(map[string]string{path: fielderr.ReasonMoneyPrecision})
	case errors.Is(ferr, client.ErrMoneyRange):
		return Invalid(map[string]string{path: fielderr.ReasonOutOfRange})
	case errors.Is(ferr, client.ErrMoneySyntax):
		return ErrMsg(client.CodeMalformedJSON, fmt.Sprintf("Malformed JSON body: field %q must be a number.", path))
	}
	return ErrMsg(client.CodeMalformedJSON, fmt.Sprintf("Malformed JSON body: field %q has an invalid value.", path))
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

// locateValueError walks raw and the Go type t together and returns the
// path of the first value whose own UnmarshalJSON (or UnmarshalText) fails,
// with that error. encoding/json does not say which field such an error
// came from.
func locateValueError(raw []byte, t reflect.Type, path string) (string, error) {
	if t == nil {
		return "", nil
	}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "", nil
	}
	pt := reflect.PointerTo(t)
	if pt.Implements(jsonUnmarshalerType) {
		if err := reflect.New(t).Interface().(json.Unmarshaler).UnmarshalJSON(raw); err != nil {
			return path, err
		}
		return "", nil
	}
	if pt.Implements(textUnmarshalerType) && raw[0] == '"' {
		var str string
		if json.Unmarshal(raw, &str) != nil {
			return "", nil
		}
		if err := reflect.New(t).Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(str)); err != nil {
			return path, err
		}
		return "", nil
	}
	switch t.Kind() {
	case reflect.Pointer:
		return locateValueError(raw, t.Elem(), path)
	case reflect.Struct:
		var m map[string]json.RawMessage
		if json.Unmarshal(raw, &m) != nil {
			return "", nil
		}
		for _, k := range sortedKeys(m) {
			if ft, ok := fieldByJSONName(t, k); ok {
				if p, err := locateValueError(m[k], ft, fielderr.Join(path, k)); err != nil {
					return p, err
				}
			}
		}
	case reflect.Map:
		var m map[string]json.RawMessage
		if json.Unmarshal(raw, &m) != nil {
			return "", nil
		}
		for _, k := range sortedKeys(m) {
			if p, err := locateValueError(m[k], t.Elem(), fielderr.Join(path, k)); err != nil {
				return p, err
			}
		}
	case reflect.Slice, reflect.Array:
		var a []json.RawMessage
		if json.Unmarshal(raw, &a) != nil {
			return "", nil
		}
		for i, el := range a {
			if p, err := locateValueError(el, t.Elem(), fielderr.Index(path, i)); err != nil {
				return p, err
			}
		}
	}
	return "", nil
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

func sortedKeys(m map[string]json.RawMessage) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
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
