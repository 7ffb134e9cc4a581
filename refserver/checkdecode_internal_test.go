package refserver

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/possync"
)

// TestDecodeCheckFastTakesClientBodies checks that the fast path applies
// to what clients send: the SDK's encoding of a realistic check, the same
// spread over lines, and a body with nulls and empty arrays. Without it
// the fast path could give up on everything and no other test would see.
func TestDecodeCheckFastTakesClientBodies(t *testing.T) {
	t.Parallel()
	fixture, err := os.ReadFile("../possync/testdata/check.json")
	if err != nil {
		t.Fatal(err)
	}
	var c possync.Check
	if err := json.Unmarshal(fixture, &c); err != nil {
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
		"fixture":  fixture,
		"sdk":      sdk,
		"indented": indented,
		"nulls": []byte(`{"tableNumber":-0,"checkNumber":9007199254740993,"staffId":null,"status":"open","totalAmount":-1.5e1,
			"discounts":[null,{"name":"Café ☕","value":0}],"menuItems":[null,{"modifiers":[],"discount":null,"category":{"name":"","category":null}}]}`),
	} {
		var wc wireCheck
		if !decodeCheckFast(body, &wc) {
			t.Errorf("%s: the fast path gave up", name)
			continue
		}
		assertSameAsEncodingJSON(t, body, &wc)
	}
}

// TestDecodeCheckFastGivesUp lists bodies the fast path must leave to
// encoding/json, because they are errors or because encoding/json reads
// them in a way the fast path does not copy.
func TestDecodeCheckFastGivesUp(t *testing.T) {
	t.Parallel()
	for _, body := range []string{
		``, `null`, `[]`, `{"tableNumber":1}x`, `{"tableNumber":1,}`, `{"tableNumber":1 "guests":2}`,
		`{"TableNumber":1}`,                 // case-insensitive match
		`{"tableNumber":1,"tableNumber":2}`, // duplicate key
		`{"unknown":1}`,                     // ignored by encoding/json
		`{"staffId":"a\"b"}`,                // escape
		`{"staffId":"a` + "\xff" + `"}`,     // invalid UTF-8
		`{"staffId":"a` + "\t" + `"}`,       // control character
		`{"guests":1.0}`, `{"guests":1e2}`, `{"guests":01}`, `{"guests":"1"}`, `{"guests":-}`,
		`{"guests":99999999999999999999}`,
		`{"totalAmount":"1.00"}`, `{"totalAmount":1.001}`, `{"totalAmount":1.}`, `{"totalAmount":.5}`, `{"totalAmount":1e}`,
		`{"discounts":{}}`, `{"discounts":[1]}`, `{"menuItems":[{"modifiers":{}}]}`,
		`{"menuItems":[{"category":` + nest(maxFastDepth+1) + `}]}`,
	} {
		var wc wireCheck
		if decodeCheckFast([]byte(body), &wc) {
			t.Errorf("fast path accepted %q", body)
		}
	}
}

func nest(n int) string {
	s := `null`
	for range n {
		s = `{"name":"c","category":` + s + `}`
	}
	return s
}

// FuzzCheckDecodeFast holds the fast path to encoding/json: whatever it
// accepts, encoding/json must decode without error into the same value.
//
//	go test -run='^$' -fuzz=FuzzCheckDecodeFast -fuzztime=60s ./refserver/
func FuzzCheckDecodeFast(f *testing.F) {
	fixture, err := os.ReadFile("../possync/testdata/check.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(fixture)
	f.Add([]byte(`{"tableNumber":1,"discounts":[],"menuItems":[{"id":1,"modifiers":[{"modifiers":null}],"category":{"name":"x","category":{"name":"y"}}}]}`))
	f.Add([]byte(`{"totalAmount":12.5,"tipsPaid":-0.01,"outstandingAmount":1E+2}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		var wc wireCheck
		if !decodeCheckFast(body, &wc) {
			return
		}
		assertSameAsEncodingJSON(t, body, &wc)
	})
}

func assertSameAsEncodingJSON(t *testing.T, body []byte, fast *wireCheck) {
	t.Helper()
	var want wireCheck
	if err := json.Unmarshal(body, &want); err != nil {
		t.Fatalf("fast path accepted a body encoding/json refuses (%v):\n%s", err, body)
	}
	if d := cmp.Diff(want, *fast, cmp.Comparer(func(a, b client.Money) bool { return a == b })); d != "" {
		t.Fatalf("fast path differs from encoding/json (-want +got):\n%s\nbody:\n%s", d, body)
	}
}
