package sandbox

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// sdkPackages are the SDK's packages, for programs that talk to the
// service or drive a sandbox running elsewhere (CI jobs, scripts). events
// is checked once it exists.
var sdkPackages = []string{"client", "wallet", "bills", "possync", "fulfillment", "universalpos", "sandbox", "events"}

// The SDK must build without cgo and without the server: nothing under
// refserver/, no SQLite driver, and no cgo outside the standard library
// (whose net package has a pure-Go fallback). Its telemetry uses the
// OpenTelemetry API only: the SDK and the exporters are the program's
// choice, never pulled in by a library.
func TestNoServerCgoOrTelemetrySDKDependency(t *testing.T) {
	t.Parallel()
	for _, pkg := range sdkPackages {
		if _, err := os.Stat("../" + pkg); err != nil {
			continue
		}
		t.Run(pkg, func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}} {{.Standard}} {{len .CgoFiles}}", "github.com/hospo-dev/hospo-go/"+pkg)
			cmd.Env = append(os.Environ(), "CGO_ENABLED=1")
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("go list -deps: %v", err)
			}
			var n int
			var otelAPI bool
			for line := range strings.Lines(string(out)) {
				f := strings.Fields(line)
				if len(f) != 3 {
					t.Fatalf("go list: unexpected line %q", line)
				}
				path, std, cgoFiles := f[0], f[1] == "true", f[2]
				n++
				switch {
				case strings.HasPrefix(path, "github.com/hospo-dev/hospo-go/refserver"):
					t.Errorf("depends on the server: %s", path)
				case strings.Contains(path, "go-sqlite3"):
					t.Errorf("depends on the SQLite driver: %s", path)
				case strings.HasPrefix(path, "go.opentelemetry.io/otel/sdk"),
					strings.HasPrefix(path, "go.opentelemetry.io/otel/exporters"):
					t.Errorf("depends on an OpenTelemetry SDK or exporter: %s", path)
				case !std && cgoFiles != "0":
					t.Errorf("depends on a cgo package: %s", path)
				}
				otelAPI = otelAPI || path == "go.opentelemetry.io/otel/trace"
			}
			if n < 10 {
				t.Errorf("go list found only %d packages; is the test looking at the right one?", n)
			}
			// Every area package reaches the API through client; seeing it
			// shows the scan covers the telemetry imports.
			if !otelAPI {
				t.Errorf("the OpenTelemetry trace API is not among the dependencies; is the test looking at the right package?")
			}
		})
	}
}
