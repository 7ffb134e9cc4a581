package checkwire

import "github.com/hospo-dev/hospo-go/possync"

// The readers of each object of a check, one per possync type, each a
// loop over the object's members with a case per member (see object in
// walk.go). depth is the nesting of the object being read, as
// encoding/json counts it against maxDepth.

// check reads the body's object into c.
func (d *decoder) check(c *possync.Check) bool {
	o, ok := d.object(checkTable, 1)
	for ok && d.field(&o) {
		switch o.i {
		case checkTableNumber:
			ok = d.int(&c.TableNumber)
		case checkCheckNumber:
			ok = d.int64(&c.CheckNumber)
		case checkLocationID:
			ok = d.int64(&c.LocationID)
		case checkStaffID:
			ok = d.strField(&c.StaffID)
		case checkGuests:
			ok = d.int(&c.Guests)
		case checkStatus:
			ok = d.strField((*string)(&c.Status))
		case checkTotalAmount:
			ok = d.money(&c.TotalAmount)
		case checkOutstandingAmount:
			ok = d.money(&c.OutstandingAmount)
		case checkServiceChargeAmount:
			ok = d.money(&c.ServiceChargeAmount)
		case checkTipsPaid:
			ok = d.money(&c.TipsPaid)
		case checkDiscounts:
			ok = d.discounts(&c.Discounts)
		case checkMenuItems:
			ok = d.menuItems(&c.MenuItems)
		}
	}
	return ok && d.end(&o, true)
}

// strField reads a string into *p.
func (d *decoder) strField(p *string) bool {
	s, ok := d.str()
	*p = s
	return ok
}

func (d *decoder) discounts(out *[]possync.Discount) bool {
	vs := []possync.Discount{}
	a, ok := d.array("discounts", 2, true)
	for ok && d.element(&a) {
		vs = append(vs, possync.Discount{})
		if !a.null {
			ok = d.discount(&vs[a.i], 3)
		}
		d.leave()
	}
	*out = vs
	return ok && a.ended
}

// discount reads the discount at d.at(): an element of the check's
// discounts or an item's discount.
func (d *decoder) discount(v *possync.Discount, depth int) bool {
	o, ok := d.object(discountTable, depth)
	for ok && d.field(&o) {
		switch o.i {
		case discountName:
			ok = d.strField(&v.Name)
		case discountValue:
			ok = d.money(&v.Value)
		}
	}
	return ok && d.end(&o, true)
}

func (d *decoder) menuItems(out *[]possync.MenuItem) bool {
	// Room for a typical check's lines from the start, rather than
	// growing through 1, 2 and 4.
	items := make([]possync.MenuItem, 0, 8)
	var spare possync.MenuItem
	a, ok := d.array("menuItems", 2, true)
	for ok {
		// Whether the item is kept is decided before the element is read,
		// for a null element too, which element notes as missing.
		full := d.missing.Omitted() > 0
		if !d.element(&a) {
			break
		}
		m := &spare
		if full {
			// More members are missing than a 400002 keeps: the push is
			// refused whatever follows. The rest of the items are still
			// read, for their syntax and to count what they miss, but
			// into one spare item, so that a body of nothing but empty
			// items costs memory in proportion to what is kept rather
			// than a few hundred bytes per two bytes of body. Rules on
			// their values go uncounted.
			spare = possync.MenuItem{}
		} else {
			items = append(items, possync.MenuItem{})
			m = &items[len(items)-1]
		}
		if !a.null {
			ok = d.menuItem(m)
		}
		d.leave()
	}
	*out = items
	return ok && a.ended
}

func (d *decoder) menuItem(m *possync.MenuItem) bool {
	const depth = 3 // body, menuItems, item
	o, ok := d.object(menuItemTable, depth)
	for ok && d.field(&o) {
		switch o.i {
		case itemID:
			ok = d.int64(&m.ID)
		case itemName:
			ok = d.strField(&m.Name)
		case itemQuantity:
			ok = d.int(&m.Quantity)
		case itemPrice:
			ok = d.money(&m.Price)
		case itemPriceSold:
			ok = d.money(&m.PriceSold)
		case itemModifiers:
			m.Modifiers, ok = d.modifiers(depth, 1)
		case itemDiscount:
			m.Discount = d.slabs.discount()
			d.enterMember("discount")
			ok = d.discount(m.Discount, depth+1)
			d.leave()
		case itemCategory:
			d.enterMember("category")
			ok = d.category(&m.Category, depth+1, 1)
			d.leave()
		}
	}
	return ok && d.end(&o, true)
}

// reported reports whether the fields of a modifier or category at level
// (an item's own modifiers and category are level 1) are checked for
// presence. Levels from one past possync.MaxNesting on are not: Validate
// already refuses the nesting, and naming every missing field below it
// would only make a maliciously deep body cost more to answer.
func reported(level int) bool { return level <= possync.MaxNesting+1 }

// modifiers reads the modifiers of the item or modifier at d.at(), whose
// object is at depth; level is the level of the list. The modifiers are
// read into the pending stack and cut from a slab at the end (see slabs).
func (d *decoder) modifiers(depth, level int) ([]possync.Modifier, bool) {
	base := len(d.pending)
	a, ok := d.array("modifiers", depth+1, reported(level))
	for ok && d.element(&a) {
		d.pending = append(d.pending, possync.Modifier{})
		if !a.null {
			ok = d.modifier(len(d.pending)-1, depth+2, level)
		}
		d.leave()
	}
	return d.endModifiers(base), ok && a.ended
}

// modifier reads the modifier at d.at() into d.pending[at]. It takes an
// index, not a pointer: a nested list grows pending, which may move it,
// and a pointer to a local variable instead would escape to the heap
// through the recursion.
func (d *decoder) modifier(at, depth, level int) bool {
	o, ok := d.object(modifierTable, depth)
	for ok && d.field(&o) {
		m := &d.pending[at]
		switch o.i {
		case modifierID:
			ok = d.int64(&m.ID)
		case modifierName:
			ok = d.strField(&m.Name)
		case modifierPrice:
			ok = d.money(&m.Price)
		case modifierModifiers:
			var ms []possync.Modifier
			ms, ok = d.modifiers(depth, level+1)
			d.pending[at].Modifiers = ms
		}
	}
	return ok && d.end(&o, reported(level))
}

// category reads the category at d.at(), at level in its chain.
func (d *decoder) category(c *possync.Category, depth, level int) bool {
	o, ok := d.object(categoryTable, depth)
	for ok && d.field(&o) {
		switch o.i {
		case categoryName:
			ok = d.strField(&c.Name)
		case categoryParent:
			c.Category = d.slabs.category()
			d.enterMember("category")
			ok = d.category(c.Category, depth+1, level+1)
			d.leave()
		}
	}
	return ok && d.end(&o, reported(level))
}
