package possync

import (
	"github.com/hospo-dev/hospo-go/client"
)

// CheckStatus is the state of a check as the POS sees it.
//
// Unknown values decode without error and stay visible (String returns
// them), so a newer server or POS value is not lost; Validate refuses them
// before a push, as the service would.
type CheckStatus string

// The check statuses the service accepts.
const (
	CheckOpen   CheckStatus = "open"
	CheckClosed CheckStatus = "closed"
	CheckVoid   CheckStatus = "void"
)

// String returns the wire value.
func (s CheckStatus) String() string { return string(s) }

// Valid reports whether s is one of open, closed and void.
func (s CheckStatus) Valid() bool {
	switch s {
	case CheckOpen, CheckClosed, CheckVoid:
		return true
	}
	return false
}

// Check is the full state of one check (bill) as a POS pushes it. A check
// is identified by (LocationID, CheckNumber); every push replaces the
// previous state, which is what makes a push safe to repeat.
//
// Every field is required on the wire. Discounts and MenuItems are sent as
// [] when nil, because the service refuses null for them.
type Check struct {
	TableNumber int         `json:"tableNumber"`
	CheckNumber int64       `json:"checkNumber"`
	LocationID  int64       `json:"locationId"`
	StaffID     string      `json:"staffId"`
	Guests      int         `json:"guests"`
	Status      CheckStatus `json:"status"`
	// TotalAmount is the check total.
	TotalAmount client.Money `json:"totalAmount"`
	// OutstandingAmount is what is still to be paid. After the POS saves a
	// payment it re-pushes the check with this reduced.
	OutstandingAmount   client.Money `json:"outstandingAmount"`
	ServiceChargeAmount client.Money `json:"serviceChargeAmount"`
	TipsPaid            client.Money `json:"tipsPaid"`
	// Discounts are check-level discounts.
	Discounts []Discount `json:"discounts"`
	MenuItems []MenuItem `json:"menuItems"`
}

// Discount is a named adjustment of a check or an item. Value is negative
// for a reduction.
type Discount struct {
	Name  string       `json:"name"`
	Value client.Money `json:"value"`
}

// MenuItem is one line of a check.
type MenuItem struct {
	ID       int64  `json:"id"`
	Name     string `json:"name"`
	Quantity int    `json:"quantity"`
	// Price is the list price.
	Price client.Money `json:"price"`
	// PriceSold is the price actually charged, after discount.
	PriceSold client.Money `json:"priceSold"`
	// Modifiers may be nil (sent as null).
	Modifiers []Modifier `json:"modifiers"`
	// Discount is the item-level discount, nil when there is none.
	Discount *Discount `json:"discount"`
	Category Category  `json:"category"`
}

// Modifier changes a menu item ("extra cheese"); modifiers nest.
type Modifier struct {
	ID        int64        `json:"id"`
	Name      string       `json:"name"`
	Price     client.Money `json:"price"`
	Modifiers []Modifier   `json:"modifiers"`
}

// Category places a menu item in the menu. Category points at the parent
// category; the chain ends in nil (null on the wire).
type Category struct {
	Name     string    `json:"name"`
	Category *Category `json:"category"`
}

// PaymentNotification is a payment made through the service that the POS
// has not accepted yet, as returned by the payments poll.
type PaymentNotification struct {
	PaymentID int64 `json:"paymentId"`
	// PaymentExTip is the amount paid towards the check, excluding the tip.
	PaymentExTip client.Money `json:"paymentExTip"`
	Tip          client.Money `json:"tip"`
}

// Clone returns a deep copy of c, so that the copy can be kept (queued,
// sent later) while the caller goes on changing c. Strings are shared (they
// cannot change). The copy's modifiers, discounts and categories are cut
// from one array of each kind, sized first: a copy is a handful of
// allocations rather than one per nested slice and pointer, which keeps
// Agent.Push cheap and gives the garbage collector few objects to mark.
func (c *Check) Clone() *Check {
	if c == nil {
		return nil
	}
	var n cloneSizes
	n.check(c)
	cl := cloner{
		modifiers:  make([]Modifier, n.modifiers),
		discounts:  make([]Discount, n.discounts),
		categories: make([]Category, n.categories),
	}
	out := *c
	out.Discounts = cl.discountSlice(c.Discounts)
	if c.MenuItems != nil {
		out.MenuItems = make([]MenuItem, len(c.MenuItems))
		for i := range c.MenuItems {
			out.MenuItems[i] = cl.menuItem(c.MenuItems[i])
		}
	}
	return &out
}

// cloneSizes counts what a deep copy of a check needs of each kind.
type cloneSizes struct{ modifiers, discounts, categories int }

func (n *cloneSizes) check(c *Check) {
	n.discounts += len(c.Discounts)
	for i := range c.MenuItems {
		m := &c.MenuItems[i]
		n.modifierTree(m.Modifiers)
		if m.Discount != nil {
			n.discounts++
		}
		for p := m.Category.Category; p != nil; p = p.Category {
			n.categories++
		}
	}
}

func (n *cloneSizes) modifierTree(ms []Modifier) {
	n.modifiers += len(ms)
	for i := range ms {
		n.modifierTree(ms[i].Modifiers)
	}
}

// cloner hands out the parts of a deep copy from arrays sized by
// cloneSizes. Every slice it returns has its length as its capacity, so
// appending to one part of the copy never writes over another.
type cloner struct {
	modifiers  []Modifier
	discounts  []Discount
	categories []Category
}

// A nil slice stays nil and an empty one stays empty: the two encode
// differently (null and []).
var (
	noModifiers = []Modifier{}
	noDiscounts = []Discount{}
)

func (cl *cloner) menuItem(m MenuItem) MenuItem {
	m.Modifiers = cl.modifierSlice(m.Modifiers)
	if m.Discount != nil {
		d := &cl.discounts[0]
		cl.discounts = cl.discounts[1:]
		*d = *m.Discount
		m.Discount = d
	}
	m.Category = cl.category(m.Category)
	return m
}

func (cl *cloner) modifierSlice(ms []Modifier) []Modifier {
	switch {
	case ms == nil:
		return nil
	case len(ms) == 0:
		return noModifiers
	}
	out := cl.modifiers[:len(ms):len(ms)]
	cl.modifiers = cl.modifiers[len(ms):]
	for i, m := range ms {
		m.Modifiers = cl.modifierSlice(m.Modifiers)
		out[i] = m
	}
	return out
}

func (cl *cloner) discountSlice(ds []Discount) []Discount {
	switch {
	case ds == nil:
		return nil
	case len(ds) == 0:
		return noDiscounts
	}
	out := cl.discounts[:len(ds):len(ds)]
	cl.discounts = cl.discounts[len(ds):]
	copy(out, ds)
	return out
}

func (cl *cloner) category(c Category) Category {
	if c.Category != nil {
		p := &cl.categories[0]
		cl.categories = cl.categories[1:]
		*p = cl.category(*c.Category)
		c.Category = p
	}
	return c
}
