package api

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"

	"github.com/hospo-dev/hospo-go/client"
)

func TestMissingFields(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		raw   string
		paths []string
		want  map[string]string
	}{
		{"all present", `{"a":1,"b":"x"}`, []string{"a", "b"}, nil},
		{"absent and null", `{"a":null}`, []string{"a", "b"}, map[string]string{"a": "required", "b": "required"}},
		{"zero values count as present", `{"a":0,"b":"","c":false,"d":[],"e":{}}`, []string{"a", "b", "c", "d", "e"}, nil},
		{"nested parent absent is not checked", `{}`, []string{"customer.address.lineOne"}, nil},
		{"nested parent null is not checked", `{"customer":null}`, []string{"customer.name"}, nil},
		{"nested present", `{"customer":{"address":{}}}`, []string{"customer.name", "customer.address.lineOne"},
			map[string]string{"customer.name": "required", "customer.address.lineOne": "required"}},
		{"array elements", `{"menuItems":[{"price":1},{},{"price":null}]}`, []string{"menuItems", "menuItems[].price"},
			map[string]string{"menuItems[1].price": "required", "menuItems[2].price": "required"}},
		{"null array element", `{"items":[null,{"plu":"a"}]}`, []string{"items[].plu"}, map[string]string{"items[0]": "required"}},
		{"nested arrays", `{"items":[{"options":[{"plu":"a"},{}]}]}`, []string{"items[].options[].plu"},
			map[string]string{"items[0].options[1].plu": "required"}},
		{"array absent", `{}`, []string{"items[].plu"}, nil},
		{"array required", `{}`, []string{"items", "items[].plu"}, map[string]string{"items": "required"}},
		{"wrong types are skipped", `{"items":"x","c":5}`, []string{"items[].plu", "c.d"}, nil},
		{"not an object", `[1]`, []string{"a"}, map[string]string{"a": "required"}},
		{"not JSON", `{`, []string{"a"}, map[string]string{"a": "required"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tt.want, MissingFields([]byte(tt.raw), tt.paths...)); diff != "" {
				t.Errorf("MissingFields(%s, %q) (-want +got):\n%s", tt.raw, tt.paths, diff)
			}
		})
	}
}

type decodeTarget struct {
	Name   string       `json:"name"`
	Count  int          `json:"count"`
	Amount client.Money `json:"amount"`
	Items  []struct {
		Price client.Money  `json:"price"`
		Tip   *client.Money `json:"tip"`
	} `json:"items"`
	Nested struct {
		Inner struct {
			Value client.Money `json:"value"`
		} `json:"inner"`
	} `json:"nested"`
	ByName map[string]client.Money `json:"byName"`
}

