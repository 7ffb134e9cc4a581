package gcpace

import (
	"runtime/debug"
	"testing"
)

func TestApply(t *testing.T) {
	prev := debug.SetGCPercent(100)
	defer debug.SetGCPercent(prev)

	Apply(func(string) string { return "" })
	if got := debug.SetGCPercent(100); got != Percent {
		t.Errorf("without GOGC: GC percent %d, want %d", got, Percent)
	}

	Apply(func(k string) string {
		if k == "GOGC" {
			return "100"
		}
		return ""
	})
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("with GOGC set: GC percent %d, want it left at 100", got)
	}
}
