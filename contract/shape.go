package contract

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// shape describes the JSON a response must have: JSON path -> kind. A
// path is dot-separated member names; "name[]" steps into every element
// of an array ("wallet[].gateways.providerB"). A kind is one of string,
// int, number, money (a number with at most 2 fraction digits), bool,
// object, array, null or any (present, whatever it is), or several joined
// by "|" ("int|null").
type shape map[string]string

// requestInfoShape is requestInfo as every success and error body carries
// it (contract section 1: requestId is always null).
var requestInfoShape = shape{
	"requestInfo":                   "object",
	"requestInfo.accessTokenStatus": "string",
	"requestInfo.serverTime":        "int",
	"requestInfo.requestId":         "null",
	"requestInfo.apiVersion":        "int",
}

// errorShape is the error body of interface section 7.
var errorShape = with(requestInfoShape, shape{
	"error":         "bool",
	"code":          "int",
	"message":       "string",
	"contextData":   "any",
	"displayString": "any",
})

// with returns the union of shapes (later ones win).
func with(shapes ...shape) shape {
	out := shape{}
	for _, s := range shapes {
		for k, v := range s {
			out[k] = v
		}
	}
	return out
}

// under returns s with every path put under prefix ("wallet[]").
func under(prefix string, s shape) shape {
	out := shape{prefix: "object"}
	if strings.HasSuffix(prefix, "[]") {
		out = shape{strings.TrimSuffix(prefix, "[]"): "array"}
	}
	for k, v := range s {
		out[prefix+"."+k] = v
	}
	return out
}

// shapeProblems returns what in raw breaks s, one line per field ("wallet[0].cardId:
// got string "12", want int"), in path order. A body that is not JSON is one
// problem.
func shapeProblems(raw []byte, s shape) []string {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return []string{fmt.Sprintf("body is not JSON: %v", err)}
	}
	paths := make([]string, 0, len(s))
	for p := range s {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	var out []string
	for _, p := range paths {
		out = append(out, walk(doc, strings.Split(p, "."), "", s[p])...)
	}
	return out
}

// walk checks the value at segs under v (whose own path is at) against
// kinds.
func walk(v any, segs []string, at, kinds string) []string {
	if len(segs) == 0 {
		if ok, got := kindOf(v, kinds); !ok {
			return []string{fmt.Sprintf("%s: got %s, want %s", at, got, kinds)}
		}
		return nil
	}
	seg, each := strings.CutSuffix(segs[0], "[]")
	obj, ok := v.(map[string]any)
	if !ok {
		// A parent that is null where null is allowed was reported (or
		// accepted) at its own path.
		if v == nil {
			return nil
		}
		return []string{fmt.Sprintf("%s: got %s, want an object with %q", orRoot(at), describe(v), seg)}
	}
	child, present := obj[seg]
	path := join(at, seg)
	if !present {
		return []string{fmt.Sprintf("%s: missing", path)}
	}
	if !each {
		return walk(child, segs[1:], path, kinds)
	}
	arr, ok := child.([]any)
	if !ok {
		if child == nil {
			return nil
		}
		return []string{fmt.Sprintf("%s: got %s, want array", path, describe(child))}
	}
	var out []string
	for i, el := range arr {
		out = append(out, walk(el, segs[1:], fmt.Sprintf("%s[%d]", path, i), kinds)...)
	}
	return out
}

func join(at, seg string) string {
	if at == "" {
		return seg
	}
	return at + "." + seg
}

func orRoot(at string) string {
	if at == "" {
		return "body"
	}
	return at
}

// kindOf reports whether v is one of kinds, and what v is.
func kindOf(v any, kinds string) (bool, string) {
	got := describe(v)
	for k := range strings.SplitSeq(kinds, "|") {
		if isKind(v, k) {
			return true, got
		}
	}
	return false, got
}

func isKind(v any, k string) bool {
	switch k {
	case "any":
		return true
	case "null":
		return v == nil
	case "string":
		_, ok := v.(string)
		return ok
	case "bool":
		_, ok := v.(bool)
		return ok
	case "object":
		_, ok := v.(map[string]any)
		return ok
	case "array":
		_, ok := v.([]any)
		return ok
	case "number":
		_, ok := v.(json.Number)
		return ok
	case "int":
		n, ok := v.(json.Number)
		if !ok {
			return false
		}
		_, err := strconv.ParseInt(n.String(), 10, 64)
		return err == nil
	case "money":
		n, ok := v.(json.Number)
		if !ok || strings.ContainsAny(n.String(), "eE") {
			return false
		}
		_, frac, _ := strings.Cut(n.String(), ".")
		return len(frac) <= 2
	}
	panic("contract: unknown kind " + k)
}

// describe names what v is, with its value when short: `string "12"`,
// `number 1.005`, `null`.
func describe(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		if len(x) > 40 {
			x = x[:40] + "..."
		}
		return fmt.Sprintf("string %q", x)
	case bool:
		return fmt.Sprintf("bool %t", x)
	case json.Number:
		return "number " + x.String()
	case []any:
		return fmt.Sprintf("array of %d", len(x))
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}
