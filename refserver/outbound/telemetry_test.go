package outbound

import (
	"context"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

// The deliveries counter counts every try by outcome.
func TestDispatcherCountsDeliveriesByOutcome(t *testing.T) {
	t.Parallel()
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	defer mp.Shutdown(context.Background())

	down := errors.New("503")
	q := newMemQueue()
	q.add("retried", down, nil)
	q.add("refused", errFinal)
	d := NewDispatcher(DispatcherConfig{
		Name:        "test",
		Queue:       q,
		Policy:      Policy{MaxTries: 3, Base: time.Millisecond, Max: time.Millisecond, Temporary: func(err error) bool { return !errors.Is(err, errFinal) }, MaxDetail: 100},
		Now:         time.Now,
		Logger:      slog.New(slog.DiscardHandler),
		Concurrency: 2,
		Batch:       10,
		Meter:       mp.Meter("test"),
	})
	stop := runScheduled(t, d.Schedule, d.Wait)
	waitUntil(t, "every delivery settled", q.settled)
	stop()

	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	got := map[string]int64{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name != MetricDeliveries {
				continue
			}
			for _, p := range m.Data.(metricdata.Sum[int64]).DataPoints {
				disp, _ := p.Attributes.Value("refserver.outbound.dispatcher")
				outcome, _ := p.Attributes.Value("refserver.outbound.outcome")
				got[disp.AsString()+" "+outcome.AsString()] = p.Value
			}
		}
	}
	want := map[string]int64{"test delivered": 1, "test retrying": 1, "test failed": 1}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%s (-want +got):\n%s", MetricDeliveries, diff)
	}
}
