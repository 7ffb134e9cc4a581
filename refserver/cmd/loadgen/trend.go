package main

import (
	"fmt"
	"io"
	"math"
	"time"
)

// flatShare is what "flat" means in the trend check: the least-squares
// line of a series over the trend window moves by less than this share of
// the series' mean over the window. 5 % of a 20-minute window is a drift
// that would double the quantity in about seven hours, which a month-long
// sandbox would notice, while the noise of a garbage-collected heap and
// of a WAL between checkpoints stays under it.
const flatShare = 0.05

// trend is the least-squares fit of one series over the trend window.
type trend struct {
	n              int
	window         time.Duration // the time the fitted samples span
	min, max, mean float64
	last           float64
	perMinute      float64 // slope
	flat           bool    // |slope × window| < flatShare × |mean|
}

// fitTrend fits the samples of series i taken in the last window of the
// run. It needs two samples at least; n is 0 otherwise.
func fitTrend(samples []sample, i int, window time.Duration) trend {
	var xs, ys []float64
	if len(samples) > 0 {
		from := samples[len(samples)-1].at - window
		for _, sm := range samples {
			if sm.ok[i] && sm.at >= from {
				xs = append(xs, sm.at.Minutes())
				ys = append(ys, sm.values[i])
			}
		}
	}
	if len(xs) < 2 {
		return trend{}
	}
	t := trend{n: len(xs), min: ys[0], max: ys[0], last: ys[len(ys)-1]}
	var sx, sy float64
	for k := range xs {
		sx += xs[k]
		sy += ys[k]
		t.min, t.max = min(t.min, ys[k]), max(t.max, ys[k])
	}
	mx, my := sx/float64(t.n), sy/float64(t.n)
	var sxy, sxx float64
	for k := range xs {
		sxy += (xs[k] - mx) * (ys[k] - my)
		sxx += (xs[k] - mx) * (xs[k] - mx)
	}
	t.mean = my
	if sxx > 0 {
		t.perMinute = sxy / sxx
	}
	span := xs[len(xs)-1] - xs[0]
	t.window = time.Duration(span * float64(time.Minute))
	t.flat = math.Abs(t.perMinute*span) < flatShare*math.Abs(t.mean)
	return t
}

// printTrends writes the trend check of every series that was sampled.
func printTrends(w io.Writer, samples []sample, window time.Duration) {
	fmt.Fprintf(w, "\nserver samples: %d; trend over the last %s (flat: the least-squares line moves by less than %.0f%% of the mean)\n",
		len(samples), window, flatShare*100)
	fmt.Fprintf(w, "%-11s %10s %10s %10s %10s %12s %12s %s\n", "series", "min", "max", "mean", "last", "per minute", "over window", "verdict")
	for i, name := range series {
		t := fitTrend(samples, i, window)
		if t.n == 0 {
			continue
		}
		verdict := "flat"
		if !t.flat {
			verdict = "NOT flat"
			if t.perMinute > 0 {
				verdict += " (grows)"
			} else {
				verdict += " (shrinks)"
			}
		}
		fmt.Fprintf(w, "%-11s %10.2f %10.2f %10.2f %10.2f %+12.3f %+12.2f %s over %s\n", name, t.min, t.max, t.mean, t.last,
			t.perMinute, t.perMinute*t.window.Minutes(), verdict, t.window.Round(time.Second))
	}
}
