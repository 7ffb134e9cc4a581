package universalpos

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/internal/fielderr"
)

// This file holds a small checker for generic JSON trees. Validating the
// tree before decoding into the typed structs lets every error name the
// exact JSON path ("items[0].options[1].price") instead of whatever
// encoding/json reports first.

// parseTree parses one JSON value with numbers kept as json.Number, so that
// money is never rounded through float64. Trailing data is an error.
func parseTree(body []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("unexpected data after the JSON value")
	}
	return v, nil
}

// problems collects path -> reason in the order found; the first reason for
// a path wins.
type problems struct{ fielderr.Set }

func (p *problems) addf(path, format string, args ...any) {
	p.Add(path, fmt.Sprintf(format, args...))
}

// list returns the problems in the order found.
func (p *problems) list() []Problem {
	fs := p.Fields()
	if len(fs) == 0 {
		return nil
	}
	out := make([]Problem, len(fs))
	for i, f := range fs {
		out[i] = Problem(f)
	}
	return out
}

// Problem is one defect found by validation: where and why.
type Problem struct {
	// Path is a JSON path such as "menus[0].categories[1].items[2].plu".
	Path string
	// Reason says what is wrong there.
	Reason string
}

// String returns "path: reason".
func (p Problem) String() string { return p.Path + ": " + p.Reason }

// object is a JSON object under validation at path.
type object struct {
	m    map[string]any
	path string
	p    *problems
}

func asObject(v any, path string, p *problems) (object, bool) {
	m, ok := v.(map[string]any)
	if !ok {
		if path == "" {
			p.Add("(body)", "must be a JSON object")
		} else {
			p.Add(path, "must be an object")
		}
		return object{}, false
	}
	return object{m: m, path: path, p: p}, true
}

func (o object) at(key string) string { return fielderr.Join(o.path, key) }

// get returns the value of key; absent or null is "required".
func (o object) get(key string) (any, bool) {
	v, ok := o.m[key]
	if !ok || v == nil {
		o.p.Add(o.at(key), fielderr.ReasonRequired)
		return nil, false
	}
	return v, true
}

// str checks a string field; nonEmpty also refuses "".
func (o object) str(key string, nonEmpty bool) (string, bool) {
	v, ok := o.get(key)
	if !ok {
		return "", false
	}
	s, ok := v.(string)
	if !ok {
		o.p.Add(o.at(key), "must be a string")
		return "", false
	}
	if nonEmpty && s == "" {
		o.p.Add(o.at(key), "must not be empty")
		return "", false
	}
	return s, true
}

// integer checks a whole-number field.
func (o object) integer(key string) (int64, bool) {
	v, ok := o.get(key)
	if !ok {
		return 0, false
	}
	n, ok := v.(json.Number)
	if !ok {
		o.p.Add(o.at(key), "must be an integer")
		return 0, false
	}
	i, err := strconv.ParseInt(n.String(), 10, strconv.IntSize)
	if err != nil {
		o.p.Add(o.at(key), "must be an integer")
		return 0, false
	}
	return i, true
}

// money checks an amount: a JSON number with at most 2 fraction digits,
// and unless allowNegative, not below zero.
func (o object) money(key string, allowNegative bool) (client.Money, bool) {
	v, ok := o.get(key)
	if !ok {
		return client.Money{}, false
	}
	n, ok := v.(json.Number)
	if !ok {
		o.p.Add(o.at(key), "must be a number")
		return client.Money{}, false
	}
	m, err := client.ParseMoney(n.String())
	switch {
	case errors.Is(err, client.ErrMoneyPrecision):
		o.p.Add(o.at(key), fielderr.ReasonMoneyPrecision)
		return client.Money{}, false
	case err != nil:
		o.p.Add(o.at(key), "must be an amount of money")
		return client.Money{}, false
	case m.IsNegative() && !allowNegative:
		o.p.Add(o.at(key), fielderr.ReasonNegative)
		return client.Money{}, false
	}
	return m, true
}

func (o object) boolean(key string) (bool, bool) {
	v, ok := o.get(key)
	if !ok {
		return false, false
	}
	b, ok := v.(bool)
	if !ok {
		o.p.Add(o.at(key), "must be true or false")
	}
	return b, ok
}

// array checks an array field. With optional, absent or null is an empty
// array.
func (o object) array(key string, optional bool) ([]any, bool) {
	v, present := o.m[key]
	if optional && (!present || v == nil) {
		return nil, true
	}
	v, ok := o.get(key)
	if !ok {
		return nil, false
	}
	a, ok := v.([]any)
	if !ok {
		o.p.Add(o.at(key), "must be an array")
		return nil, false
	}
	return a, true
}

func (o object) object(key string) (object, bool) {
	v, ok := o.get(key)
	if !ok {
		return object{}, false
	}
	return asObject(v, o.at(key), o.p)
}
