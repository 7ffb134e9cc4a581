package possync

import (
	"sort"
	"strconv"
	"strings"

	"github.com/hospo-dev/hospo-go/client"
)

// MaxNesting is the deepest nesting of modifiers inside modifiers, and of
// parent categories, that a check may have. Real menus nest two or three
// levels; the bound keeps a malformed (or cyclic) check from costing
// unbounded work on either side.
const MaxNesting = 8

// ValidationError lists the fields of a check that break the service's
// rules, as JSON path -> reason ("menuItems[0].quantity" -> "must not be
// negative"), the same paths the service puts in the contextData of a
// 400002. errors.Is(err, client.ErrValidation) matches it.
type ValidationError struct {
	Fields map[string]string
}

// Error lists the failing paths in a stable order.
func (e *ValidationError) Error() string {
	paths := make([]string, 0, len(e.Fields))
	for p := range e.Fields {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var b strings.Builder
	b.WriteString("possync: invalid check:")
	for i, p := range paths {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte(' ')
		b.WriteString(p)
		b.WriteString(": ")
		b.WriteString(e.Fields[p])
	}
	return b.String()
}

// Is makes errors.Is(err, client.ErrValidation) true, so that code handling
// the service's 400002 handles this early refusal the same way.
func (e *ValidationError) Is(target error) bool { return target == client.ErrValidation }

// The reasons Validate gives.
const (
	reasonNegative = "must not be negative"
	reasonPositive = "must be positive"
	reasonStatus   = "must be open, closed or void"
	reasonNesting  = "nested deeper than 8 levels" // 8 is MaxNesting; a test keeps them equal
)

// Validate checks the value rules of the service for a check, without
// sending it:
//
//   - checkNumber and locationId are positive;
//   - tableNumber, guests and every quantity are not negative;
//   - status is open, closed or void;
//   - totalAmount, outstandingAmount, serviceChargeAmount, tipsPaid and
//     every menu item's price and priceSold are not negative (modifier
//     prices and discount values may be, since they adjust a price);
//   - modifiers and categories nest at most MaxNesting levels.
//
// It returns nil or a *ValidationError naming every failing field by its
// JSON path. Presence of fields cannot be judged on a Go value (a zero is a
// value); the service also refuses fields that are missing or null.
func (c *Check) Validate() error {
	v := validator{}
	if c == nil {
		v.add("", "required")
		return v.err()
	}
	if c.CheckNumber <= 0 {
		v.add("checkNumber", reasonPositive)
	}
	if c.LocationID <= 0 {
		v.add("locationId", reasonPositive)
	}
	if c.TableNumber < 0 {
		v.add("tableNumber", reasonNegative)
	}
	if c.Guests < 0 {
		v.add("guests", reasonNegative)
	}
	if !c.Status.Valid() {
		v.add("status", reasonStatus)
	}
	v.nonNegative(nil, "totalAmount", c.TotalAmount)
	v.nonNegative(nil, "outstandingAmount", c.OutstandingAmount)
	v.nonNegative(nil, "serviceChargeAmount", c.ServiceChargeAmount)
	v.nonNegative(nil, "tipsPaid", c.TipsPaid)
	for i := range c.MenuItems {
		m := &c.MenuItems[i]
		p := path{name: "menuItems", index: i}
		if m.Quantity < 0 {
			v.addAt(&p, "quantity", reasonNegative)
		}
		v.nonNegative(&p, "price", m.Price)
		v.nonNegative(&p, "priceSold", m.PriceSold)
		v.modifiers(&p, m.Modifiers, 1)
		v.category(&p, &m.Category)
	}
	return v.err()
}

// validator collects failing fields; the map is made on the first failure
// so that a valid check costs no allocation for it.
type validator struct{ fields map[string]string }

func (v *validator) add(path, reason string) {
	if v.fields == nil {
		v.fields = make(map[string]string)
	}
	v.fields[path] = reason
}

func (v *validator) err() error {
	if v.fields == nil {
		return nil
	}
	return &ValidationError{Fields: v.fields}
}

// addAt records a failure of the member name of p.
func (v *validator) addAt(p *path, name, reason string) {
	b := p.appendTo(nil)
	if len(b) > 0 {
		b = append(b, '.')
	}
	v.add(string(append(b, name...)), reason)
}

func (v *validator) nonNegative(p *path, name string, m client.Money) {
	if m.IsNegative() {
		v.addAt(p, name, reasonNegative)
	}
}

// modifiers checks the nesting of the modifiers of the item or modifier at
// parent; depth is the level of ms (an item's own modifiers are level 1).
func (v *validator) modifiers(parent *path, ms []Modifier, depth int) {
	if len(ms) == 0 {
		return
	}
	if depth > MaxNesting {
		v.addAt(parent, "modifiers", reasonNesting)
		return
	}
	for i := range ms {
		p := path{parent: parent, name: "modifiers", index: i}
		v.modifiers(&p, ms[i].Modifiers, depth+1)
	}
}

// category checks the nesting of the category chain of the item at item.
func (v *validator) category(item *path, c *Category) {
	// The item's own category is level 1; parents add levels.
	depth := 1
	for ; c.Category != nil && depth <= MaxNesting; depth++ {
		c = c.Category
	}
	if depth > MaxNesting {
		b := item.appendTo(nil)
		for range depth {
			b = append(b, ".category"...)
		}
		v.add(string(b), reasonNesting)
	}
}

// path is a JSON path built as a chain on the stack and turned into a
// string ("menuItems[2].modifiers[0]") only when a field fails, so that a
// valid check costs no path strings.
type path struct {
	parent *path
	name   string
	index  int // array index, or -1 for an object member
}

func (p *path) appendTo(b []byte) []byte {
	if p == nil {
		return b
	}
	b = p.parent.appendTo(b)
	if len(b) > 0 {
		b = append(b, '.')
	}
	b = append(b, p.name...)
	if p.index >= 0 {
		b = append(b, '[')
		b = strconv.AppendInt(b, int64(p.index), 10)
		b = append(b, ']')
	}
	return b
}
