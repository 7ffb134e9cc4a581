//go:build race

package main

// raceEnabled makes the binary test build with -race too, so that the
// builds reuse the packages this test binary was compiled from.
const raceEnabled = true
