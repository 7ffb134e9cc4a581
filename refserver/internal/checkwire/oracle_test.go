package checkwire

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/internal/fielderr"
	"github.com/hospo-dev/hospo-go/possync"
	"github.com/hospo-dev/hospo-go/refserver/internal/api"
)

// The oracle is how the server decoded a push before this package:
// encoding/json into types with a pointer for every field, so that a
// member that is missing and one that is null both show as nil, then a
// conversion to possync types naming those. It is the reference the
// decoder is held to: the same answer for every body.

type (
	oracleCheck struct {
		TableNumber         *int               `json:"tableNumber"`
		CheckNumber         *int64             `json:"checkNumber"`
		LocationID          *int64             `json:"locationId"`
		StaffID             *string            `json:"staffId"`
		Guests              *int               `json:"guests"`
		Status              *string            `json:"status"`
		TotalAmount         *client.Money      `json:"totalAmount"`
		OutstandingAmount   *client.Money      `json:"outstandingAmount"`
		ServiceChargeAmount *client.Money      `json:"serviceChargeAmount"`
		TipsPaid            *client.Money      `json:"tipsPaid"`
		Discounts           *[]*oracleDiscount `json:"discounts"`
		MenuItems           *[]*oracleMenuItem `json:"menuItems"`
	}
	oracleDiscount struct {
		Name  *string       `json:"name"`
		Value *client.Money `json:"value"`
	}
	oracleMenuItem struct {
		ID        *int64            `json:"id"`
		Name      *string           `json:"name"`
		Quantity  *int              `json:"quantity"`
		Price     *client.Money     `json:"price"`
		PriceSold *client.Money     `json:"priceSold"`
		Modifiers []*oracleModifier `json:"modifiers"`
		Discount  *oracleDiscount   `json:"discount"`
		Category  *oracleCategory   `json:"category"`
	}
	oracleModifier struct {
		ID        *int64            `json:"id"`
		Name      *string           `json:"name"`
		Price     *client.Money     `json:"price"`
		Modifiers []*oracleModifier `json:"modifiers"`
	}
	oracleCategory struct {
		Name     *string         `json:"name"`
		Category *oracleCategory `json:"category"`
	}
)

// oracle returns the check that body decodes to and the fields of the
// 400002 it gets (nil when it passes), or the error decoding it.
func oracle(body []byte) (*possync.Check, map[string]string, error) {
	var w oracleCheck
	broken, err := api.ValueProblems(api.DecodeBytes(body, &w))
	if err != nil {
		return nil, nil, err
	}
	var f fielderr.Set
	var root *fielderr.Path
	c := &possync.Check{
		TableNumber:         fielderr.Required(&f, root, "tableNumber", w.TableNumber),
		CheckNumber:         fielderr.Required(&f, root, "checkNumber", w.CheckNumber),
		LocationID:          fielderr.Required(&f, root, "locationId", w.LocationID),
		StaffID:             fielderr.Required(&f, root, "staffId", w.StaffID),
		Guests:              fielderr.Required(&f, root, "guests", w.Guests),
		Status:              possync.CheckStatus(fielderr.Required(&f, root, "status", w.Status)),
		TotalAmount:         fielderr.Required(&f, root, "totalAmount", w.TotalAmount),
		OutstandingAmount:   fielderr.Required(&f, root, "outstandingAmount", w.OutstandingAmount),
		ServiceChargeAmount: fielderr.Required(&f, root, "serviceChargeAmount", w.ServiceChargeAmount),
		TipsPaid:            fielderr.Required(&f, root, "tipsPaid", w.TipsPaid),
	}
	if w.Discounts == nil {
		f.AddAt(root, "discounts", fielderr.ReasonRequired)
	} else {
		c.Discounts = make([]possync.Discount, 0, len(*w.Discounts))
		for i, d := range *w.Discounts {
			p := fielderr.Element(root, "discounts", i)
			c.Discounts = append(c.Discounts, oracleDiscountOf(&f, &p, d))
		}
	}
	if w.MenuItems == nil {
		f.AddAt(root, "menuItems", fielderr.ReasonRequired)
	} else {
		c.MenuItems = make([]possync.MenuItem, 0, len(*w.MenuItems))
		for i, m := range *w.MenuItems {
			p := fielderr.Element(root, "menuItems", i)
			c.MenuItems = append(c.MenuItems, oracleMenuItemOf(&f, &p, m))
		}
	}
	if err := f.Merge(c.Validate()); err != nil {
		return nil, nil, err
	}
	var verdict error
	if f.Len() > 0 {
		verdict = api.Invalid(f.Map())
	}
	// Values that broke their own type's rule come first, as in Validate.
	if verdict = api.WithDecoded(broken, verdict); verdict != nil {
		var ae *api.Error
		errors.As(verdict, &ae)
		return c, ae.ContextData.(map[string]string), nil
	}
	return c, nil, nil
}