// TestDecodeBytes: what a body read as a request's is decoded to, or the
// catalogue error it gets, whichever of readBody and DecodeBytes finds it.
func TestDecodeBytes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		raw     string
		code    client.Code // 0: success
		context map[string]string
	}{
		{"ok", `{"name":"a","count":2,"amount":1.5,"items":[{"price":2}]}`, 0, nil},
		{"unknown fields ignored", `{"other":1}`, 0, nil},
		{"empty", ``, client.CodeMalformedJSON, nil},
		{"whitespace", " \n", client.CodeMalformedJSON, nil},
		{"syntax", `{"name":}`, client.CodeMalformedJSON, nil},
		{"truncated", `{"name":"a"`, client.CodeMalformedJSON, nil},
		{"trailing", `{} x`, client.CodeMalformedJSON, nil},
		{"two values", `{}{}`, client.CodeMalformedJSON, nil},
		{"wrong type", `{"count":"2"}`, client.CodeMalformedJSON, nil},
		{"fraction for int", `{"count":1.5}`, client.CodeMalformedJSON, nil},
		{"array body", `[]`, client.CodeMalformedJSON, nil},
		{"money string", `{"amount":"1.00"}`, client.CodeMalformedJSON, nil},
		{"money precision", `{"amount":1.005}`, client.CodeValidation, map[string]string{"amount": "must have at most 2 decimal places"}},
		{"money precision in array", `{"items":[{"price":1},{"price":1.001}]}`, client.CodeValidation, map[string]string{"items[1].price": "must have at most 2 decimal places"}},
		{"money precision pointer", `{"items":[{"tip":0.125}]}`, client.CodeValidation, map[string]string{"items[0].tip": "must have at most 2 decimal places"}},
		{"money precision nested", `{"nested":{"inner":{"value":3.333}}}`, client.CodeValidation, map[string]string{"nested.inner.value": "must have at most 2 decimal places"}},
		{"money precision map", `{"byName":{"x":0.001}}`, client.CodeValidation, map[string]string{"byName.x": "must have at most 2 decimal places"}},
		{"money case-insensitive field", `{"AMOUNT":1.001}`, client.CodeValidation, map[string]string{"AMOUNT": "must have at most 2 decimal places"}},
		// A valid JSON number is never a 400001, whatever its exponent.
		{"money tiny exponent", `{"amount":1e-31}`, client.CodeValidation, map[string]string{"amount": "must have at most 2 decimal places"}},
		{"money huge exponent", `{"amount":1e999}`, client.CodeValidation, map[string]string{"amount": "is out of range"}},
		// Strings decode to exactly what was sent, or not at all.
		{"utf-8", `{"name":"caf\u00e9 café 😀 \ud83d\ude00"}`, 0, nil},
		{"escaped backslash before u", `{"name":"\\ud800"}`, 0, nil},
		{"invalid utf-8", "{\"name\":\"caf\xe9\"}", client.CodeMalformedJSON, nil},
		{"invalid utf-8 in a key", "{\"n\xffame\":\"a\"}", client.CodeMalformedJSON, nil},
		{"lone high surrogate", `{"name":"\ud83d"}`, client.CodeMalformedJSON, nil},
		{"high surrogate then letter", `{"name":"\ud83dx\u0041"}`, client.CodeMalformedJSON, nil},
		{"lone low surrogate", `{"name":"\uDE00"}`, client.CodeMalformedJSON, nil},
		{"two high surrogates", `{"name":"\ud83d\ud83d"}`, client.CodeMalformedJSON, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var v decodeTarget
			err := readAndDecode(tt.raw, &v)
			if tt.code == 0 {
				if err != nil {
					t.Fatalf("decode(%s) = %v", tt.raw, err)
				}
				return
			}
			var ae *Error
			if !errors.As(err, &ae) || ae.Code != tt.code {
				t.Fatalf("decode(%s) = %v, want code %d", tt.raw, err, tt.code)
			}
			if tt.context != nil {
				if diff := cmp.Diff(tt.context, ae.ContextData); diff != "" {
					t.Errorf("contextData (-want +got):\n%s", diff)
				}
			}
		})
	}
}

// readAndDecode reads raw as the body of a request, as the guard of every
// route does (readBody refuses text that encoding/json would alter), then
// decodes it into v.
func readAndDecode(raw string, v any) error {
	r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(raw))
	body, err := readBody(httptest.NewRecorder(), r, new(bufferedBody))
	if err != nil {
		return err
	}
	return DecodeBytes(body, v)
}

