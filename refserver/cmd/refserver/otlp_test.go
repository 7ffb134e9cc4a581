package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"

	colmetricpb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/hospo-dev/hospo-go/internal/bintest"
)

// runAsRefserver, set in the environment of a copy of this test binary,
// makes it the refserver command: main with the arguments it was given.
// The tests below start it as a process of its own, as an operator
// starts the binary, with the environment they want.
const runAsRefserver = "HOSPO_TEST_RUN_AS_REFSERVER"

func init() {
	if os.Getenv(runAsRefserver) == "1" {
		main()
		os.Exit(0)
	}
}

// otlpReceiver is a collector's OTLP/HTTP endpoint: it decodes the
// protobuf bodies and keeps the names of the spans and metrics, and the
// service names, it received.
type otlpReceiver struct {
	mu       sync.Mutex
	spans    []string
	roots    []string // spans without a parent
	metrics  []string
	services []string
}

func (rc *otlpReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil || r.Header.Get("Content-Type") != "application/x-protobuf" {
		http.Error(w, "want a protobuf body", http.StatusBadRequest)
		return
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	var resp proto.Message
	switch r.URL.Path {
	case "/v1/traces":
		var req coltracepb.ExportTraceServiceRequest
		if err := proto.Unmarshal(body, &req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		for _, rs := range req.ResourceSpans {
			for _, a := range rs.GetResource().GetAttributes() {
				if a.Key == "service.name" {
					rc.services = append(rc.services, a.GetValue().GetStringValue())
				}
			}
			for _, ss := range rs.ScopeSpans {
				for _, s := range ss.Spans {
					rc.spans = append(rc.spans, s.Name)
					if len(s.ParentSpanId) == 0 {
						rc.roots = append(rc.roots, s.Name)
					}
				}
			}
		}
		resp = &coltracepb.ExportTraceServiceResponse{}
	case "/v1/metrics":
		var req colmetricpb.ExportMetricsServiceRequest
		if err := proto.Unmarshal(body, &req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		for _, rm := range req.ResourceMetrics {
			for _, sm := range rm.ScopeMetrics {
				for _, m := range sm.Metrics {
					rc.metrics = append(rc.metrics, m.Name)
				}
			}
		}
		resp = &colmetricpb.ExportMetricsServiceResponse{}
	default:
		http.NotFound(w, r)
		return
	}
	b, _ := proto.Marshal(resp)
	w.Header().Set("Content-Type", "application/x-protobuf")
	w.Write(b)
}

// The binary exports its spans and metrics over OTLP/HTTP to the endpoint
// of OTEL_EXPORTER_OTLP_ENDPOINT: a request's server span, a background
// job's run as a root span of its own, and the Go runtime's metrics beside
// the server's. What is still batched at shutdown is sent before it exits.
func TestBinaryExportsOverOTLP(t *testing.T) {
	t.Parallel()
	rc := &otlpReceiver{}
	collector := httptest.NewServer(rc)
	defer collector.Close()

	cmd := exec.Command(os.Args[0], "-db", ":memory:", "-addr", "127.0.0.1:0", "-tls-addr", "127.0.0.1:0", "-log-level", "warn")
	cmd.Env = append(os.Environ(), runAsRefserver+"=1",
		"OTEL_EXPORTER_OTLP_ENDPOINT="+collector.URL,
		"OTEL_SERVICE_NAME=sandbox-under-test",
		"OTEL_METRIC_EXPORT_INTERVAL=3600000", // only the export at shutdown
	)
	srv := bintest.Start(t, cmd)
	base := srv.URL

	if got := getStatus(t, base+"/v1/location/1"); got != http.StatusOK {
		t.Fatalf("GET /v1/location/1: %d", got)
	}
	req, _ := http.NewRequest(http.MethodPost, base+"/sandbox/clock", strings.NewReader(`{"advanceSeconds":60}`))
	req.Header.Set("X-Sandbox-Admin-Key", DefaultAdminKey)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST /sandbox/clock: %d", resp.StatusCode)
	}

	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("refserver: %v\n%s", err, srv.Stderr)
	}

	rc.mu.Lock()
	defer rc.mu.Unlock()
	for _, want := range []string{"GET /v1/location/{locationId}", "POST /sandbox/clock"} {
		if !slices.Contains(rc.roots, want) {
			t.Errorf("no root span %q among %v", want, rc.roots)
		}
	}
	if !slices.Contains(rc.roots, "sandbox diners") || !slices.Contains(rc.roots, "retention sweep") {
		t.Errorf("the background jobs' runs are not root spans of their own: roots %v", rc.roots)
	}
	// The calls to the demo universal POS (this very server) carry the
	// trace context of the monitor's checks.
	for _, stray := range []string{"store write transaction", "GET /sandbox/demo-pos/*"} {
		if slices.Contains(rc.roots, stray) {
			t.Errorf("%q is a root span: roots %v", stray, rc.roots)
		}
	}
	if !slices.Contains(rc.spans, "GET /sandbox/demo-pos/*") {
		t.Errorf("no span of a call to the demo POS: %v", rc.spans)
	}
	if len(rc.services) == 0 || slices.ContainsFunc(rc.services, func(s string) bool { return s != "sandbox-under-test" }) {
		t.Errorf("service names %v, want OTEL_SERVICE_NAME's", rc.services)
	}
	for _, want := range []string{"http.server.request.duration", "go.goroutine.count"} {
		if !slices.Contains(rc.metrics, want) {
			t.Errorf("no metric %q among %v", want, rc.metrics)
		}
	}
}

// An OTLP protocol the server does not speak stops it at start, rather
// than losing the telemetry.
func TestBinaryRefusesAnotherOTLPProtocol(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(os.Args[0], "-db", ":memory:", "-addr", "127.0.0.1:0", "-tls-addr", "127.0.0.1:0")
	cmd.Env = append(os.Environ(), runAsRefserver+"=1",
		"OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:1", "OTEL_EXPORTER_OTLP_PROTOCOL=grpc")
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "OTEL_EXPORTER_OTLP_PROTOCOL=grpc") {
		t.Fatalf("refserver with OTLP over grpc: %v\n%s", err, out)
	}
}
