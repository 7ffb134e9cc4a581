package universalpos

import (
	"fmt"

	"github.com/hospo-dev/hospo-go/internal/fielderr"
)

// maxModifierDepth bounds how deep options may nest in a menu, so a
// malicious or broken menu cannot make a validator recurse without end.
const maxModifierDepth = 16

// ValidateMenus checks the internal consistency of menus, the rules the
// service relies on when it offers a menu and builds orders from it:
//
//   - every menu, category, item, option, modifier group, deal and deal
//     group has a non-empty name; menus have a reference and a known type;
//   - within one menu, every PLU is unique across items, options and deals
//     (an order names things only by PLU, so a PLU must mean one thing);
//   - a modifier group has 0 <= min <= max, max >= 1 when it has options,
//     and min <= its number of options, so a valid choice exists;
//   - a deal group has 0 <= min <= max, max >= 1, and names only PLUs of
//     items of the same menu;
//   - prices are not negative.
//
// It returns the problems found in menu order, none for a valid menu. The
// conformance checker runs it on the menus a POS serves; a vendor can run
// it in its own tests.
func ValidateMenus(menus []Menu) []Problem {
	var p problems
	for i, m := range menus {
		validateMenu(m, fielderr.Index("menus", i), &p)
	}
	return p.list()
}

// pluIndex remembers where each PLU of one menu was first seen.
type pluIndex map[string]string

func (x pluIndex) claim(plu, path string, p *problems) {
	if plu == "" {
		return
	}
	if first, dup := x[plu]; dup {
		p.addf(path+".plu", "duplicate plu %q (also at %s)", plu, first)
		return
	}
	x[plu] = path
}

func validateMenu(m Menu, path string, p *problems) {
	nonEmpty(m.Reference, path+".reference", p)
	nonEmpty(m.Name, path+".name", p)
	if !m.Type.Known() {
		p.addf(path+".type", "unknown menu type %q (want ANY, COLLECTION, EAT_IN or DELIVERY)", string(m.Type))
	}
	plus := pluIndex{}
	items := map[string]bool{}
	for ci, c := range m.Categories {
		cpath := fielderr.Index(path+".categories", ci)
		nonEmpty(c.Name, cpath+".name", p)
		for ii, it := range c.Items {
			ipath := fielderr.Index(cpath+".items", ii)
			nonEmpty(it.PLU, ipath+".plu", p)
			nonEmpty(it.Name, ipath+".name", p)
			if it.Price.IsNegative() {
				p.Add(ipath+".price", fielderr.ReasonNegative)
			}
			plus.claim(it.PLU, ipath, p)
			items[it.PLU] = true
			validateGroups(it.Modifiers, ipath+".modifiers", plus, p, 0)
		}
	}
	for di, d := range m.Deals {
		dpath := fielderr.Index(path+".deals", di)
		nonEmpty(d.PLU, dpath+".plu", p)
		nonEmpty(d.Name, dpath+".name", p)
		if d.Price.IsNegative() {
			p.Add(dpath+".price", fielderr.ReasonNegative)
		}
		plus.claim(d.PLU, dpath, p)
		if len(d.Groups) == 0 {
			p.Add(dpath+".groups", "a deal needs at least one group")
		}
		for gi, g := range d.Groups {
			gpath := fielderr.Index(dpath+".groups", gi)
			nonEmpty(g.Name, gpath+".name", p)
			checkMinMax(g.Min, g.Max, len(g.Items), gpath, p)
			if len(g.Items) == 0 {
				p.Add(gpath+".items", "a deal group needs at least one item")
			}
			for k, plu := range g.Items {
				if !items[plu] {
					p.addf(fielderr.Index(gpath+".items", k), "plu %q is not an item of this menu", plu)
				}
			}
		}
	}
}

