package outbound_test

import (
	"errors"
	"fmt"
	"time"

	"github.com/hospo-dev/hospo-go/refserver/outbound"
)

// A Policy decides, after each failed try, whether and when a delivery is
// tried again; the Queue records what it decided.
func ExamplePolicy_Judge() {
	p := outbound.Policy{
		MaxTries:  3,
		Base:      time.Second,
		Max:       time.Minute,
		Temporary: func(error) bool { return true },
		MaxDetail: 500,
	}
	down := errors.New("503 Service Unavailable")
	for try := 1; try <= 3; try++ {
		o := p.Judge(try, down)
		fmt.Println(o.RetryIn, o.Detail)
	}
	// Output:
	// 1s try 1: 503 Service Unavailable; next try in 1s
	// 2s try 2: 503 Service Unavailable; next try in 2s
	// 0s try 3: 503 Service Unavailable; giving up after 3 tries
}
