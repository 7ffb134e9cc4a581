package promtext

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

func TestWrite(t *testing.T) {
	t.Parallel()
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	defer mp.Shutdown(context.Background())
	m := mp.Meter("test")
	ctx := context.Background()

	reqs, _ := m.Int64Counter("app.requests", metric.WithDescription("Requests\nseen, with a \\."))
	reqs.Add(ctx, 2, metric.WithAttributes(attribute.String("http.route", `/a/{id}`), attribute.String("note", "say \"hi\"\n")))
	reqs.Add(ctx, 1, metric.WithAttributes(attribute.String("http.route", `/a/{id}`), attribute.String("note", "b")))
	active, _ := m.Int64UpDownCounter("app.active")
	active.Add(ctx, 3)
	dur, _ := m.Float64Histogram("app.duration", metric.WithUnit("s"), metric.WithExplicitBucketBoundaries(0.1, 1))
	for _, v := range []float64{0.05, 0.5, 0.7, 5} {
		dur.Record(ctx, v)
	}

	var rm metricdata.ResourceMetrics
	if err := reader.Collect(ctx, &rm); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := Write(&b, &rm); err != nil {
		t.Fatal(err)
	}
	want := `# TYPE app_active gauge
app_active 3
# TYPE app_duration_seconds histogram
app_duration_seconds_bucket{le="0.1"} 1
app_duration_seconds_bucket{le="1"} 3
app_duration_seconds_bucket{le="+Inf"} 4
app_duration_seconds_sum 6.25
app_duration_seconds_count 4
# HELP app_requests_total Requests\nseen, with a \\.
# TYPE app_requests_total counter
app_requests_total{http_route="/a/{id}",note="b"} 1
app_requests_total{http_route="/a/{id}",note="say \"hi\"\n"} 2
`
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("exposition (-want +got):\n%s", diff)
	}
}
