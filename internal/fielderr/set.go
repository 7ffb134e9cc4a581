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

// Set collects failing fields in the order they are found, one reason per
// path. The zero value is empty and ready to use; it allocates nothing until
// the first failure.
type Set struct {
	fields []Field
	at     map[string]int // path -> index in fields
}

// Add records path as failing for reason, unless it already failed: the
// first reason found for a path is the one reported.
func (s *Set) Add(path, reason string) {
	if _, seen := s.at[path]; seen {
		return
	}
	if s.at == nil {
		s.at = make(map[string]int)
	}
	s.at[path] = len(s.fields)
	s.fields = append(s.fields, Field{Path: path, Reason: reason})
}

// AddAt records the member name of the object at p (p itself when name is
// "") as failing for reason.
func (s *Set) AddAt(p *Path, name, reason string) { s.Add(p.Child(name), reason) }

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
// getting a second reason from its zero value), and returns nil. Any other
// non-nil err is returned as it is.
func (s *Set) Merge(err error) error {
	if err == nil {
		return nil
	}
	var ve *client.ValidationError
	if !errors.As(err, &ve) {
		return err
	}
	s.MergeFields(ve.Fields)
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

// Len returns the number of failing fields.
func (s *Set) Len() int { return len(s.fields) }

// Fields returns the failing fields in the order found.
func (s *Set) Fields() []Field { return s.fields }

// Map returns the failing fields as path -> reason, nil when there are
// none.
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

// Err returns a *client.ValidationError naming every failing field, or nil
// when none failed.
func (s *Set) Err() error {
	if len(s.fields) == 0 {
		return nil
	}
	return &client.ValidationError{Fields: s.Map()}
}
