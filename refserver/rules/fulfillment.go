package rules

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/fulfillment"
	"github.com/hospo-dev/hospo-go/internal/fielderr"
	"github.com/hospo-dev/hospo-go/refserver/internal/api"
)

// ffKind is the JSON type (and, for strings and numbers, the format) a
// fulfillment field must have.
type ffKind int

const (
	ffString  ffKind = iota
	ffTime           // a string: ISO 8601 date-time with offset (RFC 3339)
	ffNumber         // a finite number
	ffInteger        // a whole number
	ffMoney          // a number with at most two fraction digits
	ffObject
)

func (k ffKind) want() string {
	switch k {
	case ffString, ffTime:
		return "a string"
	case ffNumber, ffInteger, ffMoney:
		return "a number"
	}
	return "an object"
}

// ffField describes one field of a fulfillment body (interface.md 4.13 to
// 4.15).
type ffField struct {
	path     string
	kind     ffKind
	nullable bool
}

// fulfillmentSpecs lists the fields of each fulfillment body, parents
// before their children, read from the SDK's types (the one definition of
// the wire format): a pointer is nullable, every other field is required.
var fulfillmentSpecs = func() map[fulfillment.Type][]ffField {
	specs := map[fulfillment.Type][]ffField{}
	for _, t := range fulfillment.Types() {
		specs[t] = appendFields(nil, reflect.TypeOf(fulfillment.NewMethod(t)).Elem(), "")
	}
	return specs
}()

var (
	timeType  = reflect.TypeFor[time.Time]()
	moneyType = reflect.TypeFor[client.Money]()
)

// appendFields appends the JSON fields of the struct type t, under prefix.
func appendFields(specs []ffField, t reflect.Type, prefix string) []ffField {
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || name == "" || name == "-" {
			continue
		}
		sp := ffField{path: fielderr.Join(prefix, name)}
		ft := f.Type
		if ft.Kind() == reflect.Pointer {
			ft, sp.nullable = ft.Elem(), true
		}
		switch {
		case ft == timeType:
			sp.kind = ffTime
		case ft == moneyType:
			sp.kind = ffMoney
		case ft.Kind() == reflect.String:
			sp.kind = ffString
		case ft.Kind() == reflect.Float64:
			sp.kind = ffNumber
		case ft.Kind() == reflect.Int:
			sp.kind = ffInteger
		case ft.Kind() == reflect.Struct:
			sp.kind = ffObject
			specs = appendFields(append(specs, sp), ft, sp.path)
			continue
		default:
			panic("rules: fulfillment field " + sp.path + " has a type the body checks do not know")
		}
		specs = append(specs, sp)
	}
	return specs
}

// DecodeFulfillment checks a fulfillment body and decodes it into the SDK's
// type for t (one definition of the wire format, and of its rules:
// Method.Validate runs here too, so the SDK and the server report the same
// paths).
//
//   - A body that is not a JSON object, or a field of the wrong JSON type
//     (a string where a number belongs), is a 400001 naming the field, like
//     every other endpoint's decoding.
//   - A missing or null non-nullable field, a time that is not ISO 8601
//     with an offset, a fractional tableNumber, money with more than two
//     fraction digits, and whatever Validate refuses (empty required
//     strings, out-of-range coordinates, a negative charge...) are one
//     400002 naming every such field.
//
// Unknown fields are ignored and are not stored.
func DecodeFulfillment(t fulfillment.Type, raw []byte) (fulfillment.Method, error) {
	specs := fulfillmentSpecs[t]
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var root any
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, api.ErrMsg(client.CodeMalformedJSON, "Malformed JSON body: the body is empty.")
	}
	if err := dec.Decode(&root); err != nil {
		return nil, api.ErrMsg(client.CodeMalformedJSON, "Malformed JSON body: "+err.Error()+".")
	}
	var extra json.RawMessage
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return nil, api.ErrMsg(client.CodeMalformedJSON, "Malformed JSON body: unexpected data after the JSON value.")
	}
	obj, ok := root.(map[string]any)
	if !ok {
		return nil, api.ErrMsg(client.CodeMalformedJSON, "Malformed JSON body: the body must be an object.")
	}

	var typeErrs []string
	var bad fielderr.Set
	for _, sp := range specs {
		parent, key, found := fulfillmentParent(obj, sp.path)
		if !found {
			continue
		}
		v, present := parent[key]
		if !present || v == nil {
			continue // bad.Require below reports it when it is required
		}
		if sp.kind == ffInteger {
			v = wholeNumber(v)
			parent[key] = v
		}
		reason, typeOK := checkFieldKind(sp.kind, v)
		if !typeOK {
			typeErrs = append(typeErrs, fmt.Sprintf("field %q must be %s", sp.path, sp.kind.want()))
			continue
		}
		if reason != "" {
			bad.Add(sp.path, reason)
			// Drop the value so the rest of the body still decodes and is
			// checked; the path is already reported.
			delete(parent, key)
		}
	}
	if len(typeErrs) > 0 {
		return nil, api.ErrMsg(client.CodeMalformedJSON, "Malformed JSON body: "+strings.Join(typeErrs, "; ")+".")
	}

	var required []string
	for _, sp := range specs {
		if !sp.nullable {
			required = append(required, sp.path)
		}
	}
	bad.Require(raw, required...)

	clean, err := json.Marshal(obj)
	if err != nil {
		return nil, fmt.Errorf("re-encode fulfillment: %w", err)
	}
	m, err := fulfillment.DecodeMethod(t, clean)
	if err != nil {
		// The kinds were checked above, so this is a case they miss.
		return nil, api.ErrMsg(client.CodeMalformedJSON, "Malformed JSON body.")
	}
	if err := bad.Merge(m.Validate()); err != nil {
		return nil, err
	}
	if bad.Len() > 0 {
		return nil, api.InvalidSet(&bad)
	}
	return m, nil
}

