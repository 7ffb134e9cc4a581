// Package fielderr names failing fields the way the service's 400002 does:
// a JSON path ("menuItems[2].modifiers[0].price") and a short reason
// ("must not be negative"). The SDK's Validate methods and the server's
// rules both collect them here, so that the two give the same paths and the
// same reasons.
package fielderr

import (
	"strconv"
	"strings"
)

// Path is the JSON path of a value, built as a chain of values on the
// caller's stack (a nil *Path is the body itself) and turned into a string
// only when a field fails, so that checking a valid body builds no path
// strings and allocates nothing for them.
type Path struct {
	parent *Path
	name   string
	index  int // an array element's index, or -1 for an object member
}

// Member returns the path of the member name of the object at parent.
func Member(parent *Path, name string) Path { return Path{parent: parent, name: name, index: -1} }

// Element returns the path of element i of the array that is the member
// name of the object at parent ("menuItems[2]").
func Element(parent *Path, name string, i int) Path {
	return Path{parent: parent, name: name, index: i}
}

// AppendTo appends the path to b.
func (p *Path) AppendTo(b []byte) []byte {
	if p == nil {
		return b
	}
	b = p.parent.AppendTo(b)
	if len(b) > 0 {
		b = append(b, '.')
	}
	b = append(b, p.name...)
	if p.index >= 0 {
		b = append(b, '[')
		b = strconv.AppendInt(b, int64(p.index), 10)
		b = append(b, ']')
	}
	return b
}

// String returns the path ("" for the body itself).
func (p *Path) String() string { return string(p.AppendTo(nil)) }

// Child returns the path of the member name of the object at p, or p's
// own path when name is "".
func (p *Path) Child(name string) string {
	b := p.AppendTo(nil)
	if name != "" {
		if len(b) > 0 {
			b = append(b, '.')
		}
		b = append(b, name...)
	}
	return string(b)
}

// Join returns the path of the member name of the object at path ("" is
// the body itself).
func Join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// Index returns the path of element i of the array at path.
func Index(path string, i int) string { return path + "[" + strconv.Itoa(i) + "]" }

// parent returns the path of the object holding the member at path:
// "a.b[2].c" -> "a.b[2]" -> "a"; false for a top-level member. An array's
// own failure ("must not be empty", too many elements) says nothing about
// its elements, so an element's path has no parent here.
func parent(path string) (string, bool) {
	i := strings.LastIndexByte(path, '.')
	if i < 0 {
		return "", false
	}
	return path[:i], true
}
