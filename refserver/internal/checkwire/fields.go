package checkwire

import (
	"strings"

	"github.com/hospo-dev/hospo-go/internal/fielderr"
	"github.com/hospo-dev/hospo-go/possync"
)

// The members of each object of a check, in the order of the possync
// types' fields: the names on the wire and which of them may be missing or
// null, each at the index its constant names. The object's switch below
// reads a member by that constant. Adding a field to a check takes a
// constant, a member and a case.

// member is one member of an object on the wire.
type member struct {
	name     string
	nullable bool
}

const (
	checkTableNumber = iota
	checkCheckNumber
	checkLocationID
	checkStaffID
	checkGuests
	checkStatus
	checkTotalAmount
	checkOutstandingAmount
	checkServiceChargeAmount
	checkTipsPaid
	checkDiscounts
	checkMenuItems
)

var checkMembers = [...]member{
	checkTableNumber: {"tableNumber", false}, checkCheckNumber: {"checkNumber", false},
	checkLocationID: {"locationId", false}, checkStaffID: {"staffId", false},
	checkGuests: {"guests", false}, checkStatus: {"status", false},
	checkTotalAmount: {"totalAmount", false}, checkOutstandingAmount: {"outstandingAmount", false},
	checkServiceChargeAmount: {"serviceChargeAmount", false}, checkTipsPaid: {"tipsPaid", false},
	checkDiscounts: {"discounts", false}, checkMenuItems: {"menuItems", false},
}

const (
	discountName = iota
	discountValue
)

var discountMembers = [...]member{discountName: {"name", false}, discountValue: {"value", false}}

const (
	itemID = iota
	itemName
	itemQuantity
	itemPrice
	itemPriceSold
	itemModifiers
	itemDiscount
	itemCategory
)

var menuItemMembers = [...]member{
	itemID: {"id", false}, itemName: {"name", false}, itemQuantity: {"quantity", false},
	itemPrice: {"price", false}, itemPriceSold: {"priceSold", false}, itemModifiers: {"modifiers", true},
	itemDiscount: {"discount", true}, itemCategory: {"category", false},
}

const (
	modifierID = iota
	modifierName
	modifierPrice
	modifierModifiers
)

var modifierMembers = [...]member{
	modifierID: {"id", false}, modifierName: {"name", false},
	modifierPrice: {"price", false}, modifierModifiers: {"modifiers", true},
}

const (
	categoryName = iota
	categoryParent
)

var categoryMembers = [...]member{categoryName: {"name", false}, categoryParent: {"category", true}}

// lookup returns the index of the member named key, matched as
// encoding/json matches a struct field (exactly, or else without regard to
// case), or -1.
func lookup(ms []member, key string) int {
	for i := range ms {
		if ms[i].name == key {
			return i
		}
	}
	for i := range ms {
		if strings.EqualFold(ms[i].name, key) {
			return i
		}
	}
	return -1
}

// key reads a member's name and returns the index of the member of ms it
// names, or -1 for a member ms does not have. Clients send the members in
// the order of ms, so the name of the member after the last one found,
// next, is compared with the body first: a match needs neither scanning
// nor looking up.
func (d *decoder) key(ms []member, next int) (int, bool) {
	if d.peek() == '"' && next < len(ms) {
		name := ms[next].name
		end := d.i + 1 + len(name)
		if end < len(d.s) && d.s[end] == '"' && d.s[d.i+1:end] == name {
			d.i = end + 1
			return next, true
		}
	}
	key, ok := d.str()
	return lookup(ms, key), ok
}

// decoder reads a check push into a possync.Check and notes in missing
// every member that is not nullable and is missing or null.
type decoder struct {
	scanner
	missing *fielderr.Set
	// paths holds the JSON path of the value being read, one entry per
	// object or element entered below the body, each pointing to the one
	// before. Kept here rather than on the call stack, where the recursion
	// would make every path escape to the heap. An entry does not change
	// while one above it is in use, so a pointer into an array that append
	// has since outgrown still reads the right value.
	paths []fielderr.Path
	first [8]fielderr.Path
}

func newDecoder(s string, missing *fielderr.Set) *decoder {
	d := &decoder{scanner: scanner{s: s}, missing: missing}
	d.paths = d.first[:0]
	return d
}