func oracleDiscountOf(f *fielderr.Set, p *fielderr.Path, d *oracleDiscount) possync.Discount {
	if d == nil {
		f.AddAt(p, "", fielderr.ReasonRequired)
		return possync.Discount{}
	}
	return possync.Discount{Name: fielderr.Required(f, p, "name", d.Name), Value: fielderr.Required(f, p, "value", d.Value)}
}

func oracleMenuItemOf(f *fielderr.Set, p *fielderr.Path, m *oracleMenuItem) possync.MenuItem {
	if m == nil {
		f.AddAt(p, "", fielderr.ReasonRequired)
		return possync.MenuItem{}
	}
	out := possync.MenuItem{
		ID:        fielderr.Required(f, p, "id", m.ID),
		Name:      fielderr.Required(f, p, "name", m.Name),
		Quantity:  fielderr.Required(f, p, "quantity", m.Quantity),
		Price:     fielderr.Required(f, p, "price", m.Price),
		PriceSold: fielderr.Required(f, p, "priceSold", m.PriceSold),
		Modifiers: oracleModifiersOf(f, p, m.Modifiers, 1),
	}
	if m.Discount != nil {
		dp := fielderr.Member(p, "discount")
		d := oracleDiscountOf(f, &dp, m.Discount)
		out.Discount = &d
	}
	if m.Category == nil {
		f.AddAt(p, "category", fielderr.ReasonRequired)
	} else {
		cp := fielderr.Member(p, "category")
		out.Category = oracleCategoryOf(f, &cp, m.Category, 1)
	}
	return out
}

// oracleModifiersOf converts modifiers down to one level past
// possync.MaxNesting, and no deeper.
func oracleModifiersOf(f *fielderr.Set, parent *fielderr.Path, ms []*oracleModifier, depth int) []possync.Modifier {
	if ms == nil {
		return nil
	}
	out := make([]possync.Modifier, len(ms))
	for i, m := range ms {
		p := fielderr.Element(parent, "modifiers", i)
		if m == nil {
			f.AddAt(&p, "", fielderr.ReasonRequired)
			continue
		}
		out[i] = possync.Modifier{
			ID:    fielderr.Required(f, &p, "id", m.ID),
			Name:  fielderr.Required(f, &p, "name", m.Name),
			Price: fielderr.Required(f, &p, "price", m.Price),
		}
		if depth <= possync.MaxNesting {
			out[i].Modifiers = oracleModifiersOf(f, &p, m.Modifiers, depth+1)
		}
	}
	return out
}

// oracleCategoryOf converts a category chain, cut off one level past
// possync.MaxNesting like oracleModifiersOf.
func oracleCategoryOf(f *fielderr.Set, p *fielderr.Path, c *oracleCategory, depth int) possync.Category {
	out := possync.Category{Name: fielderr.Required(f, p, "name", c.Name)}
	if c.Category != nil {
		if depth > possync.MaxNesting {
			out.Category = &possync.Category{}
			return out
		}
		pp := fielderr.Member(p, "category")
		parent := oracleCategoryOf(f, &pp, c.Category, depth+1)
		out.Category = &parent
	}
	return out
}

// moneyEqual compares money in cmp.Diff, which cannot see its fields.
var moneyEqual = cmp.Comparer(func(a, b client.Money) bool { return a == b })

// assertAsOracle checks that Decode and Validate answer body as the oracle
// does: the same error, or the same failing fields, or the same check.
func assertAsOracle(t *testing.T, body []byte) {
	t.Helper()
	if api.CheckText(body) != nil {
		return // refused when the request's body is read, before any decoder
	}
	want, wantFields, wantErr := oracle(body)
	p, err := Decode(body)
	if wantErr != nil || err != nil {
		if d := cmp.Diff(apiError(t, wantErr), apiError(t, err), cmpopts.IgnoreUnexported(api.Error{})); d != "" {
			t.Fatalf("decode error differs from the oracle (-want +got):\n%s\nbody: %q", d, body)
		}
		return
	}
	var gotFields map[string]string
	if verr := p.Validate(); verr != nil {
		gotFields = apiError(t, verr).ContextData.(map[string]string)
	}
	if d := cmp.Diff(wantFields, gotFields); d != "" {
		t.Fatalf("failing fields differ from the oracle (-want +got):\n%s\nbody: %q", d, body)
	}
	if wantFields != nil {
		return // the oracle cut deep nesting short; only the verdict counts
	}
	if d := cmp.Diff(want, &p.Check, moneyEqual); d != "" {
		t.Fatalf("check differs from the oracle (-want +got):\n%s\nbody: %q", d, body)
	}
}

// apiError returns err as an *api.Error, failing the test for any other
// non-nil error.
func apiError(t *testing.T, err error) *api.Error {
	t.Helper()
	if err == nil {
		return nil
	}
	var ae *api.Error
	if !errors.As(err, &ae) {
		t.Fatalf("error %v (%T) is not an API error", err, err)
	}
	return ae
}
