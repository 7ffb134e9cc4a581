package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"

	"github.com/hospo-dev/hospo-go/refserver/internal/promtext"
)

// metricsServer serves the server's metrics (-metrics) on a listener of
// their own, in the Prometheus text format, read at each scrape from an
// OpenTelemetry meter provider. The zero value, for no -metrics, serves
// nothing and has no provider.
type metricsServer struct {
	mp  *sdkmetric.MeterProvider
	ln  net.Listener
	srv *http.Server
}

// listenMetrics starts the -metrics listener. A metrics page tells
// anyone who reads it the server's routes and load, so an address that
// other machines can reach needs -metrics-public.
func listenMetrics(o options, logger *slog.Logger) (*metricsServer, error) {
	if o.metricsAddr == "" {
		return &metricsServer{}, nil
	}
	ln, err := listen("-metrics", o.metricsAddr)
	if err != nil {
		return nil, err
	}
	if isExposed(ln.Addr()) && !o.metricsPublic {
		ln.Close()
		return nil, fmt.Errorf("refusing -metrics %s, which other machines can reach: listen on a loopback address such as 127.0.0.1:9464, or add -metrics-public", o.metricsAddr)
	}
	reader := sdkmetric.NewManualReader()
	m := &metricsServer{mp: sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader)), ln: ln}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promtext.Handler(reader))
	m.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := m.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			logger.Warn("metrics listener stopped", "err", err)
		}
	}()
	logger.Info("serving metrics", "url", "http://"+ln.Addr().String()+"/metrics")
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

func (m *metricsServer) close() {
	if m.srv == nil {
		return
	}
	_ = m.srv.Close()
	_ = m.mp.Shutdown(context.Background())
}
