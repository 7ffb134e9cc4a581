// Package httpmetrics holds what the SDK's call metrics and the server's
// request metrics share: the histogram of HTTP durations, with the bucket
// bounds OpenTelemetry's HTTP semantic conventions recommend, defined
// once so that client and server durations line up bucket for bucket.
package httpmetrics

import "go.opentelemetry.io/otel/metric"

// DurationBuckets are the bounds, in seconds, that OpenTelemetry's HTTP
// semantic conventions recommend for request durations.
var DurationBuckets = []float64{0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10}

// Duration makes the histogram of HTTP durations called name, in seconds,
// on m's DurationBuckets.
func Duration(m metric.Meter, name, description string) (metric.Float64Histogram, error) {
	return m.Float64Histogram(name,
		metric.WithUnit("s"),
		metric.WithDescription(description),
		metric.WithExplicitBucketBoundaries(DurationBuckets...))
}
