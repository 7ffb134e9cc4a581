package refserver

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"strconv"

	"github.com/go-chi/chi/v5"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/internal/fielderr"
	"github.com/hospo-dev/hospo-go/possync"
	"github.com/hospo-dev/hospo-go/refserver/internal/api"
	"github.com/hospo-dev/hospo-go/refserver/rules"
	"github.com/hospo-dev/hospo-go/refserver/store"
)

// The four POS push-pull endpoints (interface.md 4.8-4.11). All take a POS
// access token bound to one location: a user token is a 403001, and so is
// a location in the path or body other than the token's.
//
// A pushed check is stored as a bill, upserted by (locationId,
// checkNumber): the billId is made on the first push and stays; the
// version starts at 1 and moves only when a push changes the check's
// content (compared by a SHA-256 of its canonical JSON). The bill's
// lastUpdated is the time of the latest push that changed the content, so a
// POS re-sending an unchanged closed check does not move the bill in the
// closed-bills listing.

// handleCheckPush stores a check: POST /v1/pos/push-pull/check.
func (s *Server) handleCheckPush(w http.ResponseWriter, r *http.Request) (api.Write, error) {
	q := api.RequestFrom(r.Context())
	var wc wireCheck
	decoded, err := api.ValueProblems(decodeCheck(q.Body(), &wc))
	if err != nil {
		return nil, err
	}
	api.ReportBodyLocation(w, wc.LocationID)
	// The location is checked before the content, so that a POS learns
	// nothing about the rules of a location it cannot write to.
	if wc.LocationID != nil && !q.Principal().CanSeeLocation(*wc.LocationID) {
		return nil, apiErrMsg(client.CodeForbidden, "The check's locationId is not the location of this POS token.")
	}
	check, err := checkFromWire(&wc)
	if err = api.WithDecoded(decoded, err); err != nil {
		return nil, err
	}
	// The canonical encoding (fixed field order, money with two decimals)
	// is what is stored and hashed, so a push that differs only in
	// formatting or field order is the same content.
	canonical, err := check.MarshalJSON()
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(canonical)
	row := store.CheckRow{
		LocationID:          check.LocationID,
		CheckNumber:         check.CheckNumber,
		Status:              string(check.Status),
		ContentHash:         hex.EncodeToString(sum[:]),
		CheckJSON:           string(canonical),
		TableNumber:         int64(check.TableNumber),
		StaffID:             check.StaffID,
		Guests:              int64(check.Guests),
		TotalAmount:         check.TotalAmount.Cents(),
		OutstandingAmount:   check.OutstandingAmount.Cents(),
		ServiceChargeAmount: check.ServiceChargeAmount.Cents(),
		TipsPaid:            check.TipsPaid.Cents(),
	}
	newID := newBillID()
	return func(tx *store.Tx) (any, error) {
		billID, version, _, err := tx.UpsertCheck(newID, row)
		if err != nil {
			return nil, err
		}
		return possync.PushResult{BillID: billID, Version: version, RequestInfo: s.api.Info(r)}, nil
	}, nil
}

// handlePaymentsPoll lists the location's payments not yet accepted, oldest
// first, keyed by check number: GET /v1/pos/push-pull/payments/{locationId}.
func (s *Server) handlePaymentsPoll(w http.ResponseWriter, r *http.Request) {
	loc, err := posLocation(r)
	if err != nil {
		s.api.Error(w, r, err)
		return
	}
	var pending []store.PendingPayment
	err = s.db.Read(r.Context(), func(tx *store.Tx) error {
		var err error
		pending, err = tx.PendingPayments(loc)
		return err
	})
	if err != nil {
		s.api.Error(w, r, err)
		return
	}
	checks := make(map[int64][]possync.PaymentNotification)
	for _, p := range pending {
		checks[p.CheckNumber] = append(checks[p.CheckNumber], possync.PaymentNotification{
			PaymentID:    p.PaymentID,
			PaymentExTip: client.MoneyFromCents(p.Amount),
			Tip:          client.MoneyFromCents(p.Tip),
		})
	}
	s.api.JSON(w, r, http.StatusOK, possync.PaymentsResponse{Checks: checks, RequestInfo: s.api.Info(r)})
}

// handleAcceptPayment serves POST /v1/pos/push-pull/accept-payment
// (rules.AcceptPayment).
func (s *Server) handleAcceptPayment(_ http.ResponseWriter, r *http.Request) (api.Write, error) {
	var req possync.AcceptRequest
	if _, err := api.Decode(r, &req); err != nil {
		return nil, err
	}
	q := api.RequestFrom(r.Context())
	if err := rules.CheckAccept(q.Body(), &req); err != nil {
		return nil, err
	}
	return func(tx *store.Tx) (any, error) {
		res, err := rules.AcceptPayment(tx, q.Principal().LocationID, req.PaymentID)
		if err != nil {
			return nil, err
		}
		res.RequestInfo = s.api.Info(r)
		return res, nil
	}, nil
}

// handleHeartbeat serves POST /v1/pos/push-pull/heartbeat/{locationId}
// (rules.Heartbeat). A body, if any, is ignored (but read, like every
// body: one over the size limit is still a 413001).
func (s *Server) handleHeartbeat(_ http.ResponseWriter, r *http.Request) (api.Write, error) {
	loc, err := posLocation(r)
	if err != nil {
		return nil, err
	}
	return func(tx *store.Tx) (any, error) {
		res, err := rules.Heartbeat(tx, loc)
		if err != nil {
			return nil, err
		}
		res.RequestInfo = s.api.Info(r)
		return res, nil
	}, nil
}

