package possync

import (
	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/internal/fielderr"
)

// MaxNesting is the deepest nesting of modifiers inside modifiers, and of
// parent categories, that a check may have. Real menus nest two or three
// levels; the bound keeps a malformed (or cyclic) check from costing
// unbounded work on either side.
const MaxNesting = 8

// The reasons Validate gives.
const (
	reasonNegative = fielderr.ReasonNegative
	reasonPositive = fielderr.ReasonPositive
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
// It returns nil or a *client.ValidationError naming every failing field
// by its JSON path. Presence of fields cannot be judged on a Go value (a
// zero is a value); the service also refuses fields that are missing or
// null.
func (c *Check) Validate() error {
	var v validator
	if c == nil {
		v.Add("", fielderr.ReasonRequired)
		return v.Err()
	}
	if c.CheckNumber <= 0 {
		v.Add("checkNumber", reasonPositive)
	}
	if c.LocationID <= 0 {
		v.Add("locationId", reasonPositive)
	}
	if c.TableNumber < 0 {
		v.Add("tableNumber", reasonNegative)
	}
	if c.Guests < 0 {
		v.Add("guests", reasonNegative)
	}
	if !c.Status.Valid() {
		v.Add("status", reasonStatus)
	}
	v.nonNegative(nil, "totalAmount", c.TotalAmount)
	v.nonNegative(nil, "outstandingAmount", c.OutstandingAmount)
	v.nonNegative(nil, "serviceChargeAmount", c.ServiceChargeAmount)
	v.nonNegative(nil, "tipsPaid", c.TipsPaid)
	for i := range c.MenuItems {
		m := &c.MenuItems[i]
		v.item = fielderr.Element(nil, "menuItems", i)
		p := &v.item
		if m.Quantity < 0 {
			v.AddAt(p, "quantity", reasonNegative)
		}
		v.nonNegative(p, "price", m.Price)
		v.nonNegative(p, "priceSold", m.PriceSold)
		v.modifiers(m.Modifiers, 1)
		v.category(p, &m.Category)
	}
	return v.Err()
}

// validator collects the failing fields of a check.
//
// It holds no pointer into itself, so that it stays on Validate's stack:
// a valid check costs no allocation (Agent.Push validates every check).
// The path of a modifier is built from the indices only when one fails.
type validator struct {
	fielderr.Set
	item fielderr.Path // the menu item being checked
	// mods[n] is the index of the modifier being checked at level n
	// (mods[0] is unused: level 0 is the item).
	mods [MaxNesting + 1]int
}

func (v *validator) nonNegative(p *fielderr.Path, name string, m client.Money) {
	if m.IsNegative() {
		v.AddAt(p, name, reasonNegative)
	}
}

// modifiers checks the nesting of the modifiers of the item or modifier at
// level depth-1 (v.item and v.mods); depth is the level of ms (an item's own modifiers are
// level 1).
func (v *validator) modifiers(ms []Modifier, depth int) {
	if len(ms) == 0 {
		return
	}
	if depth > MaxNesting {
		v.AddAt(v.modifierPath(depth-1), "modifiers", reasonNesting)
		return
	}
	for i := range ms {
		v.mods[depth] = i
		v.modifiers(ms[i].Modifiers, depth+1)
	}
}

// modifierPath returns the path of the modifier being checked at level
// depth (the item itself at 0).
func (v *validator) modifierPath(depth int) *fielderr.Path {
	ps := make([]fielderr.Path, depth+1)
	ps[0] = v.item
	for n := 1; n <= depth; n++ {
		ps[n] = fielderr.Element(&ps[n-1], "modifiers", v.mods[n])
	}
	return &ps[depth]
}

// category checks the nesting of the category chain of the item at item.
func (v *validator) category(item *fielderr.Path, c *Category) {
	// The item's own category is level 1; parents add levels.
	depth := 1
	for ; c.Category != nil && depth <= MaxNesting; depth++ {
		c = c.Category
	}
	if depth > MaxNesting {
		b := item.AppendTo(nil)
		for range depth {
			b = append(b, ".category"...)
		}
		v.Add(string(b), reasonNesting)
	}
}
