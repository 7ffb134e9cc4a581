package possync

import (
	"encoding/json"
	"errors"
	"strconv"

	"github.com/hospo-dev/hospo-go/client"
)

// MarshalJSON writes the check with nil Discounts and MenuItems as empty
// arrays: the service treats null there as a missing field.
//
// The bytes are exactly those encoding/json writes for the struct (fields
// in declaration order, money as a number with two decimals, HTML-safe
// string escapes), which FuzzCheckJSON and FuzzCheckMarshalStrings hold it
// to. They are built by hand because every push is encoded, by the Agent
// and again by the service for the canonical form it stores and hashes,
// and reflection was a large part of what a push cost (BENCHMARKS.md).
//
// A check whose modifiers or categories nest deeper than maxEncodeDepth is
// an error, as a cycle is for encoding/json.
func (c Check) MarshalJSON() ([]byte, error) {
	if c.tooDeep() {
		return nil, errCheckTooDeep
	}
	return c.appendJSON(make([]byte, 0, c.sizeHint())), nil
}

// sizeHint guesses the length of the encoding from generous sizes of a
// check's parts, so that a realistic check is written without growing
// its buffer.
func (c *Check) sizeHint() int {
	return 256 + 64*len(c.Discounts) + 384*len(c.MenuItems)
}

// maxEncodeDepth bounds the nesting of modifiers and of categories that
// MarshalJSON follows. No check decoded from JSON comes near it
// (encoding/json stops at 10,000 levels of arrays and objects); a deeper
// one is almost surely a cycle, which would otherwise recurse until the
// stack overflows.
const maxEncodeDepth = 10000

var errCheckTooDeep = errors.New("possync: modifiers or categories nest more than 10000 levels deep (a cycle?)")

// tooDeep reports whether a modifier or category chain of c nests deeper
// than maxEncodeDepth. It stops at the first such chain, so a cycle costs
// maxEncodeDepth steps.
func (c *Check) tooDeep() bool {
	for i := range c.MenuItems {
		if modifiersTooDeep(c.MenuItems[i].Modifiers, 1) {
			return true
		}
		depth := 1
		for cat := c.MenuItems[i].Category.Category; cat != nil; cat = cat.Category {
			if depth++; depth > maxEncodeDepth {
				return true
			}
		}
	}
	return false
}

func modifiersTooDeep(ms []Modifier, depth int) bool {
	if len(ms) == 0 {
		return false
	}
	if depth > maxEncodeDepth {
		return true
	}
	for i := range ms {
		if modifiersTooDeep(ms[i].Modifiers, depth+1) {
			return true
		}
	}
	return false
}

func (c *Check) appendJSON(b []byte) []byte {
	b = append(b, `{"tableNumber":`...)
	b = strconv.AppendInt(b, int64(c.TableNumber), 10)
	b = append(b, `,"checkNumber":`...)
	b = strconv.AppendInt(b, c.CheckNumber, 10)
	b = append(b, `,"locationId":`...)
	b = strconv.AppendInt(b, c.LocationID, 10)
	b = append(b, `,"staffId":`...)
	b = appendString(b, c.StaffID)
	b = append(b, `,"guests":`...)
	b = strconv.AppendInt(b, int64(c.Guests), 10)
	b = append(b, `,"status":`...)
	b = appendString(b, string(c.Status))
	b = append(b, `,"totalAmount":`...)
	b = appendMoney(b, c.TotalAmount)
	b = append(b, `,"outstandingAmount":`...)
	b = appendMoney(b, c.OutstandingAmount)
	b = append(b, `,"serviceChargeAmount":`...)
	b = appendMoney(b, c.ServiceChargeAmount)
	b = append(b, `,"tipsPaid":`...)
	b = appendMoney(b, c.TipsPaid)
	b = append(b, `,"discounts":[`...)
	for i := range c.Discounts {
		if i > 0 {
			b = append(b, ',')
		}
		b = c.Discounts[i].appendJSON(b)
	}
	b = append(b, `],"menuItems":[`...)
	for i := range c.MenuItems {
		if i > 0 {
			b = append(b, ',')
		}
		b = c.MenuItems[i].appendJSON(b)
	}
	return append(b, "]}"...)
}

func (d *Discount) appendJSON(b []byte) []byte {
	b = append(b, `{"name":`...)
	b = appendString(b, d.Name)
	b = append(b, `,"value":`...)
	b = appendMoney(b, d.Value)
	return append(b, '}')
}

func (m *MenuItem) appendJSON(b []byte) []byte {
	b = append(b, `{"id":`...)
	b = strconv.AppendInt(b, m.ID, 10)
	b = append(b, `,"name":`...)
	b = appendString(b, m.Name)
	b = append(b, `,"quantity":`...)
	b = strconv.AppendInt(b, int64(m.Quantity), 10)
	b = append(b, `,"price":`...)
	b = appendMoney(b, m.Price)
	b = append(b, `,"priceSold":`...)
	b = appendMoney(b, m.PriceSold)
	b = append(b, `,"modifiers":`...)
	b = appendModifiers(b, m.Modifiers)
	b = append(b, `,"discount":`...)
	if m.Discount == nil {
		b = append(b, "null"...)
	} else {
		b = m.Discount.appendJSON(b)
	}
	b = append(b, `,"category":`...)
	b = m.Category.appendJSON(b)
	return append(b, '}')
}

// appendModifiers writes nil as null, as encoding/json does for a nil
// slice (a menu item's modifiers may be null on the wire).
func appendModifiers(b []byte, ms []Modifier) []byte {
	if ms == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i := range ms {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"id":`...)
		b = strconv.AppendInt(b, ms[i].ID, 10)
		b = append(b, `,"name":`...)
		b = appendString(b, ms[i].Name)
		b = append(b, `,"price":`...)
		b = appendMoney(b, ms[i].Price)
		b = append(b, `,"modifiers":`...)
		b = appendModifiers(b, ms[i].Modifiers)
		b = append(b, '}')
	}
	return append(b, ']')
}

func (c *Category) appendJSON(b []byte) []byte {
	b = append(b, `{"name":`...)
	b = appendString(b, c.Name)
	b = append(b, `,"category":`...)
	if c.Category == nil {
		b = append(b, "null"...)
	} else {
		b = c.Category.appendJSON(b)
	}
	return append(b, '}')
}

// plainJSON[c] reports whether byte c is copied as it is into a JSON string
// (appendString): printable ASCII but for ", \, <, > and &. A table, since
// the test runs once per byte of every string of every push.
var plainJSON = func() (t [256]bool) {
	for c := 0x20; c <= 0x7e; c++ {
		t[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return t
}()

func appendMoney(b []byte, m client.Money) []byte {
	b, _ = m.AppendText(b) // never fails
	return b
}

// appendString writes s as a JSON string. Printable ASCII other than the
// characters encoding/json escapes is copied as it is; any other string is
// left to encoding/json, so that control characters, invalid UTF-8, <, >,
// &, U+2028 and U+2029 come out exactly as it writes them.
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if !plainJSON[s[i]] {
			q, _ := json.Marshal(s) // a string always encodes
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
