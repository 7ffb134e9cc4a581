package checkwire

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/internal/checkfixture"
	"github.com/hospo-dev/hospo-go/possync"
)

// fixture returns the shared realistic check as a POS writes it.
func fixture(testing.TB) []byte { return checkfixture.JSON() }

// decodeOnly runs the decoder alone, without encoding/json behind it.
func decodeOnly(body []byte) (*Push, bool) {
	p := new(Push)
	return p, p.decode(string(body), false)
}

// TestDecoderTakesClientBodies checks that the decoder itself reads what
// clients send: the SDK's encoding of a realistic check, the same spread
// over lines, and bodies with nulls, escapes and members it does not know.
// Without it the decoder could give up on everything, leaving every body
// to encoding/json, and no other test would see.
func TestDecoderTakesClientBodies(t *testing.T) {
	t.Parallel()
	var c possync.Check
	if err := json.Unmarshal(fixture(t), &c); err != nil {
		t.Fatal(err)
	}
	sdk, err := c.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	indented, err := json.MarshalIndent(c, "", "\t")
	if err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string][]byte{
		"fixture":  fixture(t),
		"sdk":      sdk,
		"indented": indented,
		"nulls": []byte(`{"tableNumber":-0,"checkNumber":9007199254740993,"staffId":null,"status":"open","totalAmount":-1.5e1,
			"discounts":[null,{"name":"Café ☕","value":0}],"menuItems":[null,{"modifiers":[],"discount":null,"category":{"name":"","category":null}}]}`),
		"escapes":        []byte(`{"staffId":"a\"b\u00e9\ud83d\ude00","status":"op\u0065n","discounts":[{"name":"aÿb ÿ"}]}`),
		"unknown member": []byte(`{"guests":2,"notes":{"a":[1,true,null,"x",{"b":-1.5e3}]},"menuItems":[{"extra":[]}]}`),
		"folded names":   []byte(`{"TableNumber":3,"LOCATIONID":7,"menuitems":[{"NAME":"x"}]}`),
		"null body":      []byte(" null "),
	} {
		if _, ok := decodeOnly(body); !ok {
			t.Errorf("%s: the decoder gave up", name)
			continue
		}
		assertSameAsEncodingJSON(t, body)
		assertAsOracle(t, body)
	}
}

// TestDecoderGivesUp lists bodies the decoder must leave to encoding/json:
// errors, and members that come twice (mergeRepeated's business).
func TestDecoderGivesUp(t *testing.T) {
	t.Parallel()
	for _, body := range []string{
		``, ` `, `[]`, `"x"`, `1`, `true`, `{"tableNumber":1}x`, `{"tableNumber":1,}`, `{"tableNumber":1 "guests":2}`,
		`{"tableNumber":1,"tableNumber":2}`, // repeated
		`{"name":1,"NAME":2}`,               // unknown, so not repeated, but...
		`{"staffId":"a\x"}`,                 // bad escape
		`{"staffId":"a` + "\t" + `"}`,       // control character
		`{"guests":1.0}`, `{"guests":1e2}`, `{"guests":01}`, `{"guests":"1"}`, `{"guests":-}`, `{"guests":true}`,
		`{"guests":99999999999999999999}`,
		`{"totalAmount":"1.00"}`, `{"totalAmount":1.001}`, `{"totalAmount":1.}`, `{"totalAmount":.5}`, `{"totalAmount":1e}`,
		`{"discounts":{}}`, `{"discounts":[1]}`, `{"menuItems":[{"modifiers":{}}]}`,
		`{"menuItems":[{"category":{"name":"x","Name":"y"}}]}`, // repeated, folded
		`{"notes":[1,]}`, `{"notes":{"a" 1}}`, `{"notes":nul}`,
	} {
		_, ok := decodeOnly([]byte(body))
		if body == `{"name":1,"NAME":2}` {
			// Unknown members are skipped, however often they come.
			if !ok {
				t.Errorf("decoder refused %q", body)
			}
			continue
		}
		if ok {
			t.Errorf("decoder accepted %q", body)
		}
	}
}