// FuzzDecodeJSON checks that no input makes decoding or the presence check
// panic, and that every failure is a catalogue error (never a 500).
func FuzzDecodeJSON(f *testing.F) {
	for _, s := range []string{`{}`, `{"name":"a","items":[{"price":1.25}]}`, `{"amount":1.001}`, `[`, `null`, `{"items":[null]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var v decodeTarget
		if err := DecodeBytes(raw, &v); err != nil {
			var ae *Error
			if !errors.As(err, &ae) || (ae.Code != client.CodeMalformedJSON && ae.Code != client.CodeValidation) {
				t.Fatalf("decode(%q) = %v, want a 400001 or 400002", raw, err)
			}
		}
		for k, v := range MissingFields(raw, "name", "items[].price", "nested.inner.value", "items[].options[].plu") {
			if v != "required" || k == "" {
				t.Fatalf("MissingFields(%q) reported %q: %q", raw, k, v)
			}
		}
	})
}

// TestDecodeReportsEveryField: a value that breaks its type's rule does not
// stop decoding, so one answer names it together with every other failing
// field (contract.md section 2), while a malformed body stays a 400001.
func TestDecodeReportsEveryField(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		raw      string
		required []string
		want     map[string]string // nil: a 400001
	}{
		{"money and missing", `{"amount":1.005}`, []string{"name", "amount"},
			map[string]string{"amount": "must have at most 2 decimal places", "name": "required"}},
		{"every money value", `{"name":"a","amount":1.005,"items":[{"price":1},{"price":2.001,"tip":1e999}],"byName":{"x":0.001}}`, []string{"name"},
			map[string]string{"amount": "must have at most 2 decimal places", "items[1].price": "must have at most 2 decimal places",
				"items[1].tip": "is out of range", "byName.x": "must have at most 2 decimal places"}},
		{"type error after money", `{"amount":1.005,"count":"x"}`, nil, nil},
		{"type error before money", `{"count":"x","amount":1.005}`, nil, nil},
		{"money syntax beside precision", `{"amount":1.005,"items":[{"price":"1"}]}`, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := httptest.NewRequest(http.MethodPost, "/", nil)
			r = r.WithContext(newContext(r.Context(), &Request{body: []byte(tt.raw)}))
			var v decodeTarget
			got, err := Decode(r, &v, tt.required...)
			if tt.want == nil {
				var ae *Error
				if !errors.As(err, &ae) || ae.Code != client.CodeMalformedJSON {
					t.Fatalf("Decode(%s) = %v, %v; want a 400001", tt.raw, got, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Decode(%s): %v", tt.raw, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Decode(%s) problems (-want +got):\n%s", tt.raw, diff)
			}
		})
	}
}

// TestValueProblems: DecodeBytes decodes everything but the values that
// break their rule, and ValueProblems hands those back.
func TestValueProblems(t *testing.T) {
	t.Parallel()
	var v decodeTarget
	err := DecodeBytes([]byte(`{"name":"a","amount":1.005,"count":3,"items":[{"price":1.25},{"price":0.001}]}`), &v)
	var ae *Error
	if !errors.As(err, &ae) || ae.Code != client.CodeValidation {
		t.Fatalf("DecodeBytes = %v, want a 400002", err)
	}
	problems, err := ValueProblems(err)
	if err != nil {
		t.Fatalf("ValueProblems: %v", err)
	}
	want := map[string]string{"amount": "must have at most 2 decimal places", "items[1].price": "must have at most 2 decimal places"}
	if diff := cmp.Diff(want, problems); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
	if v.Name != "a" || v.Count != 3 || !v.Amount.IsZero() || len(v.Items) != 2 || v.Items[0].Price.String() != "1.25" {
		t.Errorf("decoded %+v; want every other value decoded", v)
	}
	other := Err(client.CodeValidation)
	if p, err := ValueProblems(other); p != nil || err != other {
		t.Errorf("ValueProblems(a plain 400002) = %v, %v; want it back as it is", p, err)
	}
}

func TestDecodeBytesMessages(t *testing.T) {
	t.Parallel()
	for raw, want := range map[string]string{
		`{"name":"a"`:     "Malformed JSON body: unexpected end of the body.",
		`{"name":tr`:      "Malformed JSON body: unexpected end of the body.",
		`{"amount":1.`:    "Malformed JSON body: unexpected end of the body.",
		`{} x`:            "Malformed JSON body: unexpected data after the JSON value.",
		`{}{}`:            "Malformed JSON body: unexpected data after the JSON value.",
		`{"count":"2"} x`: `Malformed JSON body: field "count" must be an integer, not string.`,
		// A card number sent as a number is named by its kind only.
		`{"name":4242424242424242}`: `Malformed JSON body: field "name" must be a string, not number.`,
		`{"name":"a"} {"x":`:        "Malformed JSON body: unexpected data after the JSON value.",
	} {
		var v decodeTarget
		var ae *Error
		if err := DecodeBytes([]byte(raw), &v); !errors.As(err, &ae) || ae.Message != want {
			t.Errorf("decode(%s) = %v, want message %q", raw, err, want)
		}
	}
}

func TestReadAllWithDeclaredLength(t *testing.T) {
	t.Parallel()
	body := strings.Repeat("abcdefgh", 1000)
	for _, declared := range []int64{-1, 0, 1, 100, int64(len(body)), int64(len(body)) + 50, maxPrealloc + 1, MaxBodyBytes + 1} {
		got, err := readAll(iotest.OneByteReader(strings.NewReader(body)), declared)
		if err != nil || string(got) != body {
			t.Errorf("declared %d: %d bytes, %v; want all %d", declared, len(got), err, len(body))
		}
	}
	// A body shorter than declared is read as it is; net/http reports a
	// connection cut before the declared end as an error of Read.
	if got, err := readAll(strings.NewReader("short"), 100); err != nil || string(got) != "short" {
		t.Errorf("short body: %q, %v", got, err)
	}
	boom := errors.New("boom")
	if _, err := readAll(iotest.ErrReader(boom), 10); !errors.Is(err, boom) {
		t.Errorf("read error: %v", err)
	}
}
