package refserver

import (
	"bytes"
	"strconv"
	"unicode/utf8"

	"github.com/hospo-dev/hospo-go/client"
)

// The check push's body decoder. encoding/json's reflection was the
// largest single cost of a push in the server (about a sixth of its CPU
// under load), so the form every client actually sends is decoded by hand:
// each field name exactly as documented and at most once, values of the
// expected JSON types, strings without escapes, integers without fraction
// or exponent. Anything else, including every error, makes decodeCheckFast
// give up, and the body is decoded with encoding/json as before. For every
// body it accepts the result is what encoding/json gives
// (FuzzCheckDecodeFast compares the two), so the fast path changes nothing
// but the cost.

// decodeCheck decodes a check push's body into wc, which must be zero,
// with the errors of decodeJSON.
func decodeCheck(body []byte, wc *wireCheck) error {
	if decodeCheckFast(body, wc) {
		return nil
	}
	*wc = wireCheck{}
	return decodeJSONBytes(body, wc)
}

// maxFastDepth bounds the nesting (modifiers, categories) the fast path
// follows; deeper bodies go to encoding/json.
const maxFastDepth = 32

// decodeCheckFast decodes body into wc, which must be zero, and reports
// whether it could. When it reports false, wc holds partial data and must
// be reset before it is decoded otherwise.
func decodeCheckFast(body []byte, wc *wireCheck) bool {
	d := fastDecoder{b: body}
	if !d.object(0, func(key []byte) bool { return d.checkField(key, wc) }) {
		return false
	}
	d.ws()
	return d.i == len(d.b)
}

type fastDecoder struct {
	b []byte
	i int
}

