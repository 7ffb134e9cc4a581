package universalpos

import (
	"encoding/json"
	"iter"

	"github.com/hospo-dev/hospo-go/client"
)

// MenuType says which kind of order a menu is for. The service shows a
// customer the menus whose type matches the way they order, and ANY menus
// everywhere.
//
// Unknown values decode without error and keep their text, so a POS that
// adds a type does not break the service; Known reports whether the value is
// one of the constants.
type MenuType string

// The menu types of the contract.
const (
	MenuTypeAny        MenuType = "ANY"
	MenuTypeCollection MenuType = "COLLECTION"
	MenuTypeEatIn      MenuType = "EAT_IN"
	MenuTypeDelivery   MenuType = "DELIVERY"
)

// String returns the wire form of t.
func (t MenuType) String() string { return string(t) }

// Known reports whether t is one of the four menu types of the contract.
func (t MenuType) Known() bool {
	switch t {
	case MenuTypeAny, MenuTypeCollection, MenuTypeEatIn, MenuTypeDelivery:
		return true
	}
	return false
}

// Menu is one menu of a POS in the universal format, as served by GET /menus.
//
// Slices that are nil are written as empty JSON arrays, never as null, so a
// provider does not have to initialise them.
type Menu struct {
	// Reference is the POS's own identifier of the menu.
	Reference string `json:"reference"`
	// Name is shown to customers.
	Name string `json:"name"`
	// Type says which kind of order the menu serves.
	Type       MenuType   `json:"type"`
	Categories []Category `json:"categories"`
	Deals      []Deal     `json:"deals"`
}

// Category groups the items of a menu ("Burgers", "Drinks").
type Category struct {
	Reference   string `json:"reference"`
	Name        string `json:"name"`
	Description string `json:"description"`
	Items       []Item `json:"items"`
}

// Item is something a customer can order on its own.
type Item struct {
	// PLU is the POS's product code; orders name items and options by PLU.
	PLU         string       `json:"plu"`
	Name        string       `json:"name"`
	Description string       `json:"description"`
	Price       client.Money `json:"price"`
	// Available is false while the item is sold out; the service does not
	// offer it then.
	Available bool            `json:"available"`
	Modifiers []ModifierGroup `json:"modifiers"`
}

// ModifierGroup is a choice attached to an item or an option ("Add side",
// "Cooking"). The customer picks between Min and Max of its options.
type ModifierGroup struct {
	Reference string   `json:"reference"`
	Name      string   `json:"name"`
	Min       int      `json:"min"`
	Max       int      `json:"max"`
	Options   []Option `json:"options"`
}

// Option is one choice of a modifier group. Options may carry modifier
// groups of their own (fries -> "Fries size"), to any depth.
type Option struct {
	PLU   string       `json:"plu"`
	Name  string       `json:"name"`
	Price client.Money `json:"price"`
	// Modifiers are the nested groups offered once this option is chosen.
	Modifiers []ModifierGroup `json:"modifiers"`
}

// Deal is a bundle sold at one price, such as a meal deal: the customer
// picks items from each group.
type Deal struct {
	PLU    string       `json:"plu"`
	Name   string       `json:"name"`
	Price  client.Money `json:"price"`
	Groups []DealGroup  `json:"groups"`
}

// DealGroup is one pick of a deal ("Choose a main"). Items holds PLUs of
// items of the same menu.
type DealGroup struct {
	Name  string   `json:"name"`
	Min   int      `json:"min"`
	Max   int      `json:"max"`
	Items []string `json:"items"`
}

// Items returns every item of every category of m, in menu order.
func (m Menu) Items() iter.Seq[Item] {
	return func(yield func(Item) bool) {
		for _, c := range m.Categories {
			for _, it := range c.Items {
				if !yield(it) {
					return
				}
			}
		}
	}
}

// FindItem returns the first item of m whose PLU is plu.
func (m Menu) FindItem(plu string) (Item, bool) {
	for it := range m.Items() {
		if it.PLU == plu {
			return it, true
		}
	}
	return Item{}, false
}

// FindDeal returns the deal of m whose PLU is plu.
func (m Menu) FindDeal(plu string) (Deal, bool) {
	for _, d := range m.Deals {
		if d.PLU == plu {
			return d, true
		}
	}
	return Deal{}, false
}

// FindOption returns the option with PLU plu offered directly by one of the
// item's modifier groups (not a nested one; use Option.FindOption on the
// result to go deeper, the way an order nests its options).
func (it Item) FindOption(plu string) (Option, bool) {
	return findOption(it.Modifiers, plu)
}

// FindOption returns the option with PLU plu offered directly by one of o's
// own modifier groups.
func (o Option) FindOption(plu string) (Option, bool) {
	return findOption(o.Modifiers, plu)
}

func findOption(groups []ModifierGroup, plu string) (Option, bool) {
	for _, g := range groups {
		for _, o := range g.Options {
			if o.PLU == plu {
				return o, true
			}
		}
	}
	return Option{}, false
}

// The MarshalJSON methods below write nil slices as [] because the contract
// describes arrays, and a consumer should not have to tell null from empty.

// MarshalJSON writes m with empty arrays in place of nil slices.
func (m Menu) MarshalJSON() ([]byte, error) {
	type plain Menu
	m.Categories = nonNil(m.Categories)
	m.Deals = nonNil(m.Deals)
	return json.Marshal(plain(m))
}

// MarshalJSON writes c with empty arrays in place of nil slices.
func (c Category) MarshalJSON() ([]byte, error) {
	type plain Category
	c.Items = nonNil(c.Items)
	return json.Marshal(plain(c))
}

// MarshalJSON writes it with empty arrays in place of nil slices.
func (it Item) MarshalJSON() ([]byte, error) {
	type plain Item
	it.Modifiers = nonNil(it.Modifiers)
	return json.Marshal(plain(it))
}

// MarshalJSON writes g with empty arrays in place of nil slices.
func (g ModifierGroup) MarshalJSON() ([]byte, error) {
	type plain ModifierGroup
	g.Options = nonNil(g.Options)
	return json.Marshal(plain(g))
}

// MarshalJSON writes o with empty arrays in place of nil slices.
func (o Option) MarshalJSON() ([]byte, error) {
	type plain Option
	o.Modifiers = nonNil(o.Modifiers)
	return json.Marshal(plain(o))
}

// MarshalJSON writes d with empty arrays in place of nil slices.
func (d Deal) MarshalJSON() ([]byte, error) {
	type plain Deal
	d.Groups = nonNil(d.Groups)
	return json.Marshal(plain(d))
}

// MarshalJSON writes g with empty arrays in place of nil slices.
func (g DealGroup) MarshalJSON() ([]byte, error) {
	type plain DealGroup
	g.Items = nonNil(g.Items)
	return json.Marshal(plain(g))
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