// TestDepthLimit checks that the decoder refuses exactly the bodies too
// deep for encoding/json.
func TestDepthLimit(t *testing.T) {
	t.Parallel()
	for _, depth := range []int{maxDepth - 1, maxDepth, maxDepth + 1} {
		// Categories: the body, menuItems, the item, then one object per
		// category.
		cats := depth - 3
		body := []byte(`{"menuItems":[{"category":` + strings.Repeat(`{"category":`, cats-1) + `{}` + strings.Repeat(`}`, cats-1) + `}]}`)
		// Unknown members: the body, then one array per level.
		notes := []byte(`{"notes":` + strings.Repeat(`[`, depth-1) + strings.Repeat(`]`, depth-1) + `}`)
		for name, b := range map[string][]byte{"categories": body, "unknown": notes} {
			_, ok := decodeOnly(b)
			if want := json.Unmarshal(b, new(possync.Check)) == nil; ok != want {
				t.Errorf("%s at depth %d: decoder %v, encoding/json %v", name, depth, ok, want)
			}
			assertAsOracle(t, b)
		}
	}
}

// TestRepeatedMembers checks bodies whose members come twice against the
// oracle: objects merge, arrays reuse their elements, null resets.
func TestRepeatedMembers(t *testing.T) {
	t.Parallel()
	valid := string(fixture(t))
	valid = valid[:len(valid)-2] // without the closing brace: members can be added
	for _, extra := range []string{
		`"guests":null`,
		`"guests":3`,
		`"GUESTS":null`,
		`"menuItems":[{"name":"only a name"}]`,
		`"menuItems":[]`,
		`"menuItems":null,"menuItems":[]`,
		`"discounts":[{"name":"a"},{"value":1}],"discounts":[{"value":2}]`,
		`"discounts":[{"name":"a","value":1},{"name":"b","value":2}],"discounts":[{"value":3}],"discounts":[{"value":4},{"value":5}]`,
		`"discounts":[{"name":"a","value":1},{"name":"b","value":2},{"name":"c","value":3}],"discounts":[{}],"discounts":[{},{},{}]`,
		`"discounts":[null,{"name":"b","value":2}],"discounts":[{"value":4},null]`,
	} {
		body := []byte(valid + ",\n" + extra + "}")
		if _, ok := decodeOnly(body); ok {
			t.Errorf("decoder alone accepted repeated members: %s", extra)
		}
		assertAsOracle(t, body)
	}
	for _, body := range []string{
		`{"menuItems":[{"category":{"name":"a"},"category":{"category":{"name":"p"}}}]}`,
		`{"menuItems":[{"category":{"name":"a"},"category":null}]}`,
		`{"menuItems":[{"modifiers":[{"id":1,"name":"m"}],"modifiers":[{"price":1}]}]}`,
		`{"menuItems":[{"discount":{"name":"d"},"Discount":{"value":-1}}]}`,
		`{"notes":1,"notes":{"a":1,"a":[2]}}`,
	} {
		assertAsOracle(t, []byte(body))
	}
}

