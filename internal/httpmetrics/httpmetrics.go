// Package httpmetrics holds what the SDK's call metrics and the server's
// request metrics share: the histogram of HTTP durations, with the bucket
// bounds OpenTelemetry's HTTP semantic conventions recommend, and the
// attributes both record, defined once so that client and server series
// line up bucket for bucket and name for name.
package httpmetrics

import (
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
)

// The attribute keys of OpenTelemetry's HTTP semantic conventions that
// both sides record, spelled out rather than taken from the semconv
// module so that the SDK depends on the OpenTelemetry API alone.
const (
	// AttrMethod is the request's method.
	AttrMethod = attribute.Key("http.request.method")
	// AttrStatusCode is the response's status code.
	AttrStatusCode = attribute.Key("http.response.status_code")
)

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
