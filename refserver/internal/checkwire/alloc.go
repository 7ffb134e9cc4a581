package checkwire

import "github.com/hospo-dev/hospo-go/possync"

// slabs hand out the parts of a check that would otherwise take an
// allocation each (the parent of every category, an item's discount,
// every list of modifiers) from a few larger allocations, which a
// realistic check fills with one each. A slab is shared only by the
// values of one check, which live and die together; a list cut from one
// has no spare capacity, so that appending to it never writes over its
// neighbour.
type slabs struct {
	categories []possync.Category
	discounts  []possync.Discount
	modifiers  []possync.Modifier
	// pending holds the modifiers of the lists being read, innermost list
	// last: a list's length is known only at its end, when its modifiers
	// move to the slab in one piece. Nested lists end first, so each list
	// is at the top when it ends.
	pending      []possync.Modifier
	firstPending [8]possync.Modifier
}

// Chunk sizes: a realistic check's categories, item discounts and
// modifiers each fit in one.
const (
	categoryChunk = 16
	discountChunk = 4
	modifierChunk = 16
)

func (s *slabs) init() { s.pending = s.firstPending[:0] }

// category returns a new zero category.
func (s *slabs) category() *possync.Category {
	if len(s.categories) == 0 {
		s.categories = make([]possync.Category, categoryChunk)
	}
	c := &s.categories[0]
	s.categories = s.categories[1:]
	return c
}

// discount returns a new zero discount.
func (s *slabs) discount() *possync.Discount {
	if len(s.discounts) == 0 {
		s.discounts = make([]possync.Discount, discountChunk)
	}
	v := &s.discounts[0]
	s.discounts = s.discounts[1:]
	return v
}

// endModifiers returns the modifiers pending from base on as one list,
// and drops them from pending. An empty list is an empty slice, not nil,
// as encoding/json has it.
func (s *slabs) endModifiers(base int) []possync.Modifier {
	n := len(s.pending) - base
	if n == 0 {
		return []possync.Modifier{}
	}
	if n > len(s.modifiers) {
		s.modifiers = make([]possync.Modifier, max(n, modifierChunk))
	}
	out := s.modifiers[:n:n]
	s.modifiers = s.modifiers[n:]
	copy(out, s.pending[base:])
	s.pending = s.pending[:base]
	return out
}
