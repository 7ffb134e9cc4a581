package possync

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/internal/checkfixture"
)

// loadCheck decodes the shared fixture check, a realistic 2 KB check with
// nested modifiers and categories.
func loadCheck(t testing.TB) *Check { return checkfixture.Decode[Check](t) }

func money(s string) client.Money { return client.MustParseMoney(s) }

func TestCheckDecodeFixture(t *testing.T) {
	t.Parallel()
	c := loadCheck(t)
	want := MenuItem{
		ID: 1001, Name: "Margherita pizza", Quantity: 2, Price: money("11.50"), PriceSold: money("11.50"),
		Modifiers: []Modifier{
			{ID: 5001, Name: "Extra mozzarella", Price: money("1.50")},
			{ID: 5002, Name: "Crust", Price: money("0"), Modifiers: []Modifier{
				{ID: 5003, Name: "Stuffed crust", Price: money("2.00")},
			}},
		},
		Category: Category{Name: "Pizza", Category: &Category{Name: "Mains", Category: &Category{Name: "Food"}}},
	}
	if diff := cmp.Diff(want, c.MenuItems[0], cmp.AllowUnexported(client.Money{})); diff != "" {
		t.Errorf("first item (-want +got):\n%s", diff)
	}
	if c.Status != CheckOpen || c.TotalAmount != money("74.10") || c.Discounts[0].Value != money("-4.50") {
		t.Errorf("check fields: status %q total %v discount %v", c.Status, c.TotalAmount, c.Discounts[0].Value)
	}
	if c.MenuItems[1].Discount == nil || *c.MenuItems[1].Discount != (Discount{Name: "Staff meal", Value: money("-1.00")}) {
		t.Errorf("item discount = %+v", c.MenuItems[1].Discount)
	}
	if err := c.Validate(); err != nil {
		t.Errorf("fixture does not validate: %v", err)
	}
}

func TestCheckJSONRoundTrip(t *testing.T) {
	t.Parallel()
	c := loadCheck(t)
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	var back Check
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(c, &back, cmp.AllowUnexported(client.Money{})); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	// Money keeps two fraction digits on the wire, never a float form.
	if !bytes.Contains(b, []byte(`"totalAmount":74.10`)) || !bytes.Contains(b, []byte(`"tipsPaid":0.00`)) {
		t.Errorf("money not written exactly: %s", b)
	}
}

func TestCheckMarshalNilSlices(t *testing.T) {
	t.Parallel()
	b, err := json.Marshal(Check{CheckNumber: 1, MenuItems: []MenuItem{{Name: "x"}}})
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ field, want string }{
		{"discounts", "[]"}, // required array: never null
		{"menuItems", `[{"id":0,"name":"x","quantity":0,"price":0.00,"priceSold":0.00,"modifiers":null,"discount":null,"category":{"name":"","category":null}}]`},
		{"status", `""`},
	}
	for _, tt := range tests {
		if got := string(m[tt.field]); got != tt.want {
			t.Errorf("%s = %s, want %s", tt.field, got, tt.want)
		}
	}
}

func TestCheckDecodeRejectsBadMoney(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, body string
		want       error
	}{
		{"three decimals", `{"totalAmount": 1.005}`, client.ErrMoneyPrecision},
		{"string", `{"totalAmount": "1.00"}`, client.ErrMoneySyntax},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c Check
			if err := json.Unmarshal([]byte(tt.body), &c); !errors.Is(err, tt.want) {
				t.Errorf("Unmarshal = %v, want %v", err, tt.want)
			}
		})
	}
}

func TestCheckStatus(t *testing.T) {
	t.Parallel()
	var c Check
	if err := json.Unmarshal([]byte(`{"status":"parked"}`), &c); err != nil {
		t.Fatalf("unknown status must decode: %v", err)
	}
	if c.Status.String() != "parked" || c.Status.Valid() {
		t.Errorf("status %q valid=%v", c.Status, c.Status.Valid())
	}
	for _, s := range []CheckStatus{CheckOpen, CheckClosed, CheckVoid} {
		if !s.Valid() {
			t.Errorf("%q not valid", s)
		}
	}
}

func TestCheckClone(t *testing.T) {
	t.Parallel()
	c := loadCheck(t)
	cl := c.Clone()
	if diff := cmp.Diff(c, cl, cmp.AllowUnexported(client.Money{})); diff != "" {
		t.Fatalf("clone differs (-orig +clone):\n%s", diff)
	}
	// Change every level of the original; the clone must not see it.
	c.Discounts[0].Name = "changed"
	c.MenuItems[0].Name = "changed"
	c.MenuItems[0].Modifiers[1].Modifiers[0].Name = "changed"
	c.MenuItems[0].Category.Category.Category.Name = "changed"
	c.MenuItems[1].Discount.Name = "changed"
	if strings.Contains(mustJSON(t, cl), "changed") {
		t.Errorf("clone shares memory with the original: %s", mustJSON(t, cl))
	}
	if (*Check)(nil).Clone() != nil {
		t.Error("nil.Clone() != nil")
	}
}

