//go:build race

package bintest

// raceEnabled makes Build build with -race when the test has it.
const raceEnabled = true
