package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"go.opentelemetry.io/contrib/instrumentation/runtime"
	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"

	"github.com/hospo-dev/hospo-go/refserver/internal/promtext"
)

// metricsServer serves the server's metrics (-metrics) on a listener of
// their own, in the Prometheus text format, read at each scrape from an
// OpenTelemetry meter provider, and hands the same provider's metrics to
// the readers that export them (OTLP, otlp.go). Go runtime and process
// metrics come with the server's own. The zero value, for neither, serves
// nothing and has no provider.
type metricsServer struct {
	mp  *sdkmetric.MeterProvider
	ln  net.Listener
	srv *http.Server
}

// listenMetrics starts the -metrics listener, if asked for, and the meter
// provider when there is -metrics or an exporting reader. A metrics page
// tells anyone who reads it the server's routes and load, so an address
// that other machines can reach needs -metrics-public.
func listenMetrics(o options, logger *slog.Logger, exporting []sdkmetric.Reader, res *resource.Resource) (*metricsServer, error) {
	if o.metricsAddr == "" && len(exporting) == 0 {
		return &metricsServer{}, nil
	}
	opts := []sdkmetric.Option{}
	for _, r := range exporting {
		opts = append(opts, sdkmetric.WithReader(r))
	}
	if res != nil {
		opts = append(opts, sdkmetric.WithResource(res))
	}
	m := &metricsServer{}
	var scrape *sdkmetric.ManualReader
	if o.metricsAddr != "" {
		ln, err := listen("-metrics", o.metricsAddr)
		if err != nil {
			return nil, err
		}
		if isExposed(ln.Addr()) && !o.metricsPublic {
			ln.Close()
			return nil, fmt.Errorf("refusing -metrics %s, which other machines can reach: listen on a loopback address such as 127.0.0.1:9464, or add -metrics-public", o.metricsAddr)
		}
		m.ln = ln
		scrape = sdkmetric.NewManualReader()
		opts = append(opts, sdkmetric.WithReader(scrape))
	}
	m.mp = sdkmetric.NewMeterProvider(opts...)
	if err := runtime.Start(runtime.WithMeterProvider(m.mp)); err != nil {
		m.close()
		return nil, fmt.Errorf("runtime metrics of Go: %w", err)
	}
	if err := recordProcessMetrics(m.mp); err != nil {
		m.close()
		return nil, fmt.Errorf("process metrics: %w", err)
	}
	if scrape == nil {
		return m, nil
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promtext.Handler(scrape))
	m.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := m.srv.Serve(m.ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			logger.Warn("metrics listener stopped", "err", err)
		}
	}()
	logger.Info("serving metrics", "url", "http://"+m.ln.Addr().String()+"/metrics")
	return m, nil
}

// provider returns the meter provider for refserver.Config, nil without
// -metrics (a nil interface, not a nil pointer in one).
func (m *metricsServer) provider() metric.MeterProvider {
	if m.mp == nil {
		return nil
	}
	return m.mp
}

// close stops the listener and shuts the provider down, which exports
// what the exporting readers still hold.
func (m *metricsServer) close() {
	if m.srv != nil {
		_ = m.srv.Close()
	} else if m.ln != nil {
		_ = m.ln.Close()
	}
	if m.mp != nil {
		_ = m.mp.Shutdown(context.Background())
	}
}
