package main

import (
	"math/rand/v2"
	"strconv"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/possync"
)

// A small menu to draw checks from: what a café-bar sells, with the
// category chains and modifiers real POS exports have.
var (
	drinks = &possync.Category{Name: "Drinks"}
	food   = &possync.Category{Name: "Food"}
	menu   = []struct {
		name      string
		cents     int64
		category  possync.Category
		modifiers []possync.Modifier
	}{
		{"Flat white", 350, possync.Category{Name: "Coffee", Category: drinks}, []possync.Modifier{{ID: 901, Name: "Oat milk", Price: client.MoneyFromCents(40)}}},
		{"Espresso", 250, possync.Category{Name: "Coffee", Category: drinks}, nil},
		{"Pale ale", 620, possync.Category{Name: "Beer", Category: drinks}, nil},
		{"House red", 780, possync.Category{Name: "Wine", Category: drinks}, nil},
		{"Lemonade", 380, possync.Category{Name: "Soft drinks", Category: drinks}, nil},
		{"Burger", 1450, possync.Category{Name: "Mains", Category: food}, []possync.Modifier{
			{ID: 902, Name: "Cheese", Price: client.MoneyFromCents(150)},
			{ID: 903, Name: "Side", Modifiers: []possync.Modifier{{ID: 904, Name: "Fries", Price: client.MoneyFromCents(300)}}},
		}},
		{"Fish and chips", 1590, possync.Category{Name: "Mains", Category: food}, nil},
		{"Caesar salad", 1190, possync.Category{Name: "Starters", Category: food}, []possync.Modifier{{ID: 905, Name: "Chicken", Price: client.MoneyFromCents(350)}}},
		{"Soup of the day", 790, possync.Category{Name: "Starters", Category: food}, nil},
		{"Brownie", 690, possync.Category{Name: "Desserts", Category: food}, nil},
	}
)

// modifierCents is what a modifier and those inside it add to a line.
func modifierCents(ms []possync.Modifier) int64 {
	var c int64
	for _, m := range ms {
		c += m.Price.Cents() + modifierCents(m.Modifiers)
	}
	return c
}

// newCheck returns a check of 2 to 9 lines with consistent totals: the
// total is the lines' prices with their modifiers, a 10 % service charge
// on some checks, less any discount. A closed check owes nothing.
func newCheck(r *rand.Rand, locationID, checkNumber int64, status possync.CheckStatus) *possync.Check {
	c := &possync.Check{
		TableNumber: 1 + r.IntN(40),
		CheckNumber: checkNumber,
		LocationID:  locationID,
		StaffID:     "S" + strconv.Itoa(1+r.IntN(25)),
		Guests:      1 + r.IntN(6),
		Status:      status,
		Discounts:   []possync.Discount{},
	}
	var total int64
	for i := range 2 + r.IntN(8) {
		m := menu[r.IntN(len(menu))]
		qty := 1 + r.IntN(3)
		line := possync.MenuItem{
			ID:       int64(100 + i),
			Name:     m.name,
			Quantity: qty,
			Price:    client.MoneyFromCents(m.cents),
			Category: m.category,
		}
		if len(m.modifiers) > 0 && r.IntN(2) == 0 {
			line.Modifiers = m.modifiers
		}
		sold := (m.cents + modifierCents(line.Modifiers)) * int64(qty)
		line.PriceSold = client.MoneyFromCents(sold)
		total += sold
		c.MenuItems = append(c.MenuItems, line)
	}
	if r.IntN(5) == 0 {
		off := total / 10
		c.Discounts = append(c.Discounts, possync.Discount{Name: "Happy hour", Value: client.MoneyFromCents(off)})
		total -= off
	}
	if r.IntN(3) == 0 {
		sc := total / 10
		c.ServiceChargeAmount = client.MoneyFromCents(sc)
		total += sc
	}
	c.TotalAmount = client.MoneyFromCents(total)
	if status == possync.CheckOpen {
		c.OutstandingAmount = c.TotalAmount
	}
	return c
}
