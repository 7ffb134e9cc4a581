package client

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/hospo-dev/hospo-go/internal/httpmetrics"
)

// Telemetry is opt-in (WithTracerProvider, WithMeterProvider): a Client
// without a provider pays one nil check per call. Only the OpenTelemetry
// API is imported here; the program that wants the data brings an SDK and
// an exporter.
//
// Every name and value recorded is chosen so that no credential or card
// data can reach it: spans and metrics are named by the route template
// (Request.Route), never by the URL, whose query carries the access token;
// errors are described by their kind and code, never by their text.

// InstrumentationName is the name of the tracer and meter the Client gets
// from its providers.
const InstrumentationName = "github.com/hospo-dev/hospo-go/client"

// HeaderIdempotentReplayed is the response header with which the service
// marks a response replayed for a repeated Idempotency-Key ("true"): the
// call's work was done by an earlier request.
const HeaderIdempotentReplayed = "Idempotent-Replayed"

// The attributes of the Client's spans and metrics beyond OpenTelemetry's
// semantic conventions (http.request.method, http.response.status_code,
// server.address, server.port, url.template, error.type).
const (
	// AttrErrorCode is the API error code of a failed call (404006).
	AttrErrorCode = attribute.Key("hospo.error.code")
	// AttrAttempts is the number of HTTP attempts the call made.
	AttrAttempts = attribute.Key("hospo.attempts")
	// AttrReplayed is true when the response was an idempotent replay.
	AttrReplayed = attribute.Key("hospo.idempotent_replay")
	// AttrOutcome is how a call ended: "success", "api_error",
	// "transport_error" or "canceled".
	AttrOutcome = attribute.Key("hospo.outcome")
	// AttrAttempt is the number of the attempt a retry event starts.
	AttrAttempt = attribute.Key("hospo.attempt")
	// AttrRetryReason is why the previous attempt is retried: its status
	// code ("503"), "timeout" or "connection_error".
	AttrRetryReason = attribute.Key("hospo.retry.reason")
)

// The semantic-convention keys used here, spelled out rather than taken
// from the semconv module so that the SDK depends on the API alone; those
// the server records too are httpmetrics'.
const (
	attrMethod      = httpmetrics.AttrMethod
	attrStatus      = httpmetrics.AttrStatusCode
	attrServerAddr  = attribute.Key("server.address")
	attrServerPort  = attribute.Key("server.port")
	attrURLTemplate = attribute.Key("url.template")
	attrErrorType   = attribute.Key("error.type")
)

// The Client's metric names.
const (
	// MetricCallDuration is a histogram of the duration of each logical
	// call, retries and their waits included, in seconds, by
	// http.request.method, url.template, hospo.outcome and (when a response
	// came) http.response.status_code.
	MetricCallDuration = "hospo.client.call.duration"
	// MetricRetries counts retries by http.request.method, url.template
	// and hospo.retry.reason.
	MetricRetries = "hospo.client.retries"
)

// WithTracerProvider turns on tracing: one client span per call, named by
// the endpoint's route template ("POST /payments/v1/payment"), with the
// method, status code, API error code, attempt count, idempotent replay and
// server address as attributes and an event per retry; and the trace
// context goes out in the request headers (see WithPropagator). nil turns
// tracing off, which is the default. New only.
func WithTracerProvider(tp trace.TracerProvider) Option {
	return func(s *settings) { s.tracerProvider = tp }
}

// WithMeterProvider turns on metrics: MetricCallDuration and
// MetricRetries. The possync Agent of a Service made from this Client
// records its own metrics with it too. nil turns metrics off, which is the
// default. New only.
func WithMeterProvider(mp metric.MeterProvider) Option {
	return func(s *settings) { s.meterProvider = mp }
}

// WithPropagator sets how the trace context is written into the request
// headers when tracing is on; the default is W3C Trace Context
// (propagation.TraceContext, the traceparent header). New only.
func WithPropagator(p propagation.TextMapPropagator) Option {
	return func(s *settings) { s.propagator = p }
}

// MeterProvider returns the MeterProvider given to WithMeterProvider, or
// nil, for components built on the Client (the possync Agent) to record
// their metrics alongside its own.
func (c *Client) MeterProvider() metric.MeterProvider { return c.defaults.meterProvider }

// telemetry holds a Client's instruments; a Client without providers has
// none (nil).
type telemetry struct {
	tracer     trace.Tracer // nil: no spans
	propagator propagation.TextMapPropagator
	duration   metric.Float64Histogram // nil: no metrics
	retries    metric.Int64Counter
}

func newTelemetry(s *settings) (*telemetry, error) {
	if s.tracerProvider == nil && s.meterProvider == nil {
		return nil, nil
	}
	t := &telemetry{}
	if s.tracerProvider != nil {
		t.tracer = s.tracerProvider.Tracer(InstrumentationName, trace.WithInstrumentationVersion(Version))
		t.propagator = s.propagator
		if t.propagator == nil {
			t.propagator = propagation.TraceContext{}
		}
	}
	if s.meterProvider == nil {
		return t, nil
	}
	m := s.meterProvider.Meter(InstrumentationName, metric.WithInstrumentationVersion(Version))
	var err error
	if t.duration, err = httpmetrics.Duration(m, MetricCallDuration, "Duration of SDK calls, retries and waits included."); err != nil {
		return nil, err
	}
	if t.retries, err = m.Int64Counter(MetricRetries, metric.WithUnit("{retry}"), metric.WithDescription("Retries of SDK calls.")); err != nil {
		return nil, err
	}
	return t, nil
}

