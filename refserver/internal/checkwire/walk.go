package checkwire

import (
	"sync"

	"github.com/hospo-dev/hospo-go/internal/fielderr"
)

// decoder reads a check push into a possync.Check and notes in missing
// every member that is not nullable and is missing or null.
//
// Its readers are plain loops over the members and elements (object and
// array below), with no func values: a call through a closure per member
// and per element, and the closures' captured variables moved to the
// heap, were most of what decoding cost.
type decoder struct {
	scanner
	missing *fielderr.Set
	// paths holds the JSON path of the value being read, one entry per
	// object or element entered below the body, each pointing to the one
	// before. Kept here rather than on the call stack, where the recursion
	// would make every path escape to the heap. An entry does not change
	// while one above it is in use, so a pointer into an array that append
	// has since outgrown still reads the right value.
	paths []fielderr.Path
	first [8]fielderr.Path
	slabs
}

// decoders holds decoders between pushes. A decoder is mostly room for
// paths and pending modifiers, which would otherwise be allocated and
// cleared for every push.
var decoders = sync.Pool{New: func() any { return new(decoder) }}

// getDecoder returns a decoder ready to read s.
func getDecoder(s string, missing *fielderr.Set) *decoder {
	d := decoders.Get().(*decoder)
	d.scanner = scanner{s: s}
	d.missing = missing
	d.paths = d.first[:0]
	d.slabs.init()
	return d
}

// putDecoder returns d to the pool, holding nothing of the push it read:
// not its body, nor the rest of a slab that the push's check uses.
func putDecoder(d *decoder) {
	*d = decoder{}
	decoders.Put(d)
}

// at returns the path of the value being read (nil for the body).
func (d *decoder) at() *fielderr.Path {
	if len(d.paths) == 0 {
		return nil
	}
	return &d.paths[len(d.paths)-1]
}

// enter makes path, one step below the value being read, the path of the
// value being read, until leave.
func (d *decoder) enter(path fielderr.Path) { d.paths = append(d.paths, path) }

// enterMember enters the member name of the object being read.
func (d *decoder) enterMember(name string) { d.enter(fielderr.Member(d.at(), name)) }

// leave returns to the value read before the last enter.
func (d *decoder) leave() { d.paths = d.paths[:len(d.paths)-1] }

// object is the state of reading one object of a check, whose members
// are those of t:
//
//	o, ok := d.object(t, depth)
//	for ok && d.field(&o) {
//		ok = read the value of member o.i
//	}
//	return ok && d.end(&o, report)
type object struct {
	t         *table
	depth     int
	seen, set uint32 // the members that came, and those not null
	next      int    // the member that clients send after the last one
	i         int    // the member whose value field stopped at
	started   bool
	ended     bool // field stopped at the closing brace
}

// object consumes the opening brace of the object at d.at(), nested depth
// deep, whose members are those of t.
func (d *decoder) object(t *table, depth int) (object, bool) {
	return object{t: t, depth: depth}, d.open('{', depth)
}

// field moves to the value of the next member of o that its table has
// and that is not null, setting o.i, and reports whether there is one.
// Other members are skipped. A member that comes twice makes it give up
// (the caller merges repeated members first, see mergeRepeated). It
// reports false at the end of the object, and on anything it cannot
// read; end tells which.
//
// It reads the punctuation, the key and a null in place, on a copy of
// d.s and d.i that stays in registers, rather than through peek and
// consume: this loop runs for every member of a check, and was most of
// what decoding one cost. It accepts exactly what container, str,
// consume(':') and null accept.
func (d *decoder) field(o *object) bool {
	s := d.s
	for {
		i := skipSpace(s, d.i)
		if i == len(s) {
			return false
		}
		switch c := s[i]; {
		case c == '}':
			d.i = i + 1
			o.ended = true
			return false
		case !o.started:
			o.started = true
		case c == ',':
			i = skipSpace(s, i+1)
		default:
			return false
		}
		// Clients send the members in the order of the table, so the
		// one after the last one found is compared with the body first,
		// quotes included: a match needs neither scanning nor looking up.
		k := -1
		if o.next < len(o.t.quoted) {
			if q := o.t.quoted[o.next]; len(s)-i >= len(q) && s[i:i+len(q)] == q {
				k, i = o.next, i+len(q)
			}
		}
		if k < 0 {
			d.i = i
			key, ok := d.str()
			if !ok {
				return false
			}
			k, i = lookup(o.t.members, key), d.i
		}
		if i = skipSpace(s, i); i == len(s) || s[i] != ':' {
			return false
		}
		d.i = skipSpace(s, i+1)
		switch {
		case k < 0:
			if !d.skip(o.depth) {
				return false
			}
			continue
		case o.seen&(1<<k) != 0:
			return false
		}
		o.next = k + 1
		o.seen |= 1 << k
		if isNull(s, d.i) {
			d.i += len("null")
			continue
		}
		// Set before the value is read: if it cannot be, the whole body
		// is given up, so the bit is never wrong where it counts.
		o.set |= 1 << k
		o.i = k
		return true
	}
}

// isNull reports whether a null starts at i in s.
func isNull(s string, i int) bool { return len(s)-i >= len("null") && s[i:i+len("null")] == "null" }

// end reports whether field stopped at the end of the object, and when
// report is true notes every member that is not nullable and was missing
// or null as required.
func (d *decoder) end(o *object, report bool) bool {
	if !o.ended {
		return false
	}
	if report && o.set&o.t.required != o.t.required {
		for i, m := range o.t.members {
			if !m.nullable && o.set&(1<<i) == 0 {
				d.missing.AddAt(d.at(), m.name, fielderr.ReasonRequired)
			}
		}
	}
	return true
}

// array is the state of reading one array of a check, the member name of
// the value at d.at():
//
//	a, ok := d.array(name, depth, report)
//	for ok && d.element(&a) {
//		if !a.null {
//			ok = read element a.i, at d.at()
//		}
//		d.leave()
//	}
//	ok = ok && a.ended
type array struct {
	name   string
	report bool // note null elements as required
	i      int  // the element's index
	null   bool // the element is null, and already read
	ended  bool // element stopped at the closing bracket
}

// array consumes the opening bracket of the array nested depth deep that
// is the member name of the value at d.at().
func (d *decoder) array(name string, depth int, report bool) (array, bool) {
	return array{name: name, report: report, i: -1}, d.open('[', depth)
}

// element moves to the next element of a and reports whether there is
// one: false at the end of the array and on anything it cannot read
// (a.ended tells which). At an element it enters the element's path,
// which the caller leaves once it has read the element. A null element
// it reads itself (a.null), noting it as required when a.report: a null
// element is still an element, a zero value in the slice, as
// encoding/json has it.
func (d *decoder) element(a *array) bool {
	// As field does for a member, on a copy of d.s and d.i, as container and
	// null would.
	a.i++
	s := d.s
	i := skipSpace(s, d.i)
	if i == len(s) {
		return false
	}
	switch c := s[i]; {
	case c == ']':
		d.i = i + 1
		a.ended = true
		return false
	case a.i == 0:
	case c == ',':
		i = skipSpace(s, i+1)
	default:
		return false
	}
	d.i = i
	d.enter(fielderr.Element(d.at(), a.name, a.i))
	if a.null = isNull(s, i); a.null {
		d.i += len("null")
		if a.report {
			d.missing.AddAt(d.at(), "", fielderr.ReasonRequired)
		}
	}
	return true
}
