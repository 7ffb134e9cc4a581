package fielderr

import (
	"bytes"
	"encoding/json"
	"strings"
)

// Required returns *v, or records the member name of the object at p as
// ReasonRequired and returns the zero value when v is nil. Decoded into a
// pointer, a member that is missing and one that is null both show as nil.
func Required[T any](s *Set, p *Path, name string, v *T) T {
	if v == nil {
		s.AddAt(p, name, ReasonRequired)
		var zero T
		return zero
	}
	return *v
}

// Require records as ReasonRequired each of paths that is missing or null
// in the JSON object raw (see Missing), in the order of paths.
func (s *Set) Require(raw []byte, paths ...string) {
	walkMissing(raw, paths, func(p string) { s.Add(p, ReasonRequired) })
}

// Missing checks that each path is present and not null in the JSON object
// raw, and returns path -> ReasonRequired for each that is not (nil when
// all are there). Paths are dotted member names; "[]" after a name applies
// the rest of the path to every element of that array:
//
//	"checkNumber", "menuItems[].price", "customer.address.lineOne"
//
// A nested path is only checked when its parent is present and non-null
// (list the parent too when it is required itself), and results name the
// element: "menuItems[2].price". Values of the wrong type are the decoder's
// business and are skipped here.
func Missing(raw []byte, paths ...string) map[string]string {
	var out map[string]string
	walkMissing(raw, paths, func(p string) {
		if out == nil {
			out = map[string]string{}
		}
		out[p] = ReasonRequired
	})
	return out
}

func walkMissing(raw []byte, paths []string, missing func(path string)) {
	var root any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if dec.Decode(&root) != nil {
		root = nil
	}
	obj, _ := root.(map[string]any)
	if obj == nil {
		obj = map[string]any{}
	}
	for _, p := range paths {
		if p != "" {
			checkPath(obj, strings.Split(p, "."), "", missing)
		}
	}
}

func checkPath(v any, segs []string, prefix string, missing func(string)) {
	obj, ok := v.(map[string]any)
	if !ok {
		return
	}
	name, isArray := strings.CutSuffix(segs[0], "[]")
	p := Join(prefix, name)
	child, present := obj[name]
	last := len(segs) == 1
	if !present || child == nil {
		if last {
			missing(p)
		}
		return
	}
	if !isArray {
		if !last {
			checkPath(child, segs[1:], p, missing)
		}
		return
	}
	arr, ok := child.([]any)
	if !ok {
		return
	}
	for i, el := range arr {
		ep := Index(p, i)
		if el == nil {
			missing(ep)
			continue
		}
		if !last {
			checkPath(el, segs[1:], ep, missing)
		}
	}
}