func validateGroups(groups []ModifierGroup, path string, plus pluIndex, p *problems, depth int) {
	if len(groups) > 0 && depth >= maxModifierDepth {
		p.Add(path, "modifiers are nested too deeply")
		return
	}
	for gi, g := range groups {
		gpath := fielderr.Index(path, gi)
		nonEmpty(g.Name, gpath+".name", p)
		checkMinMax(g.Min, g.Max, len(g.Options), gpath, p)
		for oi, o := range g.Options {
			opath := fielderr.Index(gpath+".options", oi)
			nonEmpty(o.PLU, opath+".plu", p)
			nonEmpty(o.Name, opath+".name", p)
			if o.Price.IsNegative() {
				p.Add(opath+".price", fielderr.ReasonNegative)
			}
			plus.claim(o.PLU, opath, p)
			validateGroups(o.Modifiers, opath+".modifiers", plus, p, depth+1)
		}
	}
}

// checkMinMax checks the bounds of a choice among n things.
func checkMinMax(minN, maxN, n int, path string, p *problems) {
	switch {
	case minN < 0:
		p.Add(path+".min", fielderr.ReasonNegative)
	case minN > maxN:
		p.addf(path+".min", "min %d is greater than max %d", minN, maxN)
	case n > 0 && maxN < 1:
		p.Add(path+".max", "must be at least 1 when there are choices")
	case minN > n:
		p.addf(path+".min", "min %d is more than the %d choices offered", minN, n)
	}
}

func nonEmpty(s, path string, p *problems) {
	if s == "" {
		p.Add(path, "must not be empty")
	}
}

// checkMenusShape checks the raw body of GET /menus against the contract's
// shape: every field present with its JSON type, money with at most two
// fraction digits (a negative price is left to ValidateMenus). It is stricter than the Client, which tolerates null
// arrays, because it tells a vendor what the contract says.
func checkMenusShape(tree any) []Problem {
	var p problems
	root, ok := tree.(map[string]any)
	if !ok {
		p.Add("(body)", "must be a JSON object")
		return p.list()
	}
	o := object{m: root, p: &p}
	menus, ok := o.array("menus", false)
	if !ok {
		return p.list()
	}
	for i, v := range menus {
		m, ok := asObject(v, fielderr.Index("menus", i), &p)
		if !ok {
			continue
		}
		m.str("reference", false)
		m.str("name", false)
		if t, ok := m.str("type", false); ok && !MenuType(t).Known() {
			p.Add(m.at("type"), fmt.Sprintf("unknown menu type %q", t))
		}
		each(m, "categories", func(c object) {
			c.str("reference", false)
			c.str("name", false)
			c.str("description", false)
			each(c, "items", func(it object) {
				it.str("plu", false)
				it.str("name", false)
				it.str("description", false)
				it.money("price", true)
				it.boolean("available")
				shapeGroups(it, 0)
			})
		})
		each(m, "deals", func(d object) {
			d.str("plu", false)
			d.str("name", false)
			d.money("price", true)
			each(d, "groups", func(g object) {
				g.str("name", false)
				g.integer("min")
				g.integer("max")
				if items, ok := g.array("items", false); ok {
					for k, v := range items {
						if _, ok := v.(string); !ok {
							p.Add(fielderr.Index(g.at("items"), k), "must be a string (a plu)")
						}
					}
				}
			})
		})
	}
	return p.list()
}

func shapeGroups(parent object, depth int) {
	if depth >= maxModifierDepth {
		if a, ok := parent.array("modifiers", false); ok && len(a) > 0 {
			parent.p.Add(parent.at("modifiers"), "modifiers are nested too deeply")
		}
		return
	}
	each(parent, "modifiers", func(g object) {
		g.str("reference", false)
		g.str("name", false)
		g.integer("min")
		g.integer("max")
		each(g, "options", func(o object) {
			o.str("plu", false)
			o.str("name", false)
			o.money("price", true)
			shapeGroups(o, depth+1)
		})
	})
}

// each checks that key is an array of objects and calls fn on each.
func each(o object, key string, fn func(object)) {
	a, ok := o.array(key, false)
	if !ok {
		return
	}
	for i, v := range a {
		if e, ok := asObject(v, fielderr.Index(o.at(key), i), o.p); ok {
			fn(e)
		}
	}
}
