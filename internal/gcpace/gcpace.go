// Package gcpace sets how often the garbage collector runs in the
// repository's long-running commands: the reference server and the load
// generator.
//
// Both keep a live heap of a few MiB while every request allocates tens of
// KiB, so with Go's default (GOGC=100: collect when the heap has doubled)
// they collected 20-25 times a second at 5,000 check pushes/s. Each
// collection takes a quarter of the CPUs for its marking and makes
// allocating goroutines help, and on a two-core machine shared by both
// processes that showed in the latency tail. At GOGC=400 they collect
// about five times less often, for a heap that stays at tens of MiB; the
// check push p99 under load went from 29-46 ms to 18-23 ms (BENCHMARKS.md).
package gcpace

import "runtime/debug"

// Percent is the GOGC value the commands run with.
const Percent = 400

// Apply sets GOGC to Percent, unless the GOGC environment variable is set:
// then the runtime has applied it already and it is left alone, so that
// GOGC still works as the documented override. getenv is os.Getenv.
func Apply(getenv func(string) string) {
	if getenv("GOGC") != "" {
		return
	}
	debug.SetGCPercent(Percent)
}