// TestCheckCloneParts checks what cutting a clone's parts from shared
// arrays must keep: nil and empty slices as they were, and no part that an
// append could extend into its neighbour.
func TestCheckCloneParts(t *testing.T) {
	t.Parallel()
	c := loadCheck(t)
	c.MenuItems[0].Modifiers[0].Modifiers = []Modifier{}
	c.MenuItems[1].Modifiers = nil
	cl := c.Clone()
	if m := cl.MenuItems[0].Modifiers[0].Modifiers; m == nil || len(m) != 0 {
		t.Errorf("empty modifiers cloned as %#v, want empty", m)
	}
	if m := cl.MenuItems[1].Modifiers; m != nil {
		t.Errorf("nil modifiers cloned as %#v, want nil", m)
	}
	if cl := (&Check{Discounts: []Discount{}}).Clone(); cl.Discounts == nil || cl.MenuItems != nil {
		t.Errorf("empty discounts and nil items cloned as %#v and %#v", cl.Discounts, cl.MenuItems)
	}
	want := mustJSON(t, cl)
	first := cl.MenuItems[0].Modifiers
	_ = append(first, Modifier{Name: "appended"})
	_ = append(cl.Discounts, Discount{Name: "appended"})
	_ = append(first[1].Modifiers, Modifier{Name: "appended"})
	if got := mustJSON(t, cl); got != want {
		t.Errorf("an append to one part of the clone changed another:\n%s\nwant\n%s", got, want)
	}
}

// TestCheckCloneAllocs holds Clone to one allocation per kind of part
// (the check, its items, modifiers, discounts and categories) however
// deep the check, rather than one per nested slice and pointer.
func TestCheckCloneAllocs(t *testing.T) {
	c := loadCheck(t)
	if n := testing.AllocsPerRun(100, func() { _ = c.Clone() }); n > 5 {
		t.Errorf("Clone of the sample check: %v allocations, want at most 5", n)
	}
}

func mustJSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestValidate(t *testing.T) {
	t.Parallel()
	deepModifiers := func(levels int) []Modifier {
		var ms []Modifier
		for range levels {
			ms = []Modifier{{Name: "m", Modifiers: ms}}
		}
		return ms
	}
	deepCategory := func(levels int) Category {
		c := Category{Name: "c"}
		for range levels - 1 {
			parent := c
			c = Category{Name: "c", Category: &parent}
		}
		return c
	}
	tests := []struct {
		name   string
		change func(c *Check)
		want   map[string]string // nil: valid
	}{
		{"fixture", func(*Check) {}, nil},
		{"closed and void", func(c *Check) { c.Status = CheckVoid }, nil},
		{"zero quantity is a voided line", func(c *Check) { c.MenuItems[0].Quantity = 0 }, nil},
		{"negative modifier price", func(c *Check) { c.MenuItems[0].Modifiers[0].Price = money("-0.50") }, nil},
		{"negative quantity", func(c *Check) { c.MenuItems[2].Quantity = -1 },
			map[string]string{"menuItems[2].quantity": "must not be negative"}},
		{"bad status", func(c *Check) { c.Status = "parked" }, map[string]string{"status": "must be open, closed or void"}},
		{"no check number", func(c *Check) { c.CheckNumber = 0 }, map[string]string{"checkNumber": "must be positive"}},
		{"no location", func(c *Check) { c.LocationID = 0 }, map[string]string{"locationId": "must be positive"}},
		{"negative amounts", func(c *Check) {
			c.TotalAmount, c.OutstandingAmount = money("-1"), money("-0.01")
			c.ServiceChargeAmount, c.TipsPaid = money("-2"), money("-3")
			c.MenuItems[1].Price, c.MenuItems[1].PriceSold = money("-1"), money("-1")
			c.TableNumber, c.Guests = -1, -2
		}, map[string]string{
			"totalAmount": "must not be negative", "outstandingAmount": "must not be negative",
			"serviceChargeAmount": "must not be negative", "tipsPaid": "must not be negative",
			"menuItems[1].price": "must not be negative", "menuItems[1].priceSold": "must not be negative",
			"tableNumber": "must not be negative", "guests": "must not be negative",
		}},
		{"modifiers at the limit", func(c *Check) { c.MenuItems[0].Modifiers = deepModifiers(MaxNesting) }, nil},
		{"modifiers too deep", func(c *Check) { c.MenuItems[0].Modifiers = deepModifiers(MaxNesting + 1) },
			map[string]string{"menuItems[0].modifiers" + strings.Repeat("[0].modifiers", MaxNesting): "nested deeper than 8 levels"}},
		{"categories at the limit", func(c *Check) { c.MenuItems[3].Category = deepCategory(MaxNesting) }, nil},
		{"categories too deep", func(c *Check) { c.MenuItems[3].Category = deepCategory(MaxNesting + 5) },
			map[string]string{"menuItems[3].category" + strings.Repeat(".category", MaxNesting): "nested deeper than 8 levels"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := loadCheck(t)
			tt.change(c)
			err := c.Validate()
			if tt.want == nil {
				if err != nil {
					t.Fatalf("Validate = %v, want nil", err)
				}
				return
			}
			var ve *client.ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("Validate = %v, want *client.ValidationError", err)
			}
			if diff := cmp.Diff(tt.want, ve.Fields); diff != "" {
				t.Errorf("fields (-want +got):\n%s", diff)
			}
			if !errors.Is(err, client.ErrValidation) {
				t.Error("errors.Is(err, client.ErrValidation) = false")
			}
		})
	}
}

func TestValidateCyclicCategoryEnds(t *testing.T) {
	t.Parallel()
	c := loadCheck(t)
	cyc := &Category{Name: "loop"}
	cyc.Category = cyc
	c.MenuItems[0].Category = *cyc
	if err := c.Validate(); !errors.Is(err, client.ErrValidation) {
		t.Fatalf("Validate of a cyclic category = %v", err)
	}
}

func TestReasonNestingNamesMaxNesting(t *testing.T) {
	t.Parallel()
	if !strings.Contains(reasonNesting, " "+strconv.Itoa(MaxNesting)+" ") {
		t.Errorf("reasonNesting %q does not name MaxNesting %d", reasonNesting, MaxNesting)
	}
}

func TestValidateNilCheck(t *testing.T) {
	t.Parallel()
	if (*Check)(nil).Validate() == nil {
		t.Error("nil check validates")
	}
}
