package e2e_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/refserver/refservertest"
	"github.com/hospo-dev/hospo-go/refserver/store"
	"github.com/hospo-dev/hospo-go/wallet"
)

// A trace started by an SDK call continues in the reference server: each
// client span has server spans as children, named by the same route
// template, and the writes they made have their transaction spans under
// them. Nothing recorded on either side holds a credential or card data.
func TestTraceContinuesFromSDKIntoServer(t *testing.T) {
	t.Parallel()
	srvSpans, cliSpans := tracetest.NewSpanRecorder(), tracetest.NewSpanRecorder()
	srvTP := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(srvSpans))
	cliTP := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(cliSpans))
	srvReader := sdkmetric.NewManualReader()
	srvMP := sdkmetric.NewMeterProvider(sdkmetric.WithReader(srvReader))
	env := refservertest.Start(t, func(c *refservertest.Options) {
		c.TracerProvider, c.MeterProvider = srvTP, srvMP
	})
	ctx := context.Background()

	traced := client.WithTracerProvider(cliTP)
	venue := env.NewVenue(t, refservertest.VenueConfig{ClientOptions: []client.Option{traced}})
	diner := env.NewDiner(t, traced)
	venue.Heartbeat(t)
	venue.PushCheck(t, venue.OpenCheck(1, "20.00"))
	diner.AddCard(t, visaNumber, wallet.ProviderB)
	// One 503 before the payment's answer: the client retries, and both
	// server spans hang under the one client span.
	env.AdminDo(t, http.MethodPost, "/sandbox/faults", map[string]any{"method": "POST", "pathPrefix": "/payments/v1/payment", "status": 503, "count": 1}, nil)
	p := diner.Pay(t, venue, 1, "12.50", "1.00")
	venue.AcceptAll(t)
	if _, err := diner.Wallet.GetPayment(ctx, p.PaymentID); err != nil {
		t.Fatal(err)
	}
	env.WaitIdle(t)

	server := srvSpans.Ended()
	children := func(parent trace.SpanContext) []sdktrace.ReadOnlySpan {
		var out []sdktrace.ReadOnlySpan
		for _, s := range server {
			if s.Parent().SpanID() == parent.SpanID() && s.SpanContext().TraceID() == parent.TraceID() {
				out = append(out, s)
			}
		}
		return out
	}
	seen := map[string]bool{}
	for _, c := range cliSpans.Ended() {
		seen[c.Name()] = true
		kids := children(c.SpanContext())
		want := 1 + len(c.Events()) // one server span per attempt
		if len(kids) != want {
			t.Errorf("client span %q: %d server spans under it, want %d", c.Name(), len(kids), want)
			continue
		}
		for _, k := range kids {
			if k.Name() != c.Name() || k.SpanKind() != trace.SpanKindServer {
				t.Errorf("client span %q has server span %q (%v), want the same route", c.Name(), k.Name(), k.SpanKind())
			}
			if !k.Parent().IsRemote() {
				t.Errorf("server span %q: parent not remote", k.Name())
			}
		}
	}
	for _, name := range []string{
		"POST /v1/pos/push-pull/heartbeat/{locationId}", "POST /v1/pos/push-pull/check",
		"GET /sandbox/providerB/public-key", "POST /v3/user/me/wallet/card/insert",
		"POST /payments/v1/payment", "GET /v1/pos/push-pull/payments/{locationId}",
		"POST /v1/pos/push-pull/accept-payment", "GET /payments/v1/payment/{paymentId}",
	} {
		if !seen[name] {
			t.Errorf("no client span %q (have %v)", name, seen)
		}
	}

	// The payment's write transaction is a child of its server span.
	var payment sdktrace.ReadOnlySpan
	for _, s := range server {
		if s.Name() == "POST /payments/v1/payment" && statusOf(s) == 201 {
			payment = s
		}
	}
	if payment == nil {
		t.Fatal("no server span of the successful payment")
	}
	var writes int
	for _, s := range children(payment.SpanContext()) {
		if s.Name() == "store write transaction" {
			writes++
			if n, ok := attrOf(s.Attributes(), store.AttrBatchSize); !ok || n.AsInt64() < 1 {
				t.Errorf("write transaction span without a batch size: %v", s.Attributes())
			}
		}
	}
	if writes != 1 {
		t.Errorf("%d write transaction spans under the payment, want 1", writes)
	}

	// Nothing recorded holds a credential or card data.
	secrets := []string{diner.AccessToken, venue.POSToken, env.AdminKey, visaNumber, "accessToken="}
	var recorded int
	for _, s := range append(server, cliSpans.Ended()...) {
		values := []string{s.Name(), s.Status().Description}
		for _, kv := range s.Attributes() {
			values = append(values, kv.Value.String())
		}
		for _, e := range s.Events() {
			values = append(values, e.Name)
			for _, kv := range e.Attributes {
				values = append(values, kv.Value.String())
			}
		}
		for _, v := range values {
			recorded++
			for _, secret := range secrets {
				if strings.Contains(v, secret) {
					t.Errorf("span %q records %q, holding a secret", s.Name(), v)
				}
			}
		}
	}
	if recorded < 100 {
		t.Errorf("only %d values recorded; is the scan looking at the spans?", recorded)
	}

	// The server's metrics counted the requests and the writes.
	var rm metricdata.ResourceMetrics
	if err := srvReader.Collect(ctx, &rm); err != nil {
		t.Fatal(err)
	}
	metrics := map[string]metricdata.Aggregation{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			metrics[m.Name] = m.Data
		}
	}
	var payments uint64
	for _, dp := range metrics["http.server.request.duration"].(metricdata.Histogram[float64]).DataPoints {
		if r, _ := dp.Attributes.Value("http.route"); r.AsString() == "/payments/v1/payment" {
			payments += dp.Count
		}
	}
	if payments != 2 { // the 503 and the 201
		t.Errorf("request duration counted %d payment requests, want 2", payments)
	}
	if h, ok := metrics[store.MetricWriteBatchSize].(metricdata.Histogram[int64]); !ok || len(h.DataPoints) != 1 || h.DataPoints[0].Count < 5 {
		t.Errorf("%s = %+v, want the batches counted", store.MetricWriteBatchSize, metrics[store.MetricWriteBatchSize])
	}
	for _, name := range []string{store.MetricWriteQueue, "http.server.active_requests"} {
		if _, ok := metrics[name]; !ok {
			t.Errorf("no metric %s", name)
		}
	}
}

func attrOf(kvs []attribute.KeyValue, k attribute.Key) (attribute.Value, bool) {
	for _, kv := range kvs {
		if kv.Key == k {
			return kv.Value, true
		}
	}
	return attribute.Value{}, false
}

func statusOf(s sdktrace.ReadOnlySpan) int64 {
	v, _ := attrOf(s.Attributes(), "http.response.status_code")
	return v.AsInt64()
}