// at returns the path of the value being read (nil for the body).
func (d *decoder) at() *fielderr.Path {
	if len(d.paths) == 0 {
		return nil
	}
	return &d.paths[len(d.paths)-1]
}

// in reads with read the value at path, one step below the value being
// read (d.at()): the path is d.at() while read runs.
func (d *decoder) in(path fielderr.Path, read func() bool) bool {
	d.paths = append(d.paths, path)
	ok := read()
	d.paths = d.paths[:len(d.paths)-1]
	return ok
}

// member reads with read the value of the member name of the value being
// read, a non-null object.
func (d *decoder) member(name string, read func() bool) bool {
	return d.in(fielderr.Member(d.at(), name), read)
}

// object reads the object at d.at(), whose members are ms. For each member
// it knows whose value is not null it calls field with the member's index,
// d positioned at the value; other members are skipped. A member that
// comes twice makes it give up (the caller merges repeated members first,
// see mergeRepeated). When report is true, every member that is not
// nullable and was missing or null is noted as required. depth is the
// nesting of the object.
func (d *decoder) object(ms []member, depth int, report bool, field func(i int) bool) bool {
	var seen, set uint32
	next := 0
	ok := d.container('{', depth, func() bool {
		i, ok := d.key(ms, next)
		if !ok || !d.consume(':') {
			return false
		}
		switch {
		case i < 0:
			return d.skip(depth)
		case seen&(1<<i) != 0:
			return false
		}
		next = i + 1
		seen |= 1 << i
		if d.null() {
			return true
		}
		if !field(i) {
			return false
		}
		set |= 1 << i
		return true
	})
	if !ok {
		return false
	}
	if report {
		for i := range ms {
			if !ms[i].nullable && set&(1<<i) == 0 {
				d.missing.AddAt(d.at(), ms[i].name, fielderr.ReasonRequired)
			}
		}
	}
	return true
}

// array reads an array at depth, calling elem with each element's index,
// d positioned at the element.
func (d *decoder) array(depth int, elem func(i int) bool) bool {
	i := 0
	return d.container('[', depth, func() bool {
		ok := elem(i)
		i++
		return ok
	})
}

// check reads the body's object into c.
func (d *decoder) check(c *possync.Check) bool {
	return d.object(checkMembers[:], 1, true, func(i int) bool {
		switch i {
		case checkTableNumber:
			return d.int(&c.TableNumber)
		case checkCheckNumber:
			return d.int64(&c.CheckNumber)
		case checkLocationID:
			return d.int64(&c.LocationID)
		case checkStaffID:
			return d.strField(&c.StaffID)
		case checkGuests:
			return d.int(&c.Guests)
		case checkStatus:
			return d.strField((*string)(&c.Status))
		case checkTotalAmount:
			return d.money(&c.TotalAmount)
		case checkOutstandingAmount:
			return d.money(&c.OutstandingAmount)
		case checkServiceChargeAmount:
			return d.money(&c.ServiceChargeAmount)
		case checkTipsPaid:
			return d.money(&c.TipsPaid)
		case checkDiscounts:
			return d.discounts(&c.Discounts)
		case checkMenuItems:
			return d.menuItems(&c.MenuItems)
		}
		return false
	})
}

// strField reads a string into *p.
func (d *decoder) strField(p *string) bool {
	s, ok := d.str()
	*p = s
	return ok
}

// element reads element i of the array that is the member name of the
// value being read: a null, noted as required when report is true, or a
// value that read reads.
func (d *decoder) element(name string, i int, report bool, read func() bool) bool {
	return d.in(fielderr.Element(d.at(), name, i), func() bool {
		if !d.null() {
			return read()
		}
		if report {
			d.missing.AddAt(d.at(), "", fielderr.ReasonRequired)
		}
		return true
	})
}

// list reads into *out the array, at depth, that is the member name of
// the value being read, each element with read. An empty array is an
// empty slice, as encoding/json has it; report says whether a null
// element is noted as required.
func list[T any](d *decoder, out *[]T, name string, depth int, report bool, read func(v *T) bool) bool {
	vs := []T{}
	ok := d.array(depth, func(i int) bool {
		vs = append(vs, *new(T))
		return d.element(name, i, report, func() bool { return read(&vs[i]) })
	})
	*out = vs
	return ok
}

