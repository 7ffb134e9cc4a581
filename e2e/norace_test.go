//go:build !race

package e2e_test

// raceEnabled tells the crash test to build the server with -race too, so
// that the build reuses the packages this test binary was compiled from.
const raceEnabled = false
