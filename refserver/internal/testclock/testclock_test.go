package testclock_test

import (
	"testing"
	"time"

	"github.com/hospo-dev/hospo-go/refserver/internal/testclock"
)

func TestClockStandsStillUntilAdvanced(t *testing.T) {
	t.Parallel()
	start := time.Date(2030, time.June, 10, 12, 0, 0, 0, time.UTC)
	c := testclock.New(start)
	if got := c.Now(); !got.Equal(start) {
		t.Fatalf("Now = %v, want %v", got, start)
	}
	if got := c.Now(); !got.Equal(start) {
		t.Fatalf("Now moved by itself to %v", got)
	}
	c.Advance(90 * time.Second)
	if got, want := c.Now(), start.Add(90*time.Second); !got.Equal(want) {
		t.Fatalf("after Advance, Now = %v, want %v", got, want)
	}
}