func (d *decoder) discounts(out *[]possync.Discount) bool {
	return list(d, out, "discounts", 2, true, func(v *possync.Discount) bool { return d.discount(v, 3) })
}

// discount reads the discount at d.at(): an element of the check's
// discounts or an item's discount.
func (d *decoder) discount(v *possync.Discount, depth int) bool {
	return d.object(discountMembers[:], depth, true, func(i int) bool {
		switch i {
		case discountName:
			return d.strField(&v.Name)
		case discountValue:
			return d.money(&v.Value)
		}
		return false
	})
}

func (d *decoder) menuItems(out *[]possync.MenuItem) bool {
	// Room for a typical check's lines from the start, rather than
	// growing through 1, 2 and 4.
	items := make([]possync.MenuItem, 0, 8)
	var spare possync.MenuItem
	ok := d.array(2, func(i int) bool {
		if d.missing.Omitted() > 0 {
			// More members are missing than a 400002 keeps: the push is
			// refused whatever follows. The rest of the items are still
			// read, for their syntax and to count what they miss, but
			// into one spare item, so that a body of nothing but empty
			// items costs memory in proportion to what is kept rather
			// than a few hundred bytes per two bytes of body. Rules on
			// their values go uncounted.
			spare = possync.MenuItem{}
			return d.element("menuItems", i, true, func() bool { return d.menuItem(&spare) })
		}
		items = append(items, possync.MenuItem{})
		return d.element("menuItems", i, true, func() bool { return d.menuItem(&items[len(items)-1]) })
	})
	*out = items
	return ok
}

func (d *decoder) menuItem(m *possync.MenuItem) bool {
	const depth = 3 // body, menuItems, item
	return d.object(menuItemMembers[:], depth, true, func(i int) bool {
		switch i {
		case itemID:
			return d.int64(&m.ID)
		case itemName:
			return d.strField(&m.Name)
		case itemQuantity:
			return d.int(&m.Quantity)
		case itemPrice:
			return d.money(&m.Price)
		case itemPriceSold:
			return d.money(&m.PriceSold)
		case itemModifiers:
			return d.modifiers(&m.Modifiers, depth, 1)
		case itemDiscount:
			m.Discount = new(possync.Discount)
			return d.member("discount", func() bool { return d.discount(m.Discount, depth+1) })
		case itemCategory:
			return d.member("category", func() bool { return d.category(&m.Category, depth+1, 1) })
		}
		return false
	})
}

// reported reports whether the fields of a modifier or category at level
// (an item's own modifiers and category are level 1) are checked for
// presence. Levels from one past possync.MaxNesting on are not: Validate
// already refuses the nesting, and naming every missing field below it
// would only make a maliciously deep body cost more to answer.
func reported(level int) bool { return level <= possync.MaxNesting+1 }

// modifiers reads the modifiers of the item or modifier at d.at(), whose
// object is at depth; level is the level of the list.
func (d *decoder) modifiers(out *[]possync.Modifier, depth, level int) bool {
	return list(d, out, "modifiers", depth+1, reported(level), func(m *possync.Modifier) bool {
		return d.modifier(m, depth+2, level)
	})
}

func (d *decoder) modifier(m *possync.Modifier, depth, level int) bool {
	return d.object(modifierMembers[:], depth, reported(level), func(i int) bool {
		switch i {
		case modifierID:
			return d.int64(&m.ID)
		case modifierName:
			return d.strField(&m.Name)
		case modifierPrice:
			return d.money(&m.Price)
		case modifierModifiers:
			return d.modifiers(&m.Modifiers, depth, level+1)
		}
		return false
	})
}

// category reads the category at d.at(), at level in its chain.
func (d *decoder) category(c *possync.Category, depth, level int) bool {
	return d.object(categoryMembers[:], depth, reported(level), func(i int) bool {
		switch i {
		case categoryName:
			return d.strField(&c.Name)
		case categoryParent:
			c.Category = new(possync.Category)
			return d.member("category", func() bool { return d.category(c.Category, depth+1, level+1) })
		}
		return false
	})
}