// TestValidate checks the fields a push is refused for.
func TestValidate(t *testing.T) {
	t.Parallel()
	valid := string(fixture(t))
	tests := []struct {
		name string
		body string
		want map[string]string
	}{
		{"valid", valid, nil},
		{"empty object", `{}`, map[string]string{
			"tableNumber": "required", "checkNumber": "required", "locationId": "required", "staffId": "required",
			"guests": "required", "status": "required", "totalAmount": "required", "outstandingAmount": "required",
			"serviceChargeAmount": "required", "tipsPaid": "required", "discounts": "required", "menuItems": "required",
		}},
		{"null members and elements", strings.Replace(strings.Replace(valid, `"staffId": "S-0042"`, `"staffId": null`, 1),
			`{"name": "Happy hour", "value": -4.50}`, `null`, 1),
			map[string]string{"staffId": "required", "discounts[0]": "required"}},
		{"rules of possync", strings.Replace(strings.Replace(valid, `"guests": 4`, `"guests": -4`, 1), `"status": "open"`, `"status": "parked"`, 1),
			map[string]string{"guests": "must not be negative", "status": "must be open, closed or void"}},
		{"required wins over a rule", strings.Replace(valid, `"checkNumber": 40117,`, ``, 1),
			map[string]string{"checkNumber": "required"}},
		{"nested", `{"tableNumber":1,"checkNumber":1,"locationId":1,"staffId":"s","guests":1,"status":"open","totalAmount":1,
			"outstandingAmount":1,"serviceChargeAmount":0,"tipsPaid":0,"discounts":[],"menuItems":[{"id":1,"name":"x","quantity":1,
			"price":1,"priceSold":1,"modifiers":[{"id":1,"price":0,"modifiers":[null]}],"discount":{"name":"d"},
			"category":{"name":"c","category":{"category":null}}},{}]}`,
			map[string]string{
				"menuItems[0].modifiers[0].name": "required", "menuItems[0].modifiers[0].modifiers[0]": "required",
				"menuItems[0].discount.value": "required", "menuItems[0].category.category.name": "required",
				"menuItems[1].id": "required", "menuItems[1].name": "required", "menuItems[1].quantity": "required",
				"menuItems[1].price": "required", "menuItems[1].priceSold": "required", "menuItems[1].category": "required",
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, err := Decode([]byte(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			var got map[string]string
			if err := p.Validate(); err != nil {
				ae := apiError(t, err)
				if ae.Code != client.CodeValidation {
					t.Fatalf("code %d, want 400002", ae.Code)
				}
				got = ae.ContextData.(map[string]string)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
			assertAsOracle(t, []byte(tt.body))
		})
	}
}

// TestDeepNesting checks that fields are named down to one level past
// possync.MaxNesting, and not below, as before.
func TestDeepNesting(t *testing.T) {
	t.Parallel()
	for levels := possync.MaxNesting - 1; levels <= possync.MaxNesting+3; levels++ {
		mods := `null`
		cats := `null`
		for range levels {
			mods = `[{"id":1,"modifiers":` + mods + `},null]`
			cats = `{"category":` + cats + `}`
		}
		body := `{"menuItems":[{"modifiers":` + mods + `,"category":` + cats + `}]}`
		assertAsOracle(t, []byte(body))
	}
}

// TestLocationID checks what the request journal is told.
func TestLocationID(t *testing.T) {
	t.Parallel()
	for body, want := range map[string]any{`{"locationId":7}`: int64(7), `{"locationId":null}`: nil, `{}`: nil, `null`: nil} {
		p, err := Decode([]byte(body))
		if err != nil {
			t.Fatal(err)
		}
		var got any
		if id := p.LocationID(); id != nil {
			got = *id
		}
		if got != want {
			t.Errorf("%s: LocationID() = %v, want %v", body, got, want)
		}
	}
}

// FuzzCheckDecodeFast holds the decoder to encoding/json and to the
// oracle: whatever it accepts, encoding/json must decode without error
// into the same check, and for every body Decode and Validate answer as
// the oracle does.
//
//	go test -run='^$' -fuzz=FuzzCheckDecodeFast -fuzztime=60s ./refserver/internal/checkwire/
func FuzzCheckDecodeFast(f *testing.F) {
	f.Add(fixture(f))
	f.Add([]byte(`{"tableNumber":1,"discounts":[],"menuItems":[{"id":1,"modifiers":[{"modifiers":null}],"category":{"name":"x","category":{"name":"y"}}}]}`))
	f.Add([]byte(`{"totalAmount":12.5,"tipsPaid":-0.01,"outstandingAmount":1E+2}`))
	f.Add([]byte(`{"discounts":[{"name":"a"}],"Discounts":[{"value":1}],"staffId":"\u00e9"}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		if _, ok := decodeOnly(body); ok {
			assertSameAsEncodingJSON(t, body)
		}
		assertAsOracle(t, body)
	})
}

// assertSameAsEncodingJSON checks that the decoder reads body into the
// check encoding/json reads it into.
func assertSameAsEncodingJSON(t *testing.T, body []byte) {
	t.Helper()
	p, _ := decodeOnly(body)
	var want possync.Check
	if err := json.Unmarshal(body, &want); err != nil {
		t.Fatalf("decoder accepted a body encoding/json refuses (%v):\n%s", err, body)
	}
	if d := cmp.Diff(want, p.Check, moneyEqual); d != "" {
		t.Fatalf("decoder differs from encoding/json (-want +got):\n%s\nbody:\n%s", d, body)
	}
}

// FuzzCheckPushDecode runs arbitrary bodies through Decode and Validate.
// Every body must end as a 400001 or a 400002 with the failing fields
// named, or as a check that passes Validate and whose canonical encoding
// (what is stored and hashed) decodes and validates to itself. Seeds are
// in testdata/fuzz/FuzzCheckPushDecode.
//
//	go test -run='^$' -fuzz=FuzzCheckPushDecode -fuzztime=30s ./refserver/internal/checkwire/
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
	p, err := Decode(body)
	if err == nil {
		if err = p.Validate(); err == nil {
			if verr := p.Check.Validate(); verr != nil {
				t.Fatalf("an accepted check fails Validate: %v", verr)
			}
			b, merr := p.Check.MarshalJSON()
			if merr != nil {
				t.Fatalf("an accepted check does not encode: %v", merr)
			}
			return b, true
		}
	}
	ae := apiError(t, err)
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
