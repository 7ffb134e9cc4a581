package client

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/jarcoal/httpmock"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/hospo-dev/hospo-go/internal/sdktest"
)

// telemetryRig is a Client with an in-memory span recorder and metric
// reader.
type telemetryRig struct {
	c      *Client
	m      *sdktest.Mock
	spans  *tracetest.SpanRecorder
	reader *sdkmetric.ManualReader
}

func newTelemetryRig(t *testing.T, opts ...Option) *telemetryRig {
	t.Helper()
	r := &telemetryRig{spans: tracetest.NewSpanRecorder(), reader: sdkmetric.NewManualReader()}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(r.spans))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(r.reader))
	t.Cleanup(func() {
		_ = tp.Shutdown(context.Background())
		_ = mp.Shutdown(context.Background())
	})
	r.c, r.m = newMockClient(t, append([]Option{WithTracerProvider(tp), WithMeterProvider(mp)}, opts...)...)
	return r
}

func (r *telemetryRig) onlySpan(t *testing.T) sdktrace.ReadOnlySpan {
	t.Helper()
	ended := r.spans.Ended()
	if len(ended) != 1 {
		t.Fatalf("%d spans ended, want 1", len(ended))
	}
	return ended[0]
}

func (r *telemetryRig) metrics(t *testing.T) map[string]metricdata.Metrics {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := r.reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	out := map[string]metricdata.Metrics{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			out[m.Name] = m
		}
	}
	return out
}

func attrMap(kvs []attribute.KeyValue) map[attribute.Key]attribute.Value {
	m := make(map[attribute.Key]attribute.Value, len(kvs))
	for _, kv := range kvs {
		m[kv.Key] = kv.Value
	}
	return m
}

func wantAttrs(t *testing.T, what string, got []attribute.KeyValue, want ...attribute.KeyValue) {
	t.Helper()
	m := attrMap(got)
	for _, kv := range want {
		v, ok := m[kv.Key]
		if !ok {
			t.Errorf("%s: no attribute %s (have %v)", what, kv.Key, got)
			continue
		}
		if v != kv.Value {
			t.Errorf("%s: %s = %s, want %s", what, kv.Key, v.String(), kv.Value.String())
		}
	}
}

// traceparents records the traceparent header of every attempt.
type traceparents struct {
	mu   sync.Mutex
	seen []string
}

func (tp *traceparents) wrap(r httpmock.Responder) httpmock.Responder {
	return func(req *http.Request) (*http.Response, error) {
		tp.mu.Lock()
		tp.seen = append(tp.seen, req.Header.Get("traceparent"))
		tp.mu.Unlock()
		return r(req)
	}
}

