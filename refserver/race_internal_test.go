//go:build race

package refserver

// raceEnabled: the race detector drops a share of what goes into a
// sync.Pool on purpose, so counts of allocations do not hold under it.
const raceEnabled = true
