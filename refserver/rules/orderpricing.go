package rules

import (
	"strconv"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/fulfillment"
	"github.com/hospo-dev/hospo-go/internal/fielderr"
	"github.com/hospo-dev/hospo-go/universalpos"
)

// maxOrderTotal bounds an order's total (1,000,000.00). Far above any real
// order, it keeps quantities multiplied through nested options from ever
// overflowing the int64 of client.Money.
var maxOrderTotal = client.MoneyFromCents(100_000_000)

// menuIndex finds items and deals of a location's menus by PLU. A PLU is
// unique within one menu (universalpos.ValidateMenus), but two menus of a
// location may use the same PLU; the first menu that has it wins, so an
// order is priced the same way every time.
type menuIndex struct {
	items map[string]indexedItem
	deals map[string]indexedDeal
}

type indexedItem struct {
	item universalpos.Item
}

type indexedDeal struct {
	deal  universalpos.Deal
	items map[string]universalpos.Item // the items of the deal's own menu
}

func newMenuIndex(menus []universalpos.Menu) menuIndex {
	x := menuIndex{items: map[string]indexedItem{}, deals: map[string]indexedDeal{}}
	for _, m := range menus {
		own := map[string]universalpos.Item{}
		for it := range m.Items() {
			if _, dup := own[it.PLU]; !dup {
				own[it.PLU] = it
			}
			if _, seen := x.items[it.PLU]; !seen {
				x.items[it.PLU] = indexedItem{item: it}
			}
		}
		for _, d := range m.Deals {
			if _, seen := x.deals[d.PLU]; !seen {
				x.deals[d.PLU] = indexedDeal{deal: d, items: own}
			}
		}
	}
	return x
}

// pricer prices an order against a menu and collects what is wrong with
// it, by JSON path.
type pricer struct {
	menu menuIndex
	// bad starts with fulfillment.ValidateItems's verdict on the lines:
	// a line that breaks those rules is not priced, and the menu's
	// verdicts are added to it.
	bad fielderr.Set
	// synced is false when the location's menu has never been synced, which
	// the reasons mention: every PLU is unknown then.
	synced bool
}

// fail records a reason of the menu's; a path that fails twice (two
// modifier groups' bounds) reports both.
func (p *pricer) fail(path, reason string) { p.bad.Append(path, reason) }

// priceOrder checks every line of an order, with the SDK's rules
// (fulfillment.ValidateItems) and against the location's menus, and
// returns the lines with the menu's names and unit prices, and the total:
// for each item line (item price + its options) x quantity, where an
// option counts (option price + its own options) x option quantity per
// unit of its parent. A deal line costs the deal's price; the items chosen
// for it cost nothing more, their options do. All of it in exact
// hundredths. errs names each bad line by JSON path (nil when the order is
// good). With a nil lm only the SDK's rules are checked, and no lines are
// returned: there is nothing to price them with.
func priceOrder(lm *locationMenus, lines []fulfillment.OrderLine) (items []universalpos.OrderItem, total client.Money, errs map[string]string) {
	p := &pricer{}
	// ValidateItems returns nil or a *client.ValidationError, which Merge
	// takes whole.
	_ = p.bad.Merge(fulfillment.ValidateItems(lines))
	if lm == nil {
		return nil, client.Money{}, p.bad.Map()
	}
	p.menu, p.synced = newMenuIndex(lm.menus), !lm.syncedAt.IsZero()
	for i, l := range lines {
		path := fielderr.Index("items", i)
		it, ok := p.line(path, l)
		if !ok {
			continue
		}
		items = append(items, it)
		unit, ok := unitTotal(it.Price, it.Options)
		var line client.Money
		if ok {
			line, ok = mulMoney(unit, it.Quantity)
		}
		if !ok || total.Add(line).Cmp(maxOrderTotal) > 0 {
			p.fail(path+".quantity", "makes the order total more than "+maxOrderTotal.String())
			continue
		}
		total = total.Add(line)
	}
	if p.bad.Len() > 0 {
		return nil, client.Money{}, p.bad.Map()
	}
	return items, total, nil
}

