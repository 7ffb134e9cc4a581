//go:build !race

package possync

const raceEnabled = false
