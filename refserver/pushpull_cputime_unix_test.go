//go:build unix

package refserver_test

import (
	"syscall"
	"time"
)

// processCPU returns the CPU time (user + system) the process has used, so
// that benchmarks can report CPU per operation, a figure that other
// programs on a shared machine disturb far less than throughput.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
