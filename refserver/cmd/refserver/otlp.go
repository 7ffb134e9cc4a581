package main

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// OTLP export is configured the way every OpenTelemetry SDK is, by the
// standard environment variables, so the server fits any collector
// without flags of its own: OTEL_EXPORTER_OTLP_ENDPOINT (or the
// _TRACES_/_METRICS_ ones) turns export on, over HTTP with protobuf
// bodies; OTEL_EXPORTER_OTLP_HEADERS, _TIMEOUT, _COMPRESSION and the
// certificate variables are read by the exporters; OTEL_SERVICE_NAME and
// OTEL_RESOURCE_ATTRIBUTES name the service (default "refserver");
// OTEL_TRACES_EXPORTER or OTEL_METRICS_EXPORTER "none" turns one signal
// off, and OTEL_SDK_DISABLED=true both. The batch span processor and the
// periodic metric reader read their own variables
// (OTEL_BSP_SCHEDULE_DELAY, OTEL_METRIC_EXPORT_INTERVAL, ...).

// otlpExport is the OTLP side of the server's telemetry; its zero value
// exports nothing.
type otlpExport struct {
	tp     *sdktrace.TracerProvider
	reader sdkmetric.Reader   // nil: no metrics export
	res    *resource.Resource // the metrics' resource, with reader
}

// startOTLP sets up OTLP export as the environment (getenv) asks; export
// errors go to logger.
func startOTLP(ctx context.Context, getenv func(string) string, logger *slog.Logger) (*otlpExport, error) {
	e := &otlpExport{}
	if strings.EqualFold(getenv("OTEL_SDK_DISABLED"), "true") {
		return e, nil
	}
	traces := otlpWanted(getenv, "TRACES")
	metrics := otlpWanted(getenv, "METRICS")
	if !traces && !metrics {
		return e, nil
	}
	for _, name := range []string{"OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_METRICS_PROTOCOL"} {
		if p := getenv(name); p != "" && p != "http/protobuf" {
			// Refused at start rather than telemetry silently lost.
			return nil, fmt.Errorf("%s=%s: the server exports OTLP over http/protobuf only", name, p)
		}
	}
	// resource.Environment reads OTEL_RESOURCE_ATTRIBUTES and
	// OTEL_SERVICE_NAME, which win over the default name.
	res, err := resource.Merge(resource.NewSchemaless(attribute.String("service.name", "refserver")), resource.Environment())
	if err != nil {
		return nil, fmt.Errorf("OTEL_RESOURCE_ATTRIBUTES: %w", err)
	}
	// The SDK reports export failures through its global handler, whose
	// default writes to the standard logger; the server has its own.
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) {
		logger.Warn("telemetry export failed", "err", err)
	}))
	if traces {
		exp, err := otlptracehttp.New(ctx)
		if err != nil {
			return nil, fmt.Errorf("OTLP trace exporter: %w", err)
		}
		e.tp = sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	}
	if metrics {
		exp, err := otlpmetrichttp.New(ctx)
		if err != nil {
			_ = e.shutdown(ctx)
			return nil, fmt.Errorf("OTLP metric exporter: %w", err)
		}
		e.reader = sdkmetric.NewPeriodicReader(exp)
		e.res = res
	}
	return e, nil
}

// otlpWanted reports whether signal ("TRACES" or "METRICS") is to be
// exported: an OTLP endpoint is set for it and its exporter is not
// turned off.
func otlpWanted(getenv func(string) string, signal string) bool {
	if getenv("OTEL_EXPORTER_OTLP_ENDPOINT") == "" && getenv("OTEL_EXPORTER_OTLP_"+signal+"_ENDPOINT") == "" {
		return false
	}
	exporter := strings.ToLower(getenv("OTEL_" + signal + "_EXPORTER"))
	return exporter == "" || exporter == "otlp"
}

// tracerProvider returns the provider for refserver.Config, nil without
// trace export (a nil interface, not a nil pointer in one).
func (e *otlpExport) tracerProvider() trace.TracerProvider {
	if e.tp == nil {
		return nil
	}
	return e.tp
}

// metricReaders returns the reader that exports metrics, if any, for the
// server's meter provider.
func (e *otlpExport) metricReaders() []sdkmetric.Reader {
	if e.reader == nil {
		return nil
	}
	return []sdkmetric.Reader{e.reader}
}

// shutdown flushes the spans still batched and stops trace export. The
// metric reader is shut down with its meter provider.
func (e *otlpExport) shutdown(ctx context.Context) error {
	if e.tp == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	return e.tp.Shutdown(ctx)
}
