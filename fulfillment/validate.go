package fulfillment

import (
	"math"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/internal/fielderr"
)

// Limits that Validate (and the service) apply to fulfillment fields.
const (
	// MaxTextLength is the longest name, phone, address line, reference
	// or email, in characters.
	MaxTextLength = 255
	// MaxNotesLength is the longest notes field, in characters.
	MaxNotesLength = 1000
)

// maxDeliveryCharge bounds deliveryCharge (1,000,000.00, the service's
// bound on an order's total): a POS adds it to the order's total, which
// an absurd charge would overflow.
var maxDeliveryCharge = client.MoneyFromCents(100_000_000)

// Times before this year are refused: they are almost always a zero or
// uninitialised time.Time, never a real collection or delivery time.
const minYear = 2000

// Reasons used by Validate, exported so callers can compare if they need to.
const (
	ReasonRequired = fielderr.ReasonRequired
	ReasonTooLong  = "too long"
)

// checker collects failing paths.
type checker struct{ fielderr.Set }

// required checks a string that must carry something.
func (c *checker) required(path, s string, maxLen int) {
	if strings.TrimSpace(s) == "" {
		c.Add(path, ReasonRequired)
		return
	}
	c.text(path, s, maxLen)
}

// text checks a string that may be empty.
func (c *checker) text(path, s string, maxLen int) {
	if !utf8.ValidString(s) {
		c.Add(path, "not valid UTF-8")
	} else if utf8.RuneCountInString(s) > maxLen {
		c.Add(path, ReasonTooLong)
	}
}

func (c *checker) email(path, s string) {
	c.required(path, s, MaxTextLength)
	if c.Has(path) {
		return
	}
	at := strings.IndexByte(s, '@')
	if at <= 0 || at == len(s)-1 || strings.ContainsAny(s, " \t\r\n") {
		c.Add(path, "not an email address")
	}
}

func (c *checker) time(path string, t time.Time) {
	switch {
	case t.IsZero():
		c.Add(path, ReasonRequired)
	case t.Year() < minYear || t.Year() > 9999:
		c.Add(path, "out of range")
	}
}

func (c *checker) coordinates(path string, co Coordinates) {
	if math.IsNaN(co.Latitude) || co.Latitude < -90 || co.Latitude > 90 {
		c.Add(path+".latitude", "must be between -90 and 90")
	}
	if math.IsNaN(co.Longitude) || co.Longitude < -180 || co.Longitude > 180 {
		c.Add(path+".longitude", "must be between -180 and 180")
	}
}

// collection checks the fields that a collection by a customer and one by
// a delivery partner's driver share.
func (c *checker) collection(at time.Time, notes, name, phone, reference, kitchenNotes string) {
	c.time("collectionTime", at)
	c.text("collectionNotes", notes, MaxNotesLength)
	c.required("name", name, MaxTextLength)
	c.required("phone", phone, MaxTextLength)
	c.required("orderReference", reference, MaxTextLength)
	c.text("kitchenNotes", kitchenNotes, MaxNotesLength)
}

// Validate implements Method. DeliveryNotes, AddressLineTwo and
// KitchenNotes may be empty; the other strings are required.
func (m DeliveryByOperator) Validate() error {
	var c checker
	c.time("deliveryTime", m.DeliveryTime)
	c.text("deliveryNotes", m.DeliveryNotes, MaxNotesLength)
	switch {
	case m.DeliveryCharge.IsNegative():
		c.Add("deliveryCharge", fielderr.ReasonNegative)
	case m.DeliveryCharge.Cmp(maxDeliveryCharge) > 0:
		c.Add("deliveryCharge", "must be at most "+maxDeliveryCharge.String())
	}
	c.required("customerName", m.CustomerName, MaxTextLength)
	c.required("customerPhone", m.CustomerPhone, MaxTextLength)
	if m.CustomerEmail != nil {
		c.email("customerEmail", *m.CustomerEmail)
	}
	c.required("addressLineOne", m.AddressLineOne, MaxTextLength)
	c.text("addressLineTwo", m.AddressLineTwo, MaxTextLength)
	c.required("city", m.City, MaxTextLength)
	c.required("postCode", m.PostCode, MaxTextLength)
	c.text("kitchenNotes", m.KitchenNotes, MaxNotesLength)
	if m.Coordinates != nil {
		c.coordinates("coordinates", *m.Coordinates)
	}
	return c.Err()
}

// Validate implements Method. CollectionNotes and KitchenNotes may be empty;
// the other strings are required, and so is every field of a non-nil
// Customer except Address.LineTwo.
func (m DeliveryByDeliveryPartner) Validate() error {
	var c checker
	c.collection(m.CollectionTime, m.CollectionNotes, m.Name, m.Phone, m.OrderReference, m.KitchenNotes)
	if cu := m.Customer; cu != nil {
		c.required("customer.name", cu.Name, MaxTextLength)
		c.required("customer.phone", cu.Phone, MaxTextLength)
		c.email("customer.email", cu.Email)
		a := cu.Address
		c.required("customer.address.lineOne", a.LineOne, MaxTextLength)
		c.text("customer.address.lineTwo", a.LineTwo, MaxTextLength)
		c.required("customer.address.city", a.City, MaxTextLength)
		c.required("customer.address.postcode", a.Postcode, MaxTextLength)
		c.coordinates("customer.address.coordinates", a.Coordinates)
	}
	return c.Err()
}

// Validate implements Method. CollectionNotes and KitchenNotes may be
// empty; the other strings are required.
func (m CollectionByCustomer) Validate() error {
	var c checker
	c.collection(m.CollectionTime, m.CollectionNotes, m.Name, m.Phone, m.OrderReference, m.KitchenNotes)
	return c.Err()
}

// Validate implements Method. KitchenNotes may be empty; TableNumber must be
// at least 1.
func (m OrderAtTable) Validate() error {
	var c checker
	c.text("kitchenNotes", m.KitchenNotes, MaxNotesLength)
	if m.TableNumber < 1 {
		c.Add("tableNumber", "must be at least 1")
	}
	return c.Err()
}
