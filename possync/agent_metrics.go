package possync

import (
	"context"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/hospo-dev/hospo-go/client"
)

// The Agent's metrics, each with the attribute AttrLocationID. They are
// read from the Agent's counters (Stats) when the metrics are collected,
// so recording them costs the Agent's work nothing.
const (
	// MetricQueuedChecks is the number of distinct checks waiting for
	// delivery, in-flight ones included.
	MetricQueuedChecks = "hospo.possync.checks.queued"
	// MetricChecksSent counts checks delivered.
	MetricChecksSent = "hospo.possync.checks.sent"
	// MetricSendFailures counts failed deliveries by AttrFailure:
	// "temporary" (rescheduled) or "permanent" (the check was dropped).
	MetricSendFailures = "hospo.possync.checks.send_failures"
	// MetricPaymentsSaved counts successful SavePayment calls.
	MetricPaymentsSaved = "hospo.possync.payments.saved"
	// MetricPaymentsAccepted counts payments accepted at the service.
	MetricPaymentsAccepted = "hospo.possync.payments.accepted"
	// MetricPollLag is the time since the last successful payments poll,
	// in seconds; absent before the first.
	MetricPollLag = "hospo.possync.poll.lag"
	// MetricHeartbeatAge is the time since the last successful heartbeat,
	// in seconds; absent before the first. The service treats the location
	// as offline beyond 360.
	MetricHeartbeatAge = "hospo.possync.heartbeat.age"
)

// The attributes of the Agent's metrics.
const (
	// AttrLocationID is the Agent's location.
	AttrLocationID = attribute.Key("hospo.location.id")
	// AttrFailure is the kind of a send failure.
	AttrFailure = attribute.Key("hospo.failure")
)

// meterProvider returns the provider the Agent records with: cfg's, or
// else that of the Client behind api when it is a *Service.
func meterProvider(api API, cfg AgentConfig) metric.MeterProvider {
	if cfg.MeterProvider != nil {
		return cfg.MeterProvider
	}
	if s, ok := api.(*Service); ok && s.c != nil {
		return s.c.MeterProvider()
	}
	return nil
}

// registerMetrics makes the Agent's instruments on mp and the callback
// that observes them.
func (a *Agent) registerMetrics(mp metric.MeterProvider) (metric.Registration, error) {
	m := mp.Meter("github.com/hospo-dev/hospo-go/possync", metric.WithInstrumentationVersion(client.Version))
	queued, err := m.Int64ObservableGauge(MetricQueuedChecks, metric.WithUnit("{check}"),
		metric.WithDescription("Checks waiting for delivery."))
	if err != nil {
		return nil, err
	}
	counter := func(name, unit, desc string) metric.Int64ObservableCounter {
		if err != nil {
			return nil
		}
		var c metric.Int64ObservableCounter
		c, err = m.Int64ObservableCounter(name, metric.WithUnit(unit), metric.WithDescription(desc))
		return c
	}
	sent := counter(MetricChecksSent, "{check}", "Checks delivered.")
	failures := counter(MetricSendFailures, "{send}", "Failed check deliveries.")
	saved := counter(MetricPaymentsSaved, "{payment}", "Payments saved on the POS.")
	accepted := counter(MetricPaymentsAccepted, "{payment}", "Payments accepted at the service.")
	if err != nil {
		return nil, err
	}
	age := func(name, desc string) metric.Float64ObservableGauge {
		if err != nil {
			return nil
		}
		var g metric.Float64ObservableGauge
		g, err = m.Float64ObservableGauge(name, metric.WithUnit("s"), metric.WithDescription(desc))
		return g
	}
	pollLag := age(MetricPollLag, "Time since the last successful payments poll.")
	heartbeatAge := age(MetricHeartbeatAge, "Time since the last successful heartbeat.")
	if err != nil {
		return nil, err
	}

	loc := metric.WithAttributes(AttrLocationID.Int64(a.cfg.LocationID))
	temporary := metric.WithAttributes(AttrLocationID.Int64(a.cfg.LocationID), AttrFailure.String("temporary"))
	permanent := metric.WithAttributes(AttrLocationID.Int64(a.cfg.LocationID), AttrFailure.String("permanent"))
	return m.RegisterCallback(func(_ context.Context, o metric.Observer) error {
		st := a.Stats()
		now := time.Now()
		o.ObserveInt64(queued, int64(st.Queued), loc)
		o.ObserveInt64(sent, int64(st.Sent), loc)
		o.ObserveInt64(failures, int64(st.Retried), temporary)
		o.ObserveInt64(failures, int64(st.Failed), permanent)
		o.ObserveInt64(saved, int64(st.PaymentsSaved), loc)
		o.ObserveInt64(accepted, int64(st.PaymentsAccepted), loc)
		if !st.LastPoll.IsZero() {
			o.ObserveFloat64(pollLag, now.Sub(st.LastPoll).Seconds(), loc)
		}
		if !st.LastHeartbeat.IsZero() {
			o.ObserveFloat64(heartbeatAge, now.Sub(st.LastHeartbeat).Seconds(), loc)
		}
		return nil
	}, queued, sent, failures, saved, accepted, pollLag, heartbeatAge)
}

// unregisterMetrics stops observing the Agent, once it has stopped.
func (a *Agent) unregisterMetrics() {
	if a.metrics != nil {
		_ = a.metrics.Unregister()
	}
}
