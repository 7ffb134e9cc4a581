package possync_test

import (
	"context"
	"net/http"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/internal/sdktest"
	"github.com/hospo-dev/hospo-go/possync"
	"github.com/hospo-dev/hospo-go/refserver/refservertest"
	"github.com/hospo-dev/hospo-go/wallet"
)

// agentMetrics collects the Agent's metrics from reader as "name" (or
// "name/failure kind") -> value, checking that every point carries the
// location id loc.
func agentMetrics(t *testing.T, reader *sdkmetric.ManualReader, loc int64) map[string]float64 {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, sm := range rm.ScopeMetrics {
		if sm.Scope.Name != "github.com/hospo-dev/hospo-go/possync" {
			continue
		}
		for _, m := range sm.Metrics {
			record := func(set attribute.Set, v float64) {
				if id, ok := set.Value(possync.AttrLocationID); !ok || id.AsInt64() != loc {
					t.Errorf("%s: location id %v, want %d", m.Name, id.String(), loc)
				}
				name := m.Name
				if f, ok := set.Value(possync.AttrFailure); ok {
					name += "/" + f.AsString()
				}
				out[name] = v
			}
			switch d := m.Data.(type) {
			case metricdata.Sum[int64]:
				for _, p := range d.DataPoints {
					record(p.Attributes, float64(p.Value))
				}
			case metricdata.Gauge[int64]:
				for _, p := range d.DataPoints {
					record(p.Attributes, float64(p.Value))
				}
			case metricdata.Gauge[float64]:
				for _, p := range d.DataPoints {
					record(p.Attributes, p.Value)
				}
			}
		}
	}
	return out
}

// The Agent's metrics move as it works: a failed send, the check
// delivered, a heartbeat and a poll, a payment saved and accepted. The
// Agent records with the MeterProvider of its Service's Client.
func TestAgentMetricsMoveAsItWorks(t *testing.T) {
	t.Parallel()
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	defer mp.Shutdown(context.Background())
	env := refservertest.Start(t)
	diner := env.NewDiner(t)
	diner.AddCard(t, "4111111111111111", wallet.ProviderB)
	venue := env.NewVenue(t, refservertest.VenueConfig{Name: "Metered", ClientOptions: []client.Option{client.WithMeterProvider(mp)}})

	till := newTill()
	agent, err := possync.NewAgent(venue.POS, fastAgent(venue.ID, till.SavePayment))
	if err != nil {
		t.Fatal(err)
	}
	till.agent = agent
	got := agentMetrics(t, reader, venue.ID)
	if got[possync.MetricQueuedChecks] != 0 || got[possync.MetricChecksSent] != 0 {
		t.Errorf("before any work: %v", got)
	}
	if _, ok := got[possync.MetricHeartbeatAge]; ok {
		t.Errorf("a heartbeat age before the first heartbeat: %v", got)
	}

	// The first push meets a 503 and is retried.
	env.AdminDo(t, http.MethodPost, "/sandbox/faults", map[string]any{"method": "POST", "pathPrefix": "/v1/pos/push-pull/check", "status": 503, "count": 1}, nil)
	check := loadCheck(t, venue.ID)
	till.checks[check.CheckNumber] = check
	if err := agent.Push(check.Clone()); err != nil {
		t.Fatal(err)
	}
	if got := agentMetrics(t, reader, venue.ID); got[possync.MetricQueuedChecks] != 1 {
		t.Errorf("queued after a push: %v, want 1", got[possync.MetricQueuedChecks])
	}
	possync.StartAgent(t, agent)
	sdktest.Eventually(t, "the check and a poll", func() bool {
		st := agent.Stats()
		return st.Sent == 1 && st.Queued == 0 && !st.LastHeartbeat.IsZero() && !st.LastPoll.IsZero()
	})
	got = agentMetrics(t, reader, venue.ID)
	for name, want := range map[string]float64{
		possync.MetricQueuedChecks: 0, possync.MetricChecksSent: 1,
		possync.MetricSendFailures + "/temporary": 1, possync.MetricSendFailures + "/permanent": 0,
		possync.MetricPaymentsSaved: 0, possync.MetricPaymentsAccepted: 0,
	} {
		if got[name] != want {
			t.Errorf("%s = %v, want %v", name, got[name], want)
		}
	}
	for _, name := range []string{possync.MetricHeartbeatAge, possync.MetricPollLag} {
		if v, ok := got[name]; !ok || v < 0 {
			t.Errorf("%s = %v (present %v), want a non-negative age", name, v, ok)
		}
	}

	diner.Pay(t, venue, check.CheckNumber, "10.00", "1.00")
	agent.PollNow()
	sdktest.Eventually(t, "the payment accepted and the check re-pushed", func() bool {
		st := agent.Stats()
		return st.PaymentsAccepted == 1 && st.Sent == 2 && st.Queued == 0
	})
	got = agentMetrics(t, reader, venue.ID)
	for name, want := range map[string]float64{
		possync.MetricChecksSent: 2, possync.MetricPaymentsSaved: 1, possync.MetricPaymentsAccepted: 1,
	} {
		if got[name] != want {
			t.Errorf("%s = %v, want %v", name, got[name], want)
		}
	}
}

// AgentConfig.MeterProvider turns the metrics on for any API, and none
// are recorded without a provider.
func TestAgentMetricsProvider(t *testing.T) {
	t.Parallel()
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	defer mp.Shutdown(context.Background())
	env := refservertest.Start(t)
	venue := env.NewVenue(t, refservertest.VenueConfig{Name: "Plain"})
	cfg := fastAgent(venue.ID, func(context.Context, int64, possync.PaymentNotification) error { return nil })

	plain, err := possync.NewAgent(venue.POS, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	if got := agentMetrics(t, reader, venue.ID); len(got) != 0 {
		t.Errorf("metrics without a provider: %v", got)
	}

	cfg.MeterProvider = mp
	metered, err := possync.NewAgent(venue.POS, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := metered.Push(loadCheck(t, venue.ID)); err != nil {
		t.Fatal(err)
	}
	if got := agentMetrics(t, reader, venue.ID); got[possync.MetricQueuedChecks] != 1 {
		t.Errorf("queued = %v, want 1", got[possync.MetricQueuedChecks])
	}
	// A closed agent is no longer observed.
	metered.Close()
	if got := agentMetrics(t, reader, venue.ID); len(got) != 0 {
		t.Errorf("metrics after Close: %v", got)
	}
}