// callTelemetry is the telemetry of one call.
type callTelemetry struct {
	t      *telemetry
	span   trace.Span // nil without a tracer
	start  time.Time
	method string
	route  string
	st     *callState // set once the call has one

	// reason is why the last attempt is to be retried, set by checkRetry
	// and reported when the retry starts.
	reason       string
	reasonStatus int
}

// start begins the telemetry of a call of method to route and returns the
// context that carries its span.
func (t *telemetry) start(ctx context.Context, method, route string) (context.Context, *callTelemetry) {
	ct := &callTelemetry{t: t, method: method, route: route, start: time.Now()}
	if t.tracer != nil {
		name := method
		if route != "" {
			name = method + " " + route
		}
		attrs := []attribute.KeyValue{attrMethod.String(method)}
		if route != "" {
			attrs = append(attrs, attrURLTemplate.String(route))
		}
		ctx, ct.span = t.tracer.Start(ctx, name, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
	}
	return ctx, ct
}

// request is called once the HTTP request is built: it records the server
// and writes the trace context into the headers, once for every attempt.
func (ct *callTelemetry) request(ctx context.Context, u *url.URL, h http.Header) {
	if ct.span == nil {
		return
	}
	host := u.Hostname()
	port := u.Port()
	if port == "" {
		port = "80"
		if u.Scheme == "https" {
			port = "443"
		}
	}
	attrs := []attribute.KeyValue{attrServerAddr.String(host)}
	if p, err := strconv.Atoi(port); err == nil {
		attrs = append(attrs, attrServerPort.Int(p))
	}
	ct.span.SetAttributes(attrs...)
	ct.t.propagator.Inject(ctx, propagation.HeaderCarrier(h))
}

// willRetry notes why the attempt that just ended is to be retried.
func (ct *callTelemetry) willRetry(resp *http.Response, err error) {
	ct.reason, ct.reasonStatus = retryReason(resp, err), 0
	if resp != nil {
		ct.reasonStatus = resp.StatusCode
	}
}

// retrying records the start of retry attempt number attempt (2 or more).
func (ct *callTelemetry) retrying(ctx context.Context, attempt int) {
	reason := ct.reason
	if reason == "" {
		reason = "unknown"
	}
	if ct.span != nil {
		attrs := []attribute.KeyValue{AttrAttempt.Int(attempt), AttrRetryReason.String(reason)}
		if ct.reasonStatus != 0 {
			attrs = append(attrs, attrStatus.Int(ct.reasonStatus))
		}
		ct.span.AddEvent("retry", trace.WithAttributes(attrs...))
	}
	if ct.t.retries != nil {
		ct.t.retries.Add(ctx, 1, metric.WithAttributes(attrMethod.String(ct.method), attrURLTemplate.String(ct.route), AttrRetryReason.String(reason)))
	}
}

// retryReason names why an attempt failed in a word that carries no
// detail of the request: the status code, "timeout" or "connection_error".
func retryReason(resp *http.Response, err error) string {
	if resp != nil {
		return strconv.Itoa(resp.StatusCode)
	}
	var ne net.Error
	if errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()) {
		return "timeout"
	}
	return "connection_error"
}

// end finishes the call's span and records its duration.
func (ct *callTelemetry) end(ctx context.Context, resp *Response, err error) {
	status := 0
	replayed := false
	if resp != nil && resp.Response != nil {
		status = resp.StatusCode
		replayed = resp.Header.Get(HeaderIdempotentReplayed) == "true"
	}
	attempts := 0
	if ct.st != nil {
		attempts = ct.st.attempt
	}
	outcome, errType := "success", ""
	var apiErr *APIError
	switch {
	case err == nil:
	case errors.As(err, &apiErr):
		outcome, errType = "api_error", strconv.Itoa(apiErr.HTTPStatus)
		status = apiErr.HTTPStatus
	case errors.Is(err, context.Canceled):
		outcome, errType = "canceled", "canceled"
	case errors.Is(err, ErrNoCredential):
		outcome, errType = "transport_error", "no_credential"
	default:
		outcome, errType = "transport_error", retryReason(nil, err)
	}

	if ct.span != nil {
		attrs := make([]attribute.KeyValue, 0, 6)
		attrs = append(attrs, AttrAttempts.Int(attempts), AttrReplayed.Bool(replayed), AttrOutcome.String(outcome))
		if status != 0 {
			attrs = append(attrs, attrStatus.Int(status))
		}
		if apiErr != nil && apiErr.Code != 0 {
			attrs = append(attrs, AttrErrorCode.Int(int(apiErr.Code)))
		}
		if errType != "" {
			attrs = append(attrs, attrErrorType.String(errType))
			// The description is the kind of failure only: an error's text
			// may quote the service's message or a redacted URL, and a
			// span leaves the process.
			ct.span.SetStatus(codes.Error, errType)
		}
		ct.span.SetAttributes(attrs...)
		ct.span.End()
	}
	if ct.t.duration != nil {
		attrs := []attribute.KeyValue{attrMethod.String(ct.method), attrURLTemplate.String(ct.route), AttrOutcome.String(outcome)}
		if status != 0 {
			attrs = append(attrs, attrStatus.Int(status))
		}
		ct.t.duration.Record(context.WithoutCancel(ctx), time.Since(ct.start).Seconds(), metric.WithAttributes(attrs...))
	}
}
