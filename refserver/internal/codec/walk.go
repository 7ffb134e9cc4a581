package codec

import (
	"bytes"
	"encoding"
	"encoding/json"
	"reflect"
	"strings"

	"github.com/hospo-dev/hospo-go/internal/fielderr"
)

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