// posLocation returns the {locationId} of the path when it is the POS
// token's location: 404001 when it is not an id at all, 403001 when it is
// another location's.
func posLocation(r *http.Request) (int64, error) {
	id, err := strconv.ParseInt(chi.URLParam(r, "locationId"), 10, 64)
	if err != nil || id <= 0 {
		return 0, api.NotFound("Location")
	}
	if !api.RequestFrom(r.Context()).Principal().CanSeeLocation(id) {
		return 0, apiErrMsg(client.CodeForbidden, "This POS token is for another location.")
	}
	return id, nil
}

// newBillID returns a random UUID (version 4) as the id of a new bill.
func newBillID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// The wire types mirror possync's check with a pointer for every field, so
// that a field that is missing and one that is null both show as nil and
// can be named in a 400002. Nullable fields (modifiers, an item's
// discount, a category's parent) may be missing or null; all others are
// required.
type (
	wireCheck struct {
		TableNumber         *int             `json:"tableNumber"`
		CheckNumber         *int64           `json:"checkNumber"`
		LocationID          *int64           `json:"locationId"`
		StaffID             *string          `json:"staffId"`
		Guests              *int             `json:"guests"`
		Status              *string          `json:"status"`
		TotalAmount         *client.Money    `json:"totalAmount"`
		OutstandingAmount   *client.Money    `json:"outstandingAmount"`
		ServiceChargeAmount *client.Money    `json:"serviceChargeAmount"`
		TipsPaid            *client.Money    `json:"tipsPaid"`
		Discounts           *[]*wireDiscount `json:"discounts"`
		MenuItems           *[]*wireMenuItem `json:"menuItems"`
	}
	wireDiscount struct {
		Name  *string       `json:"name"`
		Value *client.Money `json:"value"`
	}
	wireMenuItem struct {
		ID        *int64          `json:"id"`
		Name      *string         `json:"name"`
		Quantity  *int            `json:"quantity"`
		Price     *client.Money   `json:"price"`
		PriceSold *client.Money   `json:"priceSold"`
		Modifiers []*wireModifier `json:"modifiers"`
		Discount  *wireDiscount   `json:"discount"`
		Category  *wireCategory   `json:"category"`
	}
	wireModifier struct {
		ID        *int64          `json:"id"`
		Name      *string         `json:"name"`
		Price     *client.Money   `json:"price"`
		Modifiers []*wireModifier `json:"modifiers"`
	}
	wireCategory struct {
		Name     *string       `json:"name"`
		Category *wireCategory `json:"category"`
	}
)

// checkFromWire turns a decoded push into a possync.Check, or returns a
// 400002 naming every field that is missing or null ("required") or breaks
// a rule of possync.Check.Validate (the SDK's Agent checks the same rules
// before sending).
func checkFromWire(w *wireCheck) (*possync.Check, error) {
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
			c.Discounts = append(c.Discounts, discountFromWire(&f, &p, d))
		}
	}
	if w.MenuItems == nil {
		f.AddAt(root, "menuItems", fielderr.ReasonRequired)
	} else {
		c.MenuItems = make([]possync.MenuItem, 0, len(*w.MenuItems))
		for i, m := range *w.MenuItems {
			p := fielderr.Element(root, "menuItems", i)
			c.MenuItems = append(c.MenuItems, menuItemFromWire(&f, &p, m))
		}
	}
	// Value rules; a field already found missing keeps "required" (its
	// zero value would only add a misleading second reason).
	if err := f.Merge(c.Validate()); err != nil {
		return nil, err
	}
	if f.Len() > 0 {
		return nil, validationErr(f.Map())
	}
	return c, nil
}

// discountFromWire converts the discount at p (an array element or an
// item's discount).
func discountFromWire(f *fielderr.Set, p *fielderr.Path, d *wireDiscount) possync.Discount {
	if d == nil {
		f.AddAt(p, "", fielderr.ReasonRequired)
		return possync.Discount{}
	}
	return possync.Discount{Name: fielderr.Required(f, p, "name", d.Name), Value: fielderr.Required(f, p, "value", d.Value)}
}

func menuItemFromWire(f *fielderr.Set, p *fielderr.Path, m *wireMenuItem) possync.MenuItem {
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
		Modifiers: modifiersFromWire(f, p, m.Modifiers, 1),
	}
	if m.Discount != nil {
		dp := fielderr.Member(p, "discount")
		d := discountFromWire(f, &dp, m.Discount)
		out.Discount = &d
	}
	if m.Category == nil {
		f.AddAt(p, "category", fielderr.ReasonRequired)
	} else {
		cp := fielderr.Member(p, "category")
		out.Category = categoryFromWire(f, &cp, m.Category, 1)
	}
	return out
}

// modifiersFromWire converts the modifiers of the item or modifier at
// parent, down to one level past possync.MaxNesting: deep enough for
// Validate to report the excess, and no deeper, so a maliciously deep body
// costs bounded work here.
func modifiersFromWire(f *fielderr.Set, parent *fielderr.Path, ms []*wireModifier, depth int) []possync.Modifier {
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
		// A list one level too deep is still converted (so that Validate
		// sees and names it), its children are not.
		if depth <= possync.MaxNesting {
			out[i].Modifiers = modifiersFromWire(f, &p, m.Modifiers, depth+1)
		}
	}
	return out
}

// categoryFromWire converts the category chain at p, cut off one level past
// possync.MaxNesting like modifiersFromWire.
func categoryFromWire(f *fielderr.Set, p *fielderr.Path, c *wireCategory, depth int) possync.Category {
	out := possync.Category{Name: fielderr.Required(f, p, "name", c.Name)}
	if c.Category != nil {
		if depth > possync.MaxNesting {
			out.Category = &possync.Category{}
			return out
		}
		pp := fielderr.Member(p, "category")
		parent := categoryFromWire(f, &pp, c.Category, depth+1)
		out.Category = &parent
	}
	return out
}
