package api

import (
	"net/http"
	"strconv"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/hospo-dev/hospo-go/internal/httpmetrics"
)

// The server's request metrics.
const (
	// MetricRequestDuration is a histogram of the time to answer a
	// request, in seconds, by http.request.method, http.route and
	// http.response.status_code; its count is the request count.
	MetricRequestDuration = "http.server.request.duration"
	// MetricActiveRequests is the number of requests being handled.
	MetricActiveRequests = "http.server.active_requests"
)

// Telemetry holds the tracer, propagator and instruments of the request
// middleware. The zero value, like a nil *Telemetry, records nothing and
// its Middleware adds nothing to the chain.
type Telemetry struct {
	tracer     trace.Tracer
	propagator propagation.TextMapPropagator
	duration   metric.Float64Histogram
	active     metric.Int64UpDownCounter
}

// NewTelemetry returns the request telemetry of tracer (nil: no spans) and
// meter (nil: no metrics). propagator reads the caller's trace context
// from the request headers.
func NewTelemetry(tracer trace.Tracer, propagator propagation.TextMapPropagator, meter metric.Meter) (*Telemetry, error) {
	t := &Telemetry{tracer: tracer, propagator: propagator}
	if meter == nil {
		return t, nil
	}
	var err error
	t.duration, err = httpmetrics.Duration(meter, MetricRequestDuration, "Time to answer HTTP requests.")
	if err != nil {
		return nil, err
	}
	t.active, err = meter.Int64UpDownCounter(MetricActiveRequests,
		metric.WithUnit("{request}"),
		metric.WithDescription("HTTP requests being handled."))
	if err != nil {
		return nil, err
	}
	return t, nil
}

// Middleware returns middleware that makes a server span per request,
// continuing the caller's trace from its headers, and records the request
// metrics. Span and metrics are named by the route pattern that chi
// matched ("GET /payments/v1/payment/{paymentId}"), never by the URL,
// whose path holds ids and whose query holds access tokens. It must run
// inside Tracing, outside the router's routing. Without a tracer or a
// meter it returns next itself.
func (t *Telemetry) Middleware(next http.Handler) http.Handler {
	if t == nil || (t.tracer == nil && t.duration == nil) {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		start := time.Now()
		name, method := spanMethod(r.Method)
		if t.active != nil {
			byMethod := metric.WithAttributes(method)
			t.active.Add(ctx, 1, byMethod)
			defer t.active.Add(ctx, -1, byMethod)
		}
		var span trace.Span
		if t.tracer != nil {
			ctx = t.propagator.Extract(ctx, propagation.HeaderCarrier(r.Header))
			// The name is the method until routing has found the pattern.
			ctx, span = t.tracer.Start(ctx, name, trace.WithSpanKind(trace.SpanKindServer),
				trace.WithAttributes(method))
			if name == otherMethodSpan {
				span.SetAttributes(attribute.String("http.request.method_original", r.Method[:min(len(r.Method), maxOriginalMethod)]))
			}
			r = r.WithContext(ctx)
		}
		defer func() {
			// A panic is turned into a 500 further in (Recover); the span
			// still ends if one gets this far.
			tr := TraceOf(w)
			status := http.StatusOK
			id := ""
			if tr != nil {
				status, id = tr.Status(), tr.ID()
			}
			route := RoutePattern(r)
			attrs := []attribute.KeyValue{method, attribute.String("http.route", route), httpmetrics.AttrStatusCode.Int(status)}
			if span != nil {
				if route != "-" {
					span.SetName(name + " " + route)
				}
				span.SetAttributes(append(attrs, attribute.String("hospo.request_id", id))...)
				if status >= 500 {
					span.SetStatus(codes.Error, strconv.Itoa(status))
				}
				span.End()
			}
			if t.duration != nil {
				t.duration.Record(ctx, time.Since(start).Seconds(), metric.WithAttributes(attrs...))
			}
		}()
		next.ServeHTTP(w, r)
	})
}

// otherMethod stands for every HTTP method outside knownMethods in the
// http.request.method attribute, and otherMethodSpan in a span's name, as
// OpenTelemetry's HTTP conventions have it: a client may send any token
// as a method, and each one would otherwise be a series of its own (2,000
// invented methods made 36,000 series and pushed the real routes into
// the SDK's overflow series).
const (
	otherMethod     = "_OTHER"
	otherMethodSpan = "HTTP"
	// maxOriginalMethod bounds the original method kept on a span (a
	// method is a token: cutting its bytes splits no character).
	maxOriginalMethod = 64
)

// knownMethods are the methods of RFC 9110 and PATCH (RFC 5789).
var knownMethods = map[string]bool{
	http.MethodGet: true, http.MethodHead: true, http.MethodPost: true, http.MethodPut: true,
	http.MethodDelete: true, http.MethodConnect: true, http.MethodOptions: true,
	http.MethodTrace: true, http.MethodPatch: true,
}

// spanMethod returns the span name and the http.request.method attribute
// of method: itself when known, otherwise "HTTP" and "_OTHER".
func spanMethod(method string) (string, attribute.KeyValue) {
	if knownMethods[method] {
		return method, httpmetrics.AttrMethod.String(method)
	}
	return otherMethodSpan, httpmetrics.AttrMethod.String(otherMethod)
}
