package refserver_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/hospo-dev/hospo-go/refserver/outbound"
	"github.com/hospo-dev/hospo-go/refserver/refservertest"
)

// The server's MeterProvider reaches the webhook dispatcher: its attempts
// are counted in refserver.outbound.deliveries beside the order
// dispatcher's, by outcome.
func TestWebhookDeliveriesAreCounted(t *testing.T) {
	t.Parallel()
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	env := refservertest.Start(t, refservertest.WithFrozenClock(), func(c *refservertest.Options) { c.MeterProvider = mp })
	venue := env.NewVenue(t, refservertest.VenueConfig{})
	key := venue.NewAPIKey(t)
	rc := newReceiver(t)
	wh := createWebhook(t, env, key, rc.URL, "location.online")

	rc.failNext(1)
	venue.Heartbeat(t)
	first := rc.next(t)
	deliveryOf(t, env, key, wh.Webhook.WebhookID, first.event.ID, func(d delivery) bool { return d.Attempts == 1 && d.LastError != nil })
	env.AdvanceClock(t, time.Second)
	rc.next(t)

	want := map[string]int64{"webhook dispatcher retrying": 1, "webhook dispatcher delivered": 1}
	var got map[string]int64
	// The count follows the attempt's record, after the receiver answered.
	eventually(t, "both attempts counted", func() bool {
		got = deliveriesCounted(t, reader)
		return cmp.Equal(want, got)
	})
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%s (-want +got):\n%s", outbound.MetricDeliveries, diff)
	}
}

// deliveriesCounted reads refserver.outbound.deliveries as
// "<dispatcher> <outcome>" -> count.
func deliveriesCounted(t *testing.T, reader *sdkmetric.ManualReader) map[string]int64 {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	got := map[string]int64{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name != outbound.MetricDeliveries {
				continue
			}
			for _, p := range m.Data.(metricdata.Sum[int64]).DataPoints {
				disp, _ := p.Attributes.Value("refserver.outbound.dispatcher")
				outcome, _ := p.Attributes.Value("refserver.outbound.outcome")
				got[disp.AsString()+" "+outcome.AsString()] = p.Value
			}
		}
	}
	return got
}
