// Package gcpace sets how often the garbage collector runs in the
// repository's long-running commands: the reference server and the load
// generator.
//
// The server keeps a live heap of a few MiB while every request allocates
// tens of KiB, so with Go's default (GOGC=100: collect when the heap has
// doubled) it collected 20-24 times a second at 5,000 check pushes/s. Each
// collection takes a quarter of the CPUs for its marking and makes
// allocating goroutines help, and on a two-core machine shared with the
// load generator that showed in the latency tail. At GOGC=400 the heap
// stays at tens of MiB; in alternated runs the check push p99 under load
// was 17.5-23.5 ms against 28.8-46.4 ms at 100 (BENCHMARKS.md).
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
