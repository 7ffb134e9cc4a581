//go:build !unix

package refserver_test

import "time"

// processCPU is not measured on this platform; benchmarks then skip the
// CPU-per-operation metric.
func processCPU() time.Duration { return 0 }
