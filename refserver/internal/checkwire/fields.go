package checkwire

import (
	"strings"

	"github.com/hospo-dev/hospo-go/internal/fielderr"
	"github.com/hospo-dev/hospo-go/possync"
)

// The members of each object of a check, in the order of the possync
// types' fields: the names on the wire and which of them may be missing or
// null. The decoder's switches use the indexes. Adding a field to a check
// takes a member here and a case in the object's switch below.

// member is one member of an object on the wire.
type member struct {
	name     string
	nullable bool
}

var checkMembers = [...]member{
	{"tableNumber", false}, {"checkNumber", false}, {"locationId", false}, {"staffId", false},
	{"guests", false}, {"status", false}, {"totalAmount", false}, {"outstandingAmount", false},
	{"serviceChargeAmount", false}, {"tipsPaid", false}, {"discounts", false}, {"menuItems", false},
}

var discountMembers = [...]member{{"name", false}, {"value", false}}

var menuItemMembers = [...]member{
	{"id", false}, {"name", false}, {"quantity", false}, {"price", false}, {"priceSold", false},
	{"modifiers", true}, {"discount", true}, {"category", false},
}

var modifierMembers = [...]member{{"id", false}, {"name", false}, {"price", false}, {"modifiers", true}}

var categoryMembers = [...]member{{"name", false}, {"category", true}}

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
		case 0:
			return d.int(&c.TableNumber)
		case 1:
			return d.int64(&c.CheckNumber)
		case 2:
			return d.int64(&c.LocationID)
		case 3:
			return d.strField(&c.StaffID)
		case 4:
			return d.int(&c.Guests)
		case 5:
			return d.strField((*string)(&c.Status))
		case 6:
			return d.money(&c.TotalAmount)
		case 7:
			return d.money(&c.OutstandingAmount)
		case 8:
			return d.money(&c.ServiceChargeAmount)
		case 9:
			return d.money(&c.TipsPaid)
		case 10:
			return d.discounts(&c.Discounts)
		case 11:
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

func (d *decoder) discounts(out *[]possync.Discount) bool {
	ds := []possync.Discount{}
	ok := d.array(2, func(i int) bool {
		ds = append(ds, possync.Discount{})
		return d.element("discounts", i, true, func() bool { return d.discount(&ds[i], 3) })
	})
	*out = ds
	return ok
}

// discount reads the discount at d.at(): an element of the check's
// discounts or an item's discount.
func (d *decoder) discount(v *possync.Discount, depth int) bool {
	return d.object(discountMembers[:], depth, true, func(i int) bool {
		switch i {
		case 0:
			return d.strField(&v.Name)
		case 1:
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
		case 0:
			return d.int64(&m.ID)
		case 1:
			return d.strField(&m.Name)
		case 2:
			return d.int(&m.Quantity)
		case 3:
			return d.money(&m.Price)
		case 4:
			return d.money(&m.PriceSold)
		case 5:
			return d.modifiers(&m.Modifiers, depth, 1)
		case 6:
			m.Discount = new(possync.Discount)
			return d.member("discount", func() bool { return d.discount(m.Discount, depth+1) })
		case 7:
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
	ms := []possync.Modifier{}
	report := reported(level)
	ok := d.array(depth+1, func(i int) bool {
		ms = append(ms, possync.Modifier{})
		return d.element("modifiers", i, report, func() bool { return d.modifier(&ms[i], depth+2, level) })
	})
	*out = ms
	return ok
}

func (d *decoder) modifier(m *possync.Modifier, depth, level int) bool {
	return d.object(modifierMembers[:], depth, reported(level), func(i int) bool {
		switch i {
		case 0:
			return d.int64(&m.ID)
		case 1:
			return d.strField(&m.Name)
		case 2:
			return d.money(&m.Price)
		case 3:
			return d.modifiers(&m.Modifiers, depth, level+1)
		}
		return false
	})
}

// category reads the category at d.at(), at level in its chain.
func (d *decoder) category(c *possync.Category, depth, level int) bool {
	return d.object(categoryMembers[:], depth, reported(level), func(i int) bool {
		switch i {
		case 0:
			return d.strField(&c.Name)
		case 1:
			c.Category = new(possync.Category)
			return d.member("category", func() bool { return d.category(c.Category, depth+1, level+1) })
		}
		return false
	})
}
