//go:build unix

package bills_test

import (
	"syscall"
	"testing"
	"time"
)

// cpuTime returns the process's CPU time (user and system, client and
// server together) so far.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
