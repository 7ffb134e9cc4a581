package possync

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"

	"github.com/hospo-dev/hospo-go/client"
)

// FuzzCheckJSON decodes arbitrary bytes as a check. Whatever decodes must
// survive Validate and Clone, its encoding must be a fixed point (decoding
// and encoding it again gives the same bytes), and MarshalJSON must write
// what encoding/json writes for the struct. Seeds are in
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
		assertReflectEncoding(t, &c)
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

// FuzzCheckMarshalStrings puts arbitrary text in every string field of a
// check, where MarshalJSON's own string encoding must agree with
// encoding/json's escapes (control characters, invalid UTF-8, <, >, &,
// U+2028 and U+2029).
func FuzzCheckMarshalStrings(f *testing.F) {
	// One escape case per seed, so that each rule of appendString is
	// checked on its own.
	for _, s := range []string{"", "Table 4", "a<b", "a>b", "a&b", `say "hi"`, `back\slash`, "tab\t", "nul\x00", "del\x7f",
		"bad\xff", "line\u2028sep", "para\u2029sep", "café", "🍕"} {
		f.Add(s, int64(1250))
	}
	f.Fuzz(func(t *testing.T, s string, cents int64) {
		m := client.MoneyFromCents(cents)
		c := Check{
			StaffID: s, Status: CheckStatus(s), TotalAmount: m,
			Discounts: []Discount{{Name: s, Value: m}},
			MenuItems: []MenuItem{{
				Name: s, Price: m, Discount: &Discount{Name: s},
				Modifiers: []Modifier{{Name: s, Modifiers: []Modifier{{Name: s}}}},
				Category:  Category{Name: s, Category: &Category{Name: s}},
			}},
		}
		assertReflectEncoding(t, &c)
	})
}

// assertReflectEncoding compares MarshalJSON with encoding/json's encoding
// of the same struct without the method.
func assertReflectEncoding(t *testing.T, c *Check) {
	t.Helper()
	type plain Check
	p := plain(*c)
	if p.Discounts == nil {
		p.Discounts = []Discount{}
	}
	if p.MenuItems == nil {
		p.MenuItems = []MenuItem{}
	}
	want, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.MarshalJSON()
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("MarshalJSON (%v):\n%s\nencoding/json:\n%s", err, got, want)
	}
}

// TestCheckMarshalJSONCycle checks that a check whose categories or
// modifiers form a cycle is an error, as it is for encoding/json, and not
// a stack overflow.
func TestCheckMarshalJSONCycle(t *testing.T) {
	t.Parallel()
	category := Check{MenuItems: []MenuItem{{Name: "a"}}}
	category.MenuItems[0].Category.Category = &category.MenuItems[0].Category
	modifiers := Check{MenuItems: []MenuItem{{Name: "a", Modifiers: make([]Modifier, 1)}}}
	modifiers.MenuItems[0].Modifiers[0].Modifiers = modifiers.MenuItems[0].Modifiers
	for name, c := range map[string]*Check{"category": &category, "modifiers": &modifiers} {
		if _, err := c.MarshalJSON(); !errors.Is(err, errCheckTooDeep) {
			t.Errorf("%s cycle: MarshalJSON error %v, want errCheckTooDeep", name, err)
		}
	}
	deep := func(modifiers, categories int) *Check {
		c := &Check{MenuItems: []MenuItem{{Name: "a"}}}
		for range modifiers {
			c.MenuItems[0].Modifiers = []Modifier{{Name: "m", Modifiers: c.MenuItems[0].Modifiers}}
		}
		for range categories - 1 {
			parent := c.MenuItems[0].Category
			c.MenuItems[0].Category = Category{Name: "c", Category: &parent}
		}
		return c
	}
	for _, c := range []*Check{deep(maxEncodeDepth+1, 1), deep(1, maxEncodeDepth+1)} {
		if _, err := c.MarshalJSON(); !errors.Is(err, errCheckTooDeep) {
			t.Errorf("one level too deep: MarshalJSON error %v, want errCheckTooDeep", err)
		}
	}
	assertReflectEncoding(t, deep(maxEncodeDepth, maxEncodeDepth)) // the deepest it encodes
}
