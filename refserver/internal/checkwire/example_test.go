package checkwire_test

import (
	"errors"
	"fmt"

	"github.com/hospo-dev/hospo-go/refserver/internal/api"
	"github.com/hospo-dev/hospo-go/refserver/internal/checkwire"
)

// A push with a member missing and one breaking a rule of possync: both
// are named in one 400002.
func ExampleDecode() {
	body := []byte(`{"tableNumber":4,"checkNumber":17,"locationId":1,"staffId":"s-1","guests":-2,
		"status":"open","totalAmount":12.50,"outstandingAmount":12.50,"serviceChargeAmount":0,
		"tipsPaid":0,"discounts":[]}`)
	push, err := checkwire.Decode(body)
	if err != nil {
		panic(err) // a 400001: not JSON, or a member of the wrong type
	}
	fmt.Println("location", *push.LocationID())
	var ae *api.Error
	if errors.As(push.Validate(), &ae) {
		fmt.Println(int(ae.Code), ae.Message, ae.ContextData)
	}
	// Output:
	// location 1
	// 400002 Validation failed. map[guests:must not be negative menuItems:required]
}
