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
	categories slab[possync.Category]
	discounts  slab[possync.Discount]
	modifiers  slab[possync.Modifier]
	// pending holds the modifiers of the lists being read, innermost list
	// last: a list's length is known only at its end, when its modifiers
	// move to the slab in one piece. Nested lists end first, so each list
	// is at the top when it ends.
	pending      []possync.Modifier
	firstPending [4]possync.Modifier
}

func (s *slabs) init() { s.pending = s.firstPending[:0] }

// A slab is the free part of the last chunk of Ts allocated, and the size
// of that chunk. The first chunk holds firstChunk values, which is what
// the fixture check needs of categories and more than it needs of the
// others; each next one twice the last, up to maxChunk, so that a big
// check takes few allocations and a small one little memory.
type slab[T any] struct {
	free []T
	size int
}

const (
	firstChunk = 8
	maxChunk   = 256
)

// take returns n new zero values, with no spare capacity.
func (s *slab[T]) take(n int) []T {
	if n > len(s.free) {
		s.size = min(max(2*s.size, firstChunk), maxChunk)
		s.free = make([]T, max(n, s.size))
	}
	v := s.free[:n:n]
	s.free = s.free[n:]
	return v
}

// category returns a new zero category.
func (s *slabs) category() *possync.Category { return &s.categories.take(1)[0] }

// discount returns a new zero discount.
func (s *slabs) discount() *possync.Discount { return &s.discounts.take(1)[0] }

// endModifiers returns the modifiers pending from base on as one list,
// and drops them from pending. An empty list is an empty slice, not nil,
// as encoding/json has it.
func (s *slabs) endModifiers(base int) []possync.Modifier {
	n := len(s.pending) - base
	if n == 0 {
		return []possync.Modifier{}
	}
	out := s.modifiers.take(n)
	copy(out, s.pending[base:])
	s.pending = s.pending[:base]
	return out
}
