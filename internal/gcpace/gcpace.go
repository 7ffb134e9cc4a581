// Package gcpace sets how often the garbage collector runs in the
// repository's long-running commands: the reference server and the load
// generator.
//
// The server keeps a small live heap while every request allocates tens of
// KiB, so with Go's default (GOGC=100: collect when the heap has doubled)
// it collects many times a second under load. Each collection takes a
// quarter of the CPUs for its marking and makes allocating goroutines
// help, which shows in the latency tail on a small machine. A higher GOGC
// trades a larger heap for far fewer collections (BENCHMARKS.md has the
// figures).
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