func (d *fastDecoder) ws() {
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// peek skips white space and returns the next byte, 0 at the end.
func (d *fastDecoder) peek() byte {
	d.ws()
	if d.i == len(d.b) {
		return 0
	}
	return d.b[d.i]
}

// null consumes a JSON null if one comes next.
func (d *fastDecoder) null() bool {
	if d.peek() == 'n' && len(d.b)-d.i >= 4 && string(d.b[d.i:d.i+4]) == "null" {
		d.i += 4
		return true
	}
	return false
}

// object reads an object, calling field for each key with d positioned at
// the value; field reads the value. A key may come only once.
func (d *fastDecoder) object(depth int, field func(key []byte) bool) bool {
	if depth > maxFastDepth || d.peek() != '{' {
		return false
	}
	d.i++
	if d.peek() == '}' {
		d.i++
		return true
	}
	var buf [16][]byte
	seen := buf[:0] // a handful of keys: a slice beats a map
	for {
		key, ok := d.rawString()
		if !ok || d.peek() != ':' {
			return false
		}
		for _, k := range seen {
			if bytes.Equal(k, key) {
				return false
			}
		}
		seen = append(seen, key)
		d.i++
		if !field(key) {
			return false
		}
		switch d.peek() {
		case ',':
			d.i++
		case '}':
			d.i++
			return true
		default:
			return false
		}
	}
}

// array reads an array, calling elem for each element.
func (d *fastDecoder) array(elem func() bool) bool {
	if d.peek() != '[' {
		return false
	}
	d.i++
	if d.peek() == ']' {
		d.i++
		return true
	}
	for {
		if !elem() {
			return false
		}
		switch d.peek() {
		case ',':
			d.i++
		case ']':
			d.i++
			return true
		default:
			return false
		}
	}
}

// rawString reads a string without escapes or control characters that is
// valid UTF-8, and returns its bytes without the quotes.
func (d *fastDecoder) rawString() ([]byte, bool) {
	if d.peek() != '"' {
		return nil, false
	}
	start := d.i + 1
	for j := start; j < len(d.b); j++ {
		switch c := d.b[j]; {
		case c == '"':
			s := d.b[start:j]
			if !utf8.Valid(s) {
				return nil, false
			}
			d.i = j + 1
			return s, true
		case c == '\\' || c < 0x20:
			return nil, false
		}
	}
	return nil, false
}

// str reads a string field: null leaves *p nil.
func (d *fastDecoder) str(p **string) bool {
	if d.null() {
		return true
	}
	s, ok := d.rawString()
	if ok {
		v := string(s)
		*p = &v
	}
	return ok
}

// integer reads an integer literal: an optional minus, then 0 or digits
// not starting with 0, and no fraction or exponent.
func (d *fastDecoder) integer() (int64, bool) {
	d.ws()
	start := d.i
	j := start
	if j < len(d.b) && d.b[j] == '-' {
		j++
	}
	digits := j
	for j < len(d.b) && d.b[j] >= '0' && d.b[j] <= '9' {
		j++
	}
	if j == digits || (d.b[digits] == '0' && j-digits > 1) {
		return 0, false
	}
	if j < len(d.b) {
		switch d.b[j] {
		case '.', 'e', 'E':
			return 0, false
		}
	}
	n, err := strconv.ParseInt(string(d.b[start:j]), 10, 64)
	if err != nil {
		return 0, false
	}
	d.i = j
	return n, true
}

func (d *fastDecoder) int64Field(p **int64) bool {
	if d.null() {
		return true
	}
	n, ok := d.integer()
	if ok {
		*p = &n
	}
	return ok
}

func (d *fastDecoder) intField(p **int) bool {
	if d.null() {
		return true
	}
	n, ok := d.integer()
	if ok {
		v := int(n)
		if int64(v) != n {
			return false
		}
		*p = &v
	}
	return ok
}

// money reads a JSON number with Money's own UnmarshalJSON, which is what
// encoding/json calls for it.
func (d *fastDecoder) money(p **client.Money) bool {
	if d.null() {
		return true
	}
	d.ws()
	start := d.i
	j := start
	for j < len(d.b) {
		c := d.b[j]
		if (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E' {
			j++
			continue
		}
		break
	}
	if j == start || !validNumber(d.b[start:j]) {
		return false
	}
	var m client.Money
	if m.UnmarshalJSON(d.b[start:j]) != nil {
		return false
	}
	d.i = j
	*p = &m
	return true
}

// validNumber reports whether b is exactly one JSON number.
func validNumber(b []byte) bool {
	i := 0
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	default:
		return false
	}
	if i < len(b) && b[i] == '.' {
		i++
		d := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		if i == d {
			return false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		d := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		if i == d {
			return false
		}
	}
	return i == len(b)
}

func (d *fastDecoder) checkField(key []byte, wc *wireCheck) bool {
	switch string(key) {
	case "tableNumber":
		return d.intField(&wc.TableNumber)
	case "checkNumber":
		return d.int64Field(&wc.CheckNumber)
	case "locationId":
		return d.int64Field(&wc.LocationID)
	case "staffId":
		return d.str(&wc.StaffID)
	case "guests":
		return d.intField(&wc.Guests)
	case "status":
		return d.str(&wc.Status)
	case "totalAmount":
		return d.money(&wc.TotalAmount)
	case "outstandingAmount":
		return d.money(&wc.OutstandingAmount)
	case "serviceChargeAmount":
		return d.money(&wc.ServiceChargeAmount)
	case "tipsPaid":
		return d.money(&wc.TipsPaid)
	case "discounts":
		if d.null() {
			return true
		}
		ds, ok := objectArray(d, 1, d.discountField)
		wc.Discounts = &ds
		return ok
	case "menuItems":
		if d.null() {
			return true
		}
		ms, ok := objectArray(d, 1, d.menuItemField)
		wc.MenuItems = &ms
		return ok
	}
	return false
}

func (d *fastDecoder) discountField(w *wireDiscount, key []byte) bool {
	switch string(key) {
	case "name":
		return d.str(&w.Name)
	case "value":
		return d.money(&w.Value)
	}
	return false
}

// nullableObject reads null, leaving *p nil, or an object into a new T,
// calling field for each key with d positioned at the value.
func nullableObject[T any](d *fastDecoder, p **T, depth int, field func(v *T, key []byte) bool) bool {
	if d.null() {
		return true
	}
	v := new(T)
	*p = v
	return d.object(depth, func(key []byte) bool { return field(v, key) })
}

// objectArray reads an array whose elements are null or objects of T; an
// empty array gives an empty, non-nil slice, as with encoding/json.
func objectArray[T any](d *fastDecoder, depth int, field func(v *T, key []byte) bool) ([]*T, bool) {
	out := []*T{}
	ok := d.array(func() bool {
		var v *T
		ok := nullableObject(d, &v, depth, field)
		out = append(out, v)
		return ok
	})
	return out, ok
}

func (d *fastDecoder) menuItemField(m *wireMenuItem, key []byte) bool {
	switch string(key) {
	case "id":
		return d.int64Field(&m.ID)
	case "name":
		return d.str(&m.Name)
	case "quantity":
		return d.intField(&m.Quantity)
	case "price":
		return d.money(&m.Price)
	case "priceSold":
		return d.money(&m.PriceSold)
	case "modifiers":
		return d.modifiers(&m.Modifiers, 2)
	case "discount":
		return nullableObject(d, &m.Discount, 2, d.discountField)
	case "category":
		return d.category(&m.Category, 2)
	}
	return false
}

func (d *fastDecoder) modifiers(p *[]*wireModifier, depth int) bool {
	if d.null() {
		return true
	}
	ms, ok := objectArray(d, depth, func(m *wireModifier, key []byte) bool {
		switch string(key) {
		case "id":
			return d.int64Field(&m.ID)
		case "name":
			return d.str(&m.Name)
		case "price":
			return d.money(&m.Price)
		case "modifiers":
			return d.modifiers(&m.Modifiers, depth+1)
		}
		return false
	})
	*p = ms
	return ok
}

func (d *fastDecoder) category(p **wireCategory, depth int) bool {
	return nullableObject(d, p, depth, func(c *wireCategory, key []byte) bool {
		switch string(key) {
		case "name":
			return d.str(&c.Name)
		case "category":
			return d.category(&c.Category, depth+1)
		}
		return false
	})
}
