package sim_test

import (
	"fmt"
	"time"

	"github.com/hospo-dev/hospo-go/refserver/sim"
)

// The virtual clock is real time plus an offset that the sandbox's admin
// API moves forward; everything the server reads goes through it.
func ExampleClock() {
	wall := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	clock := sim.NewClock(func() time.Time { return wall })
	clock.SetOffset(6 * time.Minute)
	fmt.Println(clock.Now().Format(time.RFC3339), clock.Offset())
	// Output: 2026-05-01T12:06:00Z 6m0s
}