// fulfillmentParent returns the object holding the last segment of a dotted
// path, when every ancestor is a present, non-null object.
func fulfillmentParent(obj map[string]any, path string) (map[string]any, string, bool) {
	segs := strings.Split(path, ".")
	cur := obj
	for _, s := range segs[:len(segs)-1] {
		next, ok := cur[s].(map[string]any)
		if !ok {
			return nil, "", false
		}
		cur = next
	}
	return cur, segs[len(segs)-1], true
}

// checkFieldKind checks v against k. typeOK is false for a value of the wrong
// JSON type; reason is non-empty for a value of the right type that is
// still unusable.
func checkFieldKind(k ffKind, v any) (reason string, typeOK bool) {
	switch k {
	case ffString:
		_, ok := v.(string)
		return "", ok
	case ffTime:
		s, ok := v.(string)
		if !ok {
			return "", false
		}
		if _, err := time.Parse(time.RFC3339, s); err != nil {
			return "must be an ISO 8601 date-time with an offset, like 2025-06-01T18:30:00+01:00", true
		}
		return "", true
	case ffObject:
		_, ok := v.(map[string]any)
		return "", ok
	}
	n, ok := v.(json.Number)
	if !ok {
		return "", false
	}
	switch k {
	case ffNumber:
		f, err := n.Float64()
		if err != nil || math.IsInf(f, 0) {
			return fielderr.ReasonOutOfRange, true
		}
	case ffInteger:
		i, err := strconv.ParseInt(n.String(), 10, 64)
		if err != nil {
			if _, ferr := n.Float64(); ferr == nil && !strings.ContainsAny(n.String(), ".eE") {
				return fielderr.ReasonOutOfRange, true
			}
			return "must be an integer", true
		}
		if i > math.MaxInt32 || i < math.MinInt32 {
			return fielderr.ReasonOutOfRange, true
		}
	case ffMoney:
		if _, err := client.ParseMoney(n.String()); err != nil {
			if errors.Is(err, client.ErrMoneyPrecision) {
				return fielderr.ReasonMoneyPrecision, true
			}
			return fielderr.ReasonOutOfRange, true
		}
	}
	return "", true
}

// wholeNumber writes a JSON number whose value is whole (1e2, 100.0) with
// digits only (100), so that it counts as the integer it is, as it does
// for a JSON Schema validator. Anything else is returned unchanged.
func wholeNumber(v any) any {
	n, ok := v.(json.Number)
	if !ok {
		return v
	}
	f, err := n.Float64()
	if err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return v
	}
	return json.Number(strconv.FormatInt(int64(f), 10))
}

// canonicalFulfillment is the stored form of a fulfillment: the SDK type
// encoded again, so key order, spacing and unknown fields do not decide
// whether a second request sets "the same" fulfillment.
func canonicalFulfillment(m fulfillment.Method) (string, error) {
	b, err := json.Marshal(m)
	if err != nil {
		return "", fmt.Errorf("encode fulfillment: %w", err)
	}
	return string(b), nil
}
