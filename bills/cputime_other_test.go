//go:build !unix

package bills_test

import (
	"testing"
	"time"
)

// cpuTime is not measured on this platform; cpu-µs/bill reads 0.
func cpuTime(*testing.B) time.Duration { return 0 }
