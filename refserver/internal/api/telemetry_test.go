package api

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// TestTelemetryInventedMethods: a method outside the known set is
// recorded as _OTHER (metrics and spans, whose name is "HTTP"), so that a
// client inventing methods cannot add series; the span keeps the
// original, cut short.
func TestTelemetryInventedMethods(t *testing.T) {
	t.Parallel()
	spans := tracetest.NewSpanRecorder()
	reader := sdkmetric.NewManualReader()
	tel, err := NewTelemetry(sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans)).Tracer("t"),
		propagation.TraceContext{}, sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader)).Meter("t"))
	if err != nil {
		t.Fatal(err)
	}
	h := Tracing(tel.Middleware(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusNotFound)
	})))
	long := "XINVENTEDMETHODWHOSENAMEGOESONANDONANDONANDONANDONANDONANDONANDONANDON"
	methods := []string{http.MethodGet, http.MethodPatch, long}
	for i := range 50 {
		methods = append(methods, "BREW"+strconv.Itoa(i))
	}
	for _, m := range methods {
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(m, "/v1/x", nil))
	}

	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			switch d := m.Data.(type) {
			case metricdata.Histogram[float64]:
				for _, p := range d.DataPoints {
					v, _ := p.Attributes.Value("http.request.method")
					seen[m.Name+" "+v.AsString()] += int(p.Count)
				}
			case metricdata.Sum[int64]:
				for _, p := range d.DataPoints {
					v, _ := p.Attributes.Value("http.request.method")
					seen[m.Name+" "+v.AsString()]++
				}
			}
		}
	}
	want := map[string]int{
		MetricRequestDuration + " GET": 1, MetricRequestDuration + " PATCH": 1, MetricRequestDuration + " _OTHER": 51,
		MetricActiveRequests + " GET": 1, MetricActiveRequests + " PATCH": 1, MetricActiveRequests + " _OTHER": 1,
	}
	if len(seen) != len(want) {
		t.Errorf("series %v, want %v", seen, want)
	}
	for k, n := range want {
		if seen[k] != n {
			t.Errorf("%s: %d, want %d (all: %v)", k, seen[k], n, seen)
		}
	}

	ended := spans.Ended()
	if len(ended) != len(methods) {
		t.Fatalf("%d spans, want %d", len(ended), len(methods))
	}
	for i, s := range ended {
		attrs := attribute.NewSet(s.Attributes()...)
		method, _ := attrs.Value("http.request.method")
		original, hasOriginal := attrs.Value("http.request.method_original")
		switch i {
		case 0, 1:
			if s.Name() != methods[i] || method.AsString() != methods[i] || hasOriginal {
				t.Errorf("span %q: method %q, original %q", s.Name(), method.AsString(), original.AsString())
			}
		default:
			wantOriginal := methods[i][:min(len(methods[i]), maxOriginalMethod)]
			if s.Name() != "HTTP" || method.AsString() != "_OTHER" || original.AsString() != wantOriginal {
				t.Errorf("span %q: method %q, original %q; want HTTP, _OTHER, %q", s.Name(), method.AsString(), original.AsString(), wantOriginal)
			}
		}
	}
}
