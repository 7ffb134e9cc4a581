package bills

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestWindows(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	plus2 := time.FixedZone("+02:00", 7200)
	day := 24 * time.Hour
	tests := []struct {
		name     string
		from, to time.Time
		want     []window
	}{
		{"from == to", t0, t0, []window{{t0, t0}}},
		{"from after to is left to the server", t0.Add(time.Hour), t0, []window{{t0.Add(time.Hour), t0}}},
		{"exactly 31 days is one window", t0, t0.Add(31 * day), []window{{t0, t0.Add(31 * day)}}},
		{"31 days and a second is two", t0, t0.Add(31*day + time.Second), []window{
			{t0, t0.Add(31 * day)},
			{t0.Add(31*day + time.Second), t0.Add(31*day + time.Second)},
		}},
		{"90 days is three, each starting a second after the last ended", t0, t0.Add(90 * day), []window{
			{t0, t0.Add(31 * day)},
			{t0.Add(31*day + time.Second), t0.Add(62*day + time.Second)},
			{t0.Add(62*day + 2*time.Second), t0.Add(90 * day)},
		}},
		{"sub-second ends round inwards", t0.Add(time.Millisecond), t0.Add(time.Hour + time.Millisecond), []window{
			{t0.Add(time.Second), t0.Add(time.Hour)},
		}},
		{"offset is kept", t0.In(plus2), t0.Add(40 * day).In(plus2), []window{
			{t0.In(plus2), t0.Add(31 * day).In(plus2)},
			{t0.Add(31*day + time.Second).In(plus2), t0.Add(40 * day).In(plus2)},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := windows(tt.from, tt.to)
			// time.Time's == also compares the location, so cmp checks that
			// the caller's offset survives.
			if d := cmp.Diff(tt.want, got, cmp.AllowUnexported(window{})); d != "" {
				t.Errorf("windows (-want +got):\n%s", d)
			}
			for i, w := range got {
				if w.to.Sub(w.from) > MaxRange {
					t.Errorf("window %d spans %v", i, w.to.Sub(w.from))
				}
				if i > 0 && !w.from.After(got[i-1].to) {
					t.Errorf("window %d overlaps the one before", i)
				}
			}
		})
	}
}
