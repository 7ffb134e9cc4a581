package sim

import (
	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/universalpos"
)

// DemoMenus returns the menu of the demo universal POS: a cafe and grill
// with breakfast, burgers, sides and drinks, modifier groups nested two
// deep (burger -> "Add side" -> fries -> "Fries size"), one sold-out item
// and two deals. PLUs are unique across the whole menu, as
// universalpos.ValidateMenus requires. Each call returns a fresh copy.
func DemoMenus() []universalpos.Menu {
	m := client.MustParseMoney
	type opt = universalpos.Option
	type group = universalpos.ModifierGroup
	return []universalpos.Menu{{
		Reference: "all-day",
		Name:      "All day",
		Type:      universalpos.MenuTypeAny,
		Categories: []universalpos.Category{
			{
				Reference: "breakfast", Name: "Breakfast", Description: "Served until 11:30.",
				Items: []universalpos.Item{
					{
						PLU: "BRK-001", Name: "Full English", Price: m("9.50"), Available: true,
						Description: "Bacon, sausage, eggs, beans, mushrooms, tomato and toast.",
						Modifiers: []group{
							{Reference: "eggs", Name: "Eggs", Min: 1, Max: 1, Options: []opt{
								{PLU: "EGG-FRIED", Name: "Fried"},
								{PLU: "EGG-POACHED", Name: "Poached"},
								{PLU: "EGG-SCRAMBLED", Name: "Scrambled"},
							}},
							{Reference: "breakfast-extras", Name: "Extras", Min: 0, Max: 3, Options: []opt{
								{PLU: "XTR-BACON", Name: "Extra bacon", Price: m("1.50")},
								{PLU: "XTR-HASH", Name: "Hash brown", Price: m("1.00")},
								{PLU: "XTR-PUDDING", Name: "Black pudding", Price: m("1.20")},
							}},
						},
					},
					{
						PLU: "BRK-002", Name: "Avocado toast", Price: m("7.25"), Available: true,
						Description: "Smashed avocado on sourdough.",
						Modifiers: []group{
							{Reference: "avo-add", Name: "Add", Min: 0, Max: 2, Options: []opt{
								{PLU: "AVO-EGG", Name: "Poached egg", Price: m("1.50")},
								{PLU: "AVO-CHILLI", Name: "Chilli flakes"},
							}},
						},
					},
				},
			},
			{
				Reference: "grill", Name: "Grill", Description: "From the grill, all day.",
				Items: []universalpos.Item{
					{
						PLU: "GRL-001", Name: "Classic burger", Price: m("10.50"), Available: true,
						Description: "Beef patty, lettuce, tomato, pickles, house sauce.",
						Modifiers: []group{
							{Reference: "cooking", Name: "Cooking", Min: 1, Max: 1, Options: []opt{
								{PLU: "CK-MEDIUM", Name: "Medium"},
								{PLU: "CK-WELL", Name: "Well done"},
							}},
							{Reference: "burger-side", Name: "Add side", Min: 0, Max: 1, Options: []opt{
								{PLU: "SIDE-FRIES", Name: "Fries", Price: m("2.95"), Modifiers: []group{
									{Reference: "fries-size", Name: "Fries size", Min: 1, Max: 1, Options: []opt{
										{PLU: "FRIES-REGULAR", Name: "Regular"},
										{PLU: "FRIES-LARGE", Name: "Large", Price: m("0.80")},
									}},
								}},
								{PLU: "SIDE-SALAD", Name: "Side salad", Price: m("2.50"), Modifiers: []group{
									{Reference: "dressing", Name: "Dressing", Min: 0, Max: 1, Options: []opt{
										{PLU: "DRESS-VINAIGRETTE", Name: "Vinaigrette"},
										{PLU: "DRESS-CAESAR", Name: "Caesar", Price: m("0.30")},
									}},
								}},
							}},
							{Reference: "burger-extras", Name: "Extras", Min: 0, Max: 3, Options: []opt{
								{PLU: "BRG-CHEESE", Name: "Cheddar", Price: m("1.00")},
								{PLU: "BRG-BACON", Name: "Smoked bacon", Price: m("1.50")},
								{PLU: "BRG-JALAPENO", Name: "Jalapenos", Price: m("0.60")},
							}},
						},
					},
					{
						PLU: "GRL-002", Name: "Halloumi burger", Price: m("9.95"), Available: true,
						Description: "Grilled halloumi, roasted peppers, rocket.",
						Modifiers: []group{
							{Reference: "halloumi-add", Name: "Add", Min: 0, Max: 2, Options: []opt{
								{PLU: "HAL-EXTRA", Name: "Extra halloumi", Price: m("2.00")},
								{PLU: "HAL-CHILLI", Name: "Sweet chilli jam", Price: m("0.50")},
							}},
						},
					},
					{
						PLU: "GRL-003", Name: "Chicken wings (6)", Price: m("7.50"), Available: true,
						Description: "Six wings with a sauce of your choice.",
						Modifiers: []group{
							{Reference: "wing-sauce", Name: "Sauce", Min: 1, Max: 1, Options: []opt{
								{PLU: "WING-BBQ", Name: "BBQ"},
								{PLU: "WING-BUFFALO", Name: "Buffalo"},
								{PLU: "WING-HONEY", Name: "Honey garlic"},
							}},
						},
					},
				},
			},
			{
				Reference: "sides", Name: "Sides",
				Items: []universalpos.Item{
					{PLU: "SD-FRIES", Name: "Fries", Price: m("3.50"), Available: true, Description: "Skin-on fries."},
					{PLU: "SD-SLAW", Name: "Coleslaw", Price: m("2.00"), Available: true, Description: "House slaw."},
				},
			},
			{
				Reference: "drinks", Name: "Drinks",
				Items: []universalpos.Item{
					{
						PLU: "DRK-001", Name: "Flat white", Price: m("3.20"), Available: true,
						Modifiers: []group{
							{Reference: "milk", Name: "Milk", Min: 1, Max: 1, Options: []opt{
								{PLU: "MILK-WHOLE", Name: "Whole"},
								{PLU: "MILK-OAT", Name: "Oat", Price: m("0.40")},
								{PLU: "MILK-SOY", Name: "Soy", Price: m("0.40")},
							}},
							{Reference: "shots", Name: "Extra shot", Min: 0, Max: 2, Options: []opt{
								{PLU: "SHOT-EXTRA", Name: "Extra shot", Price: m("0.60")},
							}},
						},
					},
					{PLU: "DRK-002", Name: "Fresh orange juice", Price: m("3.50"), Available: true},
					{PLU: "DRK-003", Name: "Cola", Price: m("2.60"), Available: true},
					{PLU: "DRK-004", Name: "Sparkling water", Price: m("2.20"), Available: false, Description: "Sold out today."},
				},
			},
		},
		Deals: []universalpos.Deal{
			{
				PLU: "DEAL-BURGER-MEAL", Name: "Burger meal", Price: m("13.50"),
				Groups: []universalpos.DealGroup{
					{Name: "Burger", Min: 1, Max: 1, Items: []string{"GRL-001", "GRL-002"}},
					{Name: "Side", Min: 1, Max: 1, Items: []string{"SD-FRIES", "SD-SLAW"}},
					{Name: "Drink", Min: 1, Max: 1, Items: []string{"DRK-002", "DRK-003", "DRK-004"}},
				},
			},
			{
				PLU: "DEAL-BRUNCH", Name: "Brunch for one", Price: m("11.00"),
				Groups: []universalpos.DealGroup{
					{Name: "Breakfast", Min: 1, Max: 1, Items: []string{"BRK-001", "BRK-002"}},
					{Name: "Drink", Min: 1, Max: 1, Items: []string{"DRK-001", "DRK-002"}},
				},
			},
		},
	}}
}
