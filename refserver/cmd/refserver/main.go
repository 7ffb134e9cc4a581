// Command refserver runs the hospo reference server: the whole service on
// a local SQLite file, with the sandbox admin API and demo credentials.
//
//	go run ./refserver/cmd/refserver -db refserver.db
//
// It prints the base URLs, the admin key, the demo credentials and, when
// an earlier run moved it forward, the virtual clock's lead on start, and
// shuts down gracefully on SIGINT or SIGTERM. A second sandbox beside a
// running one needs its own -addr, -tls-addr and -db; when an address is
// taken, the error names the flag and a free address to give it. With
// -metrics it serves its metrics in the Prometheus text format on a
// listener of their own (loopback only, unless -metrics-public). With
// OTEL_EXPORTER_OTLP_ENDPOINT and the other standard OpenTelemetry
// variables set, it exports traces and metrics over OTLP/HTTP (otlp.go).
// It runs the garbage collector at GOGC=400 unless GOGC is set in the
// environment.
package main

import (
	"context"
	"os"

	"github.com/hospo-dev/hospo-go/internal/cli"
	"github.com/hospo-dev/hospo-go/internal/gcpace"
)

func main() {
	gcpace.Apply(os.Getenv)
	cli.Main(func(ctx context.Context) int {
		return cli.Status("refserver", run(ctx, os.Args[1:], os.Stdout, os.Stderr, nil), os.Stderr)
	})
}
