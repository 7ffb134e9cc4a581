//go:build !linux

package possync_test

// stealMillis, involuntarySwitches and readThreadUsage are only known on
// Linux (hostshare_linux_test.go).
func stealMillis() (int64, bool)           { return 0, false }
func involuntarySwitches() (int64, bool)   { return 0, false }
func readThreadUsage() (threadUsage, bool) { return threadUsage{}, false }
