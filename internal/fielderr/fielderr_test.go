package fielderr

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hospo-dev/hospo-go/client"
)

func TestPath(t *testing.T) {
	t.Parallel()
	items := Element(nil, "menuItems", 2)
	mods := Element(&items, "modifiers", 0)
	cat := Member(&items, "category")
	tests := []struct {
		p    *Path
		name string
		want string
	}{
		{nil, "", ""},
		{nil, "checkNumber", "checkNumber"},
		{&items, "", "menuItems[2]"},
		{&items, "price", "menuItems[2].price"},
		{&mods, "price", "menuItems[2].modifiers[0].price"},
		{&cat, "name", "menuItems[2].category.name"},
	}
	for _, tt := range tests {
		if got := tt.p.Child(tt.name); got != tt.want {
			t.Errorf("Child(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}
	if got := mods.String(); got != "menuItems[2].modifiers[0]" {
		t.Errorf("String() = %q", got)
	}
	if got := Index(Join(Join("", "customer"), "lines"), 3); got != "customer.lines[3]" {
		t.Errorf("Join/Index = %q", got)
	}
}

// A valid value must cost no allocation for its paths or its set.
func TestNoAllocationWhenValid(t *testing.T) {
	var sink int
	allocs := testing.AllocsPerRun(100, func() {
		var s Set
		for i := range 3 {
			p := Element(nil, "menuItems", i)
			q := Member(&p, "category")
			v := 1
			sink += Required(&s, &q, "name", &v)
		}
		if s.Err() != nil {
			panic("unexpected failure")
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations per valid run, want 0", allocs)
	}
	_ = sink
}

func TestSet(t *testing.T) {
	t.Parallel()
	var s Set
	if s.Err() != nil || s.Map() != nil || s.Len() != 0 {
		t.Fatal("the zero Set is not empty")
	}
	s.Add("b", "first")
	s.Add("b", "second") // the first reason stays
	s.Add("a", "one")
	s.Append("items", "choose at least 1")
	s.Append("items", "choose at most 2")
	s.Append("items", "choose at most 2") // not repeated
	want := []Field{{"b", "first"}, {"a", "one"}, {"items", "choose at least 1; choose at most 2"}}
	if d := cmp.Diff(want, s.Fields()); d != "" {
		t.Errorf("fields (-want +got):\n%s", d)
	}
	err := s.Err()
	var ve *client.ValidationError
	if !errors.As(err, &ve) || !errors.Is(err, client.ErrValidation) {
		t.Fatalf("Err() = %v", err)
	}
	if d := cmp.Diff(map[string]string{"a": "one", "b": "first", "items": "choose at least 1; choose at most 2"}, ve.Fields); d != "" {
		t.Errorf("Err().Fields (-want +got):\n%s", d)
	}
}

func TestCoversAndMerge(t *testing.T) {
	t.Parallel()
	var s Set
	s.Add("customer.address", ReasonRequired)
	s.Add("items[1]", ReasonRequired)
	s.Add("lines", "must have at most 200 lines")
	for path, want := range map[string]bool{
		"customer.address": true, "customer.address.city": true, "customer.address.coordinates.latitude": true,
		"customer": false, "customer.name": false, "customer.addressee": false,
		"items[1].plu": true, "items[1].options[0].plu": true, "items[10].plu": false, "items": false,
		"lines": true, "lines[0].plu": false,
	} {
		if got := s.Covers(path); got != want {
			t.Errorf("Covers(%q) = %v, want %v", path, got, want)
		}
	}
	// Fields of one merge do not cover each other: "items" and
	// "items[0].plu" from the same Validate are both reported.
	err := s.Merge(&client.ValidationError{Fields: map[string]string{
		"customer.address.city": ReasonRequired, "customer.name": "too long",
		"items": "must have at most 200 lines", "items[0].plu": ReasonRequired, "items[1].plu": ReasonRequired,
	}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"customer.address": ReasonRequired, "items[1]": ReasonRequired, "lines": "must have at most 200 lines",
		"customer.name": "too long", "items": "must have at most 200 lines", "items[0].plu": ReasonRequired,
	}
	if d := cmp.Diff(want, s.Map()); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	other := errors.New("boom")
	if s.Merge(other) != other || s.Merge(nil) != nil {
		t.Error("Merge does not pass other errors through")
	}
}

func TestRequired(t *testing.T) {
	t.Parallel()
	var s Set
	item := Element(nil, "menuItems", 0)
	n := 5
	if got := Required(&s, &item, "quantity", &n); got != 5 {
		t.Errorf("Required = %d", got)
	}
	if got := Required[string](&s, &item, "name", nil); got != "" {
		t.Errorf("Required(nil) = %q", got)
	}
	Required[int](&s, nil, "checkNumber", nil)
	if d := cmp.Diff(map[string]string{"menuItems[0].name": "required", "checkNumber": "required"}, s.Map()); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

func TestMissing(t *testing.T) {
	t.Parallel()
	raw := []byte(`{"a":1,"b":null,"items":[{"plu":"x"},null,{"plu":null,"options":[{}]}],"c":{"d":{}}}`)
	got := Missing(raw, "a", "b", "z", "items[].plu", "items[].options[].plu", "c.d.e", "c.x.y", "")
	want := map[string]string{
		"b": "required", "z": "required", "items[1]": "required", "items[2].plu": "required",
		"items[2].options[0].plu": "required", "c.d.e": "required",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if m := Missing(raw, "a", "items[].plu"); m["items[0].plu"] != "" {
		t.Errorf("present field reported: %v", m)
	}
	if m := Missing([]byte(`{"a":1}`), "a"); m != nil {
		t.Errorf("Missing = %v, want nil", m)
	}
	if m := Missing([]byte(`not json`), "a"); m["a"] != "required" {
		t.Errorf("Missing(not json) = %v", m)
	}
	var s Set
	s.Require(raw, "z", "b")
	if d := cmp.Diff([]Field{{"z", "required"}, {"b", "required"}}, s.Fields()); d != "" {
		t.Errorf("Require (-want +got):\n%s", d)
	}
}

func TestReport(t *testing.T) {
	t.Parallel()
	few := map[string]string{"a": "x"}
	if shown, msg := Report(few, 0); len(shown) != 1 || msg != "" {
		t.Errorf("Report(1 field) = %v, %q", shown, msg)
	}
	many := map[string]string{}
	for i := range 2431 {
		many[fmt.Sprintf("items[%04d].plu", i)] = ReasonRequired
	}
	shown, msg := Report(many, 0)
	if len(shown) != MaxReported || msg != "Validation failed: 100 of 2,431 problems shown." {
		t.Errorf("Report(2431 fields) = %d fields, %q", len(shown), msg)
	}
	if shown["items[0000].plu"] == "" || shown["items[0099].plu"] == "" || shown["items[0100].plu"] != "" {
		t.Error("Report does not keep the first fields in path order")
	}
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567"} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %q, want %q", n, got, want)
		}
	}
}

// A Set keeps MaxKept fields and counts the rest, so that a value made of
// nothing but failures costs memory in proportion to MaxKept; members of
// the body itself are kept whatever came before them.
func TestSetKeepsAtMostMaxKept(t *testing.T) {
	var s Set
	const n = 3 * MaxKept
	for i := range n {
		item := Element(nil, "menuItems", i)
		s.AddAt(&item, "name", ReasonRequired)
	}
	s.Add("status", ReasonRequired)
	first := Element(nil, "menuItems", 0)
	s.AddAt(&first, "name", "a second reason") // kept already: not counted again
	s.Add("menuItems[1].name", ReasonRequired)
	if got := len(s.Fields()); got != MaxKept+1 {
		t.Errorf("kept %d fields, want %d", got, MaxKept+1)
	}
	if s.Len() != n+1 || s.Omitted() != n-MaxKept {
		t.Errorf("Len() = %d, Omitted() = %d, want %d and %d", s.Len(), s.Omitted(), n+1, n-MaxKept)
	}
	if !s.Has("status") || !s.Has("menuItems[999].name") || s.Has("menuItems[1000].name") {
		t.Error("the set does not keep the first fields and the body's own members")
	}
	var ve *client.ValidationError
	if !errors.As(s.Err(), &ve) || len(ve.Fields) != MaxKept+1 || ve.Omitted != n-MaxKept {
		t.Fatalf("Err() = %v", s.Err())
	}
	if !strings.HasSuffix(ve.Error(), "; and 2000 more") {
		t.Errorf("Error() ends %q", ve.Error()[len(ve.Error())-40:])
	}
	var merged Set
	if merged.Merge(ve) != nil || merged.Len() != n+1 {
		t.Errorf("Merge counts %d failures, want %d", merged.Len(), n+1)
	}
	shown, msg := Report(s.Map(), s.Omitted())
	if len(shown) != MaxReported || msg != "Validation failed: 100 of 3,001 problems shown." {
		t.Errorf("Report = %d fields, %q", len(shown), msg)
	}
	// Counting a nested failure once the set is full allocates nothing.
	item := Element(nil, "menuItems", 123456)
	cat := Member(&item, "category")
	if a := testing.AllocsPerRun(100, func() { s.AddAt(&cat, "name", ReasonRequired) }); a != 0 {
		t.Errorf("%v allocations per counted failure, want 0", a)
	}
}
