package checkwire

import "strings"

// A member that comes twice in one object is legal JSON, and encoding/json
// does not simply keep the last one: it decodes the second value into what
// the first left, so two objects merge, and an array reuses the elements
// (and the spare capacity) of the one before. The server has always
// decoded a push that way, into a tree of pointers, so mergeRepeated
// replays exactly that on the JSON text, and the decoder then reads a body
// in which every member comes once. No client sends such a body; this is
// for getting the same answer as before when one does.

// node is a JSON value in the shape encoding/json leaves a value of
// pointers: objects and arrays are shared by pointer, so that a later
// value decoded into them changes them in place.
type node struct {
	kind  byte   // '{', '[', or 0 for any other value
	raw   string // the JSON text of any other value
	keys  []string
	names []string // the keys as written, quotes and escapes included
	vals  []*node
	elems []*node
}

// mergeRepeated returns body with the values of repeated members merged
// as encoding/json merges them. It reports false for a body that is not
// one JSON value.
func mergeRepeated(body string) (string, bool) {
	d := scanner{s: body}
	n, ok := d.into(nil, 0)
	if !ok {
		return "", false
	}
	d.ws()
	if d.i != len(d.s) {
		return "", false
	}
	return string(n.appendTo(make([]byte, 0, len(body)))), true
}

// into reads the next value into old, as encoding/json decodes a value
// into a pointer that already points to old (nil: to nothing yet), and
// returns what the pointer points to afterwards. depth is the nesting of
// the value's container.
func (d *scanner) into(old *node, depth int) (*node, bool) {
	switch d.peek() {
	case '{':
		n := old
		if n == nil || n.kind != '{' {
			n = &node{kind: '{'}
		}
		ok := d.container('{', depth+1, func() bool {
			d.ws()
			start := d.i
			key, ok := d.str()
			name := d.s[start:d.i]
			if !ok || !d.consume(':') {
				return false
			}
			j := n.member(key)
			var prev *node
			if j >= 0 {
				prev = n.vals[j]
			}
			v, ok := d.into(prev, depth+1)
			if !ok {
				return false
			}
			if j >= 0 {
				n.vals[j] = v
			} else {
				n.keys = append(n.keys, key)
				n.names = append(n.names, name)
				n.vals = append(n.vals, v)
			}
			return true
		})
		if !ok {
			return nil, false
		}
		return n, true
	case '[':
		n := old
		if n == nil || n.kind != '[' {
			n = &node{kind: '['}
		}
		i := 0
		ok := d.container('[', depth+1, func() bool {
			// As reflect grows a slice for encoding/json: one more
			// element at a time, reusing any capacity left.
			if i >= cap(n.elems) {
				n.elems = append(n.elems, nil)
			} else if i >= len(n.elems) {
				n.elems = n.elems[:i+1]
			}
			v, ok := d.into(n.elems[i], depth+1)
			if !ok {
				return false
			}
			n.elems[i] = v
			i++
			return true
		})
		if !ok {
			return nil, false
		}
		if i < len(n.elems) {
			n.elems = n.elems[:i]
		}
		if i == 0 {
			n.elems = []*node{}
		}
		return n, true
	}
	d.ws()
	start := d.i
	if !d.skip(depth) {
		return nil, false
	}
	return &node{raw: d.s[start:d.i]}, true
}

// member returns the index of the member that key names, matched as
// encoding/json matches struct fields, or -1.
func (n *node) member(key string) int {
	for j, k := range n.keys {
		if strings.EqualFold(k, key) {
			return j
		}
	}
	return -1
}

func (n *node) appendTo(b []byte) []byte {
	switch n.kind {
	case '{':
		b = append(b, '{')
		for j, v := range n.vals {
			if j > 0 {
				b = append(b, ',')
			}
			b = append(b, n.names[j]...)
			b = append(b, ':')
			b = v.appendTo(b)
		}
		return append(b, '}')
	case '[':
		b = append(b, '[')
		for j, v := range n.elems {
			if j > 0 {
				b = append(b, ',')
			}
			b = v.appendTo(b)
		}
		return append(b, ']')
	}
	return append(b, n.raw...)
}