func TestTelemetrySpanOfRetriedReplayedCall(t *testing.T) {
	t.Parallel()
	r := newTelemetryRig(t, WithAccessToken("tok"))
	replayed := func(*http.Request) (*http.Response, error) {
		resp := httpmock.NewStringResponse(201, `{}`)
		resp.Header.Set(HeaderIdempotentReplayed, "true")
		return resp, nil
	}
	var tps traceparents
	r.m.Handle("POST", "payments/v1/payment", tps.wrap(sequence(sdktest.ErrorResponder(Code(503001)), replayed)))

	_, err := r.c.Do(context.Background(), &Request{
		Method: http.MethodPost, Route: "/payments/v1/payment", Path: "payments/v1/payment",
		Body: map[string]int{"amount": 1}, Auth: AuthAccessToken,
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := r.onlySpan(t)
	if s.Name() != "POST /payments/v1/payment" {
		t.Errorf("span name %q, want the route template", s.Name())
	}
	if s.SpanKind() != trace.SpanKindClient {
		t.Errorf("span kind %v, want client", s.SpanKind())
	}
	wantAttrs(t, "span", s.Attributes(),
		attribute.String("http.request.method", "POST"),
		attribute.Int("http.response.status_code", 201),
		attribute.String("url.template", "/payments/v1/payment"),
		attribute.String("server.address", "api.test"),
		attribute.Int("server.port", 443),
		AttrAttempts.Int(2),
		AttrReplayed.Bool(true),
		AttrOutcome.String("success"),
	)
	if s.Status().Code == codes.Error {
		t.Errorf("span status %v on success", s.Status())
	}
	ev := s.Events()
	if len(ev) != 1 || ev[0].Name != "retry" {
		t.Fatalf("events %v, want one retry", ev)
	}
	wantAttrs(t, "retry event", ev[0].Attributes, AttrAttempt.Int(2), AttrRetryReason.String("503"),
		attribute.Int("http.response.status_code", 503))

	// Both attempts carried the call span's context.
	want := "00-" + s.SpanContext().TraceID().String() + "-" + s.SpanContext().SpanID().String() + "-01"
	if len(tps.seen) != 2 || tps.seen[0] != want || tps.seen[1] != want {
		t.Errorf("traceparent headers %q, want %q on both attempts", tps.seen, want)
	}

	ms := r.metrics(t)
	h, ok := ms[MetricCallDuration].Data.(metricdata.Histogram[float64])
	if !ok || len(h.DataPoints) != 1 || h.DataPoints[0].Count != 1 {
		t.Fatalf("%s = %+v, want one point of one call", MetricCallDuration, ms[MetricCallDuration].Data)
	}
	wantAttrs(t, "duration point", h.DataPoints[0].Attributes.ToSlice(),
		attribute.String("url.template", "/payments/v1/payment"), attribute.String("http.request.method", "POST"),
		AttrOutcome.String("success"), attribute.Int("http.response.status_code", 201))
	c, ok := ms[MetricRetries].Data.(metricdata.Sum[int64])
	if !ok || len(c.DataPoints) != 1 || c.DataPoints[0].Value != 1 || !c.IsMonotonic {
		t.Fatalf("%s = %+v, want one retry", MetricRetries, ms[MetricRetries].Data)
	}
	wantAttrs(t, "retries point", c.DataPoints[0].Attributes.ToSlice(), AttrRetryReason.String("503"),
		attribute.String("url.template", "/payments/v1/payment"))
}

func TestTelemetryAPIError(t *testing.T) {
	t.Parallel()
	r := newTelemetryRig(t, WithAccessToken("tok"))
	r.m.Handle("GET", "payments/v1/payment/77", sdktest.ErrorResponder(CodeCardNotTokenised))
	_, err := r.c.Do(context.Background(), &Request{Route: "/payments/v1/payment/{paymentId}", Path: "payments/v1/payment/77", Auth: AuthAccessToken}, nil)
	if !errors.Is(err, ErrCardNotTokenised) {
		t.Fatalf("err = %v", err)
	}
	s := r.onlySpan(t)
	if s.Name() != "GET /payments/v1/payment/{paymentId}" {
		t.Errorf("span name %q", s.Name())
	}
	wantAttrs(t, "span", s.Attributes(),
		attribute.Int("http.response.status_code", 404),
		AttrErrorCode.Int(404006),
		AttrAttempts.Int(1),
		AttrReplayed.Bool(false),
		AttrOutcome.String("api_error"),
		attribute.String("error.type", "404"),
	)
	if s.Status().Code != codes.Error {
		t.Errorf("span status %v, want Error", s.Status())
	}
	if len(s.Events()) != 0 {
		t.Errorf("events %v on a call that was not retried", s.Events())
	}
}

func TestTelemetryTransportErrorAndNoCredential(t *testing.T) {
	t.Parallel()
	r := newTelemetryRig(t, WithMaxRetries(1))
	r.m.Handle("GET", "v1/thing", httpmock.ConnectionFailure)
	if _, err := r.c.Do(context.Background(), &Request{Route: "/v1/thing", Path: "v1/thing"}, nil); err == nil {
		t.Fatal("no error")
	}
	// Nothing is sent without the credential; the span says why.
	if _, err := r.c.Do(context.Background(), &Request{Route: "/v1/user/me", Path: "v1/user/me", Auth: AuthAccessToken}, nil); !errors.Is(err, ErrNoCredential) {
		t.Fatalf("err = %v", err)
	}
	ended := r.spans.Ended()
	if len(ended) != 2 {
		t.Fatalf("%d spans", len(ended))
	}
	wantAttrs(t, "connection failure", ended[0].Attributes(), AttrAttempts.Int(2), AttrOutcome.String("transport_error"),
		attribute.String("error.type", "connection_error"))
	if ev := ended[0].Events(); len(ev) != 1 {
		t.Errorf("events %v, want one retry", ev)
	} else {
		wantAttrs(t, "retry event", ev[0].Attributes, AttrRetryReason.String("connection_error"))
	}
	wantAttrs(t, "no credential", ended[1].Attributes(), AttrAttempts.Int(0), attribute.String("error.type", "no_credential"))
}

// A request without a route template is named by its method alone, never
// by its URL.
func TestTelemetrySpanWithoutRoute(t *testing.T) {
	t.Parallel()
	r := newTelemetryRig(t)
	r.m.Reply("GET", "v1/location/3", 200, `{}`)
	if _, err := r.c.Do(context.Background(), &Request{Path: "v1/location/3"}, nil); err != nil {
		t.Fatal(err)
	}
	if got := r.onlySpan(t).Name(); got != "GET" {
		t.Errorf("span name %q, want GET", got)
	}
}

// The span continues the caller's trace: the client span's parent is the
// span in the call's ctx.
func TestTelemetrySpanIsChildOfCallersSpan(t *testing.T) {
	t.Parallel()
	r := newTelemetryRig(t)
	r.m.Reply("GET", "v1/location/3", 200, `{}`)
	tp := sdktrace.NewTracerProvider()
	ctx, parent := tp.Tracer("test").Start(context.Background(), "parent")
	if _, err := r.c.Do(ctx, &Request{Route: "/v1/location/{locationId}", Path: "v1/location/3"}, nil); err != nil {
		t.Fatal(err)
	}
	parent.End()
	s := r.onlySpan(t)
	if s.Parent().SpanID() != parent.SpanContext().SpanID() || s.SpanContext().TraceID() != parent.SpanContext().TraceID() {
		t.Errorf("span parent %v, want %v", s.Parent(), parent.SpanContext())
	}
}

// Without providers nothing is recorded and no trace context is sent, even
// when the caller's ctx holds a span.
func TestTelemetryOffByDefault(t *testing.T) {
	t.Parallel()
	c, m := newMockClient(t)
	if c.tel != nil || c.MeterProvider() != nil {
		t.Fatal("telemetry on without a provider")
	}
	var tps traceparents
	m.Handle("GET", "v1/thing", tps.wrap(ok))
	ctx, span := sdktrace.NewTracerProvider().Tracer("test").Start(context.Background(), "caller")
	defer span.End()
	if _, err := c.Do(ctx, &Request{Route: "/v1/thing", Path: "v1/thing"}, nil); err != nil {
		t.Fatal(err)
	}
	if len(tps.seen) != 1 || tps.seen[0] != "" {
		t.Errorf("traceparent %q sent with telemetry off", tps.seen)
	}
}

// No credential, path id or body value reaches a span, an event or a
// metric: everything recorded is scanned for them.
func TestTelemetryRecordsNoSecrets(t *testing.T) {
	t.Parallel()
	const (
		token    = "tok-SECRET-3141"
		apiKey   = "key-SECRET-2718"
		card     = "4242424242424242"
		pathID   = "98765"
		adminKey = "admin-SECRET-1618"
	)
	r := newTelemetryRig(t, WithAccessToken(token), WithAPIKey(apiKey), WithAdminKey(adminKey))
	r.m.Handle("POST", "v3/user/me/wallet/card/insert", sequence(status(502), sdktest.ErrorResponder(CodeValidation)))
	r.m.Handle("GET", "v3/bill/"+pathID, sequence(httpmock.ConnectionFailure, ok))
	r.m.Handle("GET", "sandbox/fixtures", sdktest.ErrorResponder(CodeAdminKeyInvalid))
	ctx := context.Background()
	_, _ = r.c.Do(ctx, &Request{Method: "POST", Route: "/v3/user/me/wallet/card/insert", Path: "v3/user/me/wallet/card/insert",
		Body: map[string]string{"number": card, "holderName": "A " + card}, Auth: AuthAccessToken}, nil)
	_, _ = r.c.Do(ctx, &Request{Route: "/v3/bill/{billId}", Path: "v3/bill/" + pathID, Auth: AuthAPIKey}, nil)
	_, _ = r.c.Do(ctx, &Request{Route: "/sandbox/fixtures", Path: "sandbox/fixtures", Auth: AuthAdminKey}, nil)

	var recorded []string
	addAttrs := func(where string, kvs []attribute.KeyValue) {
		for _, kv := range kvs {
			recorded = append(recorded, where+" "+string(kv.Key)+"="+kv.Value.String())
		}
	}
	ended := r.spans.Ended()
	if len(ended) != 3 {
		t.Fatalf("%d spans, want 3", len(ended))
	}
	for _, s := range ended {
		recorded = append(recorded, "name "+s.Name(), "status "+s.Status().Description)
		addAttrs(s.Name(), s.Attributes())
		for _, e := range s.Events() {
			recorded = append(recorded, "event "+e.Name)
			addAttrs(s.Name()+" event", e.Attributes)
		}
	}
	var rm metricdata.ResourceMetrics
	if err := r.reader.Collect(ctx, &rm); err != nil {
		t.Fatal(err)
	}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			switch d := m.Data.(type) {
			case metricdata.Histogram[float64]:
				for _, p := range d.DataPoints {
					addAttrs(m.Name, p.Attributes.ToSlice())
				}
			case metricdata.Sum[int64]:
				for _, p := range d.DataPoints {
					addAttrs(m.Name, p.Attributes.ToSlice())
				}
			}
		}
	}
	if len(recorded) < 20 {
		t.Fatalf("only %d values recorded; is the scan looking at the telemetry?", len(recorded))
	}
	for _, v := range recorded {
		for _, secret := range []string{token, apiKey, adminKey, card, pathID, "accessToken"} {
			if strings.Contains(v, secret) {
				t.Errorf("recorded %q holds %q", v, secret)
			}
		}
	}
}