// priceable reports whether the line at path passed the SDK's rules for
// its own PLU and quantity: a line that did not cannot be looked up or
// counted.
func (p *pricer) priceable(path string) bool {
	return !p.bad.Has(path) && !p.bad.Has(path+".plu") && !p.bad.Has(path+".quantity")
}

func (p *pricer) line(path string, l fulfillment.OrderLine) (universalpos.OrderItem, bool) {
	if !p.priceable(path) {
		return universalpos.OrderItem{}, false
	}
	if ix, ok := p.menu.items[l.PLU]; ok {
		it := ix.item
		if !it.Available {
			p.fail(path+".plu", "item "+strconv.Quote(l.PLU)+" is unavailable")
			return universalpos.OrderItem{}, false
		}
		opts, ok := p.options(path, it.Modifiers, l.Options)
		return universalpos.OrderItem{PLU: it.PLU, Name: it.Name, Quantity: l.Quantity, Price: it.Price, Options: opts}, ok
	}
	if dx, ok := p.menu.deals[l.PLU]; ok {
		opts, ok := p.deal(path, dx, l.Options)
		return universalpos.OrderItem{PLU: dx.deal.PLU, Name: dx.deal.Name, Quantity: l.Quantity, Price: dx.deal.Price, Options: opts}, ok
	}
	reason := "unknown plu"
	if !p.synced {
		reason = "unknown plu (the location's menu has not been synced yet)"
	}
	p.fail(path+".plu", reason)
	return universalpos.OrderItem{}, false
}

// options checks the options chosen for one unit of a parent against the
// parent's modifier groups: each PLU an option of one of the groups.
func (p *pricer) options(parent string, groups []universalpos.ModifierGroup, chosen []fulfillment.OrderLine) ([]universalpos.OrderOption, bool) {
	optsPath := parent + ".options"
	if p.bad.Has(optsPath) { // nested too deeply
		return nil, false
	}
	bounds := make([]groupBounds, len(groups))
	for i, g := range groups {
		bounds[i] = groupBounds{g.Name, g.Min, g.Max}
	}
	return p.choose(optsPath, bounds, chosen, func(path string, c fulfillment.OrderLine, _ []int) (choice, bool) {
		gi, opt, found := findGroupOption(groups, c.PLU)
		if !found {
			p.fail(path+".plu", "not an option offered here")
			return choice{}, false
		}
		return choice{group: gi, plu: opt.PLU, name: opt.Name, price: opt.Price, modifiers: opt.Modifiers}, true
	})
}

// deal checks the items chosen for one deal: each an item of the deal's
// menu listed in one of its groups, with its own options checked as for
// an item line. A PLU listed in several groups counts towards the first
// one that still has room.
func (p *pricer) deal(parent string, dx indexedDeal, chosen []fulfillment.OrderLine) ([]universalpos.OrderOption, bool) {
	groups := dx.deal.Groups
	bounds := make([]groupBounds, len(groups))
	for i, g := range groups {
		bounds[i] = groupBounds{g.Name, g.Min, g.Max}
	}
	return p.choose(parent+".options", bounds, chosen, func(path string, c fulfillment.OrderLine, counts []int) (choice, bool) {
		gi := -1
		for k, g := range groups {
			if !dealGroupHas(g.Items, c.PLU) {
				continue
			}
			if gi < 0 {
				gi = k
			}
			if counts[k]+c.Quantity <= g.Max {
				gi = k
				break
			}
		}
		it, isItem := dx.items[c.PLU]
		if gi < 0 || !isItem {
			p.fail(path+".plu", "not an item of this deal")
			return choice{}, false
		}
		if !it.Available {
			p.fail(path+".plu", "item "+strconv.Quote(c.PLU)+" is unavailable")
			return choice{}, false
		}
		// The deal's price covers the item itself.
		return choice{group: gi, plu: it.PLU, name: it.Name, modifiers: it.Modifiers}, true
	})
}

