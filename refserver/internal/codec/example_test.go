package codec_test

import (
	"fmt"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/refserver/internal/codec"
)

// A payment whose amount has three decimals decodes, the amount as zero,
// and the amount is named with its reason, to be answered together with
// whatever else the handler finds.
func ExampleDecode() {
	var payment struct {
		CheckNumber int64        `json:"checkNumber"`
		Amount      client.Money `json:"amount"`
	}
	problems, err := codec.Decode([]byte(`{"checkNumber":12,"amount":10.005}`), &payment)
	fmt.Println(payment.CheckNumber, payment.Amount, problems, err)

	_, err = codec.Decode([]byte(`{"checkNumber":"12"}`), &payment)
	fmt.Println(err)
	// Output:
	// 12 0.00 map[amount:must have at most 2 decimal places] <nil>
	// Malformed JSON body: field "checkNumber" must be an integer, not string.
}
