package checkwire

import (
	"strconv"
	"strings"
)

// The members of each object of a check, in the order of the possync
// types' fields: the names on the wire and which of them may be missing or
// null, each at the index its constant names. The readers in fields.go
// switch on that constant. Adding a field to a check takes a constant, a
// member and a case.

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

// A table is the members of one object, with the bits of those that may
// not be missing or null, so that an object with all of them needs no
// look at each member to know.
type table struct {
	members  []member
	required uint32
	quoted   []string // each member's name in quotes, as the body has it
}

func newTable(ms []member) *table {
	t := &table{members: ms}
	for i := range ms {
		if !ms[i].nullable {
			t.required |= 1 << i
		}
		t.quoted = append(t.quoted, strconv.Quote(ms[i].name))
	}
	return t
}

var (
	checkTable    = newTable(checkMembers[:])
	discountTable = newTable(discountMembers[:])
	menuItemTable = newTable(menuItemMembers[:])
	modifierTable = newTable(modifierMembers[:])
	categoryTable = newTable(categoryMembers[:])
)

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