// groupBounds is a group of choices as choose counts it: an item's or
// option's modifier group, or a deal's group.
type groupBounds struct {
	name     string
	min, max int
}

// choice is what a chosen line stands for: the group it counts towards,
// the option it puts on the order, and the modifier groups its own options
// are checked against.
type choice struct {
	group     int
	plu, name string
	price     client.Money
	modifiers []universalpos.ModifierGroup
}

// choose checks the lines chosen for one unit of a parent against the
// parent's groups of choices, the same way for modifiers and for deals:
// pick turns each line into a choice (or records why it cannot, and
// returns false), given how much each group holds so far; the choice's
// own options are checked in turn; and each group's min and max must hold
// for the sum of the quantities chosen from it.
func (p *pricer) choose(optsPath string, groups []groupBounds, chosen []fulfillment.OrderLine,
	pick func(path string, c fulfillment.OrderLine, counts []int) (choice, bool)) ([]universalpos.OrderOption, bool) {
	// unsure: a line without a usable PLU or quantity cannot be counted,
	// so the groups' min and max are not judged (that would only echo it).
	ok, unsure := true, false
	counts := make([]int, len(groups))
	out := make([]universalpos.OrderOption, 0, len(chosen))
	for j, c := range chosen {
		path := fielderr.Index(optsPath, j)
		if !p.priceable(path) {
			ok, unsure = false, true
			continue
		}
		ch, picked := pick(path, c, counts)
		if !picked {
			ok = false
			continue
		}
		counts[ch.group] += c.Quantity
		nested, nok := p.options(path, ch.modifiers, c.Options)
		ok = ok && nok
		out = append(out, universalpos.OrderOption{PLU: ch.plu, Name: ch.name, Quantity: c.Quantity, Price: ch.price, Options: nested})
	}
	for gi, g := range groups {
		if !unsure && !checkChoice(p, optsPath, g.name, counts[gi], g.min, g.max) {
			ok = false
		}
	}
	return out, ok
}

func checkChoice(p *pricer, path, group string, n, minN, maxN int) bool {
	switch {
	case n < minN:
		p.fail(path, "choose at least "+strconv.Itoa(minN)+" from "+strconv.Quote(group))
		return false
	case n > maxN:
		p.fail(path, "choose at most "+strconv.Itoa(maxN)+" from "+strconv.Quote(group))
		return false
	}
	return true
}

func findGroupOption(groups []universalpos.ModifierGroup, plu string) (int, universalpos.Option, bool) {
	for gi, g := range groups {
		for _, o := range g.Options {
			if o.PLU == plu {
				return gi, o, true
			}
		}
	}
	return 0, universalpos.Option{}, false
}

func dealGroupHas(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// unitTotal returns price plus the line totals of opts, the same sum as
// universalpos.OrderItem.UnitTotal, or false when it exceeds the bound of
// an order total (quantities multiply through nested options, so a
// hostile order could otherwise overflow).
func unitTotal(price client.Money, opts []universalpos.OrderOption) (client.Money, bool) {
	sum := price
	for _, o := range opts {
		u, ok := unitTotal(o.Price, o.Options)
		if !ok {
			return client.Money{}, false
		}
		line, ok := mulMoney(u, o.Quantity)
		if !ok {
			return client.Money{}, false
		}
		sum = sum.Add(line)
		if sum.Cmp(maxOrderTotal) > 0 {
			return client.Money{}, false
		}
	}
	return sum, true
}

// mulMoney returns m x n, or false when the product would not fit the
// bound of an order total.
func mulMoney(m client.Money, n int) (client.Money, bool) {
	if n < 0 || m.IsNegative() {
		return client.Money{}, false
	}
	if n != 0 && m.Cents() > maxOrderTotal.Cents()/int64(n) {
		return client.Money{}, false
	}
	return m.Mul(int64(n)), true
}
