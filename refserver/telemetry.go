package refserver

import (
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// InstrumentationName is the name of the tracer and meter the server gets
// from Config's providers.
const InstrumentationName = "github.com/hospo-dev/hospo-go/refserver"

// telemetry returns the tracer and meter of the configured providers (nil
// for a provider not set) and fills in the default propagator.
func (cfg *Config) telemetry() (trace.Tracer, metric.Meter) {
	if cfg.Propagator == nil {
		cfg.Propagator = propagation.TraceContext{}
	}
	var tracer trace.Tracer
	var meter metric.Meter
	if cfg.TracerProvider != nil {
		tracer = cfg.TracerProvider.Tracer(InstrumentationName)
	}
	if cfg.MeterProvider != nil {
		meter = cfg.MeterProvider.Meter(InstrumentationName)
	}
	return tracer, meter
}
