package fielderr

import (
	"errors"
	"slices"
	"strings"

	"github.com/hospo-dev/hospo-go/client"
)

// Field is one failing field: where and why.
type Field struct {
	Path   string
	Reason string
}

// MaxKept is the most failing fields a Set keeps. A 400002 shows only
// MaxReported of them; keeping more only lets the first ones be chosen in
// path order. Beyond it a Set counts failures without keeping them, so
// that a body made of nothing but failures (a megabyte of empty menu
// items fails two million times) costs time in proportion to its size and
// memory in proportion to MaxKept.
const MaxKept = 1000

// Set collects failing fields in the order they are found, one reason per
// path. The zero value is empty and ready to use; it allocates nothing until
// the first failure.
//
// It keeps the first MaxKept fields found, and every member of the body
// itself ("status", "locationId"; a body has few), so that a failure of
// those is never lost behind a long list and covering works on them.
// Further fields are only counted (see Omitted): one found twice after the
// set is full, by two different checks, is counted twice.
type Set struct {
	fields  []Field
	at      map[string]int // path -> index in fields
	omitted int
	scratch []byte // a path built only to be looked up
}

// Add records path as failing for reason, unless it already failed: the
// first reason found for a path is the one reported.
func (s *Set) Add(path, reason string) {
	if _, seen := s.at[path]; seen {
		return
	}
	if s.full() && !topLevel(path) {
		s.omitted++
		return
	}
	if s.at == nil {
		s.at = make(map[string]int)
	}
	s.at[path] = len(s.fields)
	s.fields = append(s.fields, Field{Path: path, Reason: reason})
}

// AddAt records the member name of the object at p (p itself when name is
// "") as failing for reason. Once the set is full, a nested path is looked
// up in a reused buffer and only counted, so that it allocates nothing.
func (s *Set) AddAt(p *Path, name, reason string) {
	if p == nil || !s.full() {
		s.Add(p.Child(name), reason)
		return
	}
	s.scratch = p.AppendTo(s.scratch[:0])
	if name != "" {
		s.scratch = append(append(s.scratch, '.'), name...)
	}
	if _, seen := s.at[string(s.scratch)]; !seen {
		s.omitted++
	}
}

// full reports whether the set keeps no more nested fields.
func (s *Set) full() bool { return len(s.fields) >= MaxKept }

// topLevel reports whether path is a member of the body itself.
func topLevel(path string) bool { return !strings.ContainsAny(path, ".[") }

// Append records path as failing for reason too: a path that already
// failed for another reason reports both, joined by "; ".
func (s *Set) Append(path, reason string) {
	i, seen := s.at[path]
	if !seen {
		s.Add(path, reason)
		return
	}
	if old := s.fields[i].Reason; !strings.Contains(old, reason) {
		s.fields[i].Reason = old + "; " + reason
	}
}

// Has reports whether path failed.
func (s *Set) Has(path string) bool {
	_, ok := s.at[path]
	return ok
}

// Covers reports whether path or an object holding it failed: once
// "customer.address" or "items[2]" is missing, "customer.address.city" or
// "items[2].plu" has nothing more to say. An array's own reason does not
// cover its elements' ("items" may have too many lines and "items[3].plu"
// still be unknown).
func (s *Set) Covers(path string) bool { return s.coveredBefore(path, len(s.fields)) }

// coveredBefore is Covers counting only the first n fields found.
func (s *Set) coveredBefore(path string, n int) bool {
	for {
		if i, ok := s.at[path]; ok && i < n {
			return true
		}
		var more bool
		if path, more = parent(path); !more {
			return false
		}
	}
}

// Merge adds the fields of err, a *client.ValidationError, that the set
// does not cover yet (a field found missing stays "required" rather than
// getting a second reason from its zero value), and counts those it
// omitted, and returns nil. Any other non-nil err is returned as it is.
func (s *Set) Merge(err error) error {
	if err == nil {
		return nil
	}
	var ve *client.ValidationError
	if !errors.As(err, &ve) {
		return err
	}
	s.MergeFields(ve.Fields)
	s.omitted += ve.Omitted
	return nil
}

// MergeFields adds the fields of a path -> reason map, in path order, that
// the set does not cover yet (see Merge).
func (s *Set) MergeFields(fields map[string]string) {
	n := len(s.fields)
	paths := make([]string, 0, len(fields))
	for p := range fields {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	for _, p := range paths {
		if !s.coveredBefore(p, n) {
			s.Add(p, fields[p])
		}
	}
}

// Len returns the number of failing fields, kept or counted.
func (s *Set) Len() int { return len(s.fields) + s.omitted }

// Omitted returns the number of failing fields counted but not kept.
func (s *Set) Omitted() int { return s.omitted }

// Fields returns the kept failing fields in the order found.
func (s *Set) Fields() []Field { return s.fields }

// Map returns the kept failing fields as path -> reason, nil when there
// are none.
func (s *Set) Map() map[string]string {
	if len(s.fields) == 0 {
		return nil
	}
	m := make(map[string]string, len(s.fields))
	for _, f := range s.fields {
		m[f.Path] = f.Reason
	}
	return m
}

// Err returns a *client.ValidationError naming the kept failing fields and
// counting the others, or nil when none failed.
func (s *Set) Err() error {
	if s.Len() == 0 {
		return nil
	}
	return &client.ValidationError{Fields: s.Map(), Omitted: s.omitted}
}
