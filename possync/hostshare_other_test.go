//go:build !linux

package possync_test

import "time"

// stealMillis, involuntarySwitches and readThreadUsage are only known on
// Linux (hostshare_linux_test.go).
func stealMillis() (int64, bool)         { return 0, false }
func involuntarySwitches() (int64, bool) { return 0, false }

type threadUsage struct {
	cpu                    time.Duration
	voluntary, involuntary int64
}

func readThreadUsage() (threadUsage, bool) { return threadUsage{}, false }
