package openapi

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"
)

// redoclyCLI is the pinned Redocly CLI that lints the documents. It comes
// from the npm registry, so the test runs only when asked:
//
//	HOSPO_OPENAPI_LINT=1 go test -run TestRedoclyLint ./refserver/openapi
//
// (which is the same as npx --yes @redocly/cli@2.77.0 lint openapi.json
// universal-pos.json in this directory). Warnings pass; errors fail. The
// recommended rules warn that info has no license: the project has not
// chosen one, and the documents do not invent one.
const redoclyCLI = "@redocly/cli@2.77.0"

// spectralCLI is the pinned Spectral CLI, with its OpenAPI ruleset
// (spectral.yaml). It runs under the same switch as Redocly. Warnings pass
// (the recommended rules want a contact and a description on every
// operation); errors fail.
const spectralCLI = "@stoplight/spectral-cli@6.16.3"

func TestRedoclyLint(t *testing.T) {
	npxLint(t, "redocly", []string{"REDOCLY_TELEMETRY=off", "REDOCLY_SUPPRESS_UPDATE_NOTICE=true"},
		redoclyCLI, "lint", "--format=stylish", "openapi.json", "universal-pos.json")
}

func TestSpectralLint(t *testing.T) {
	npxLint(t, "spectral", nil, spectralCLI, "lint", "--ruleset", "spectral.yaml",
		"--fail-severity", "error", "openapi.json", "universal-pos.json")
}

// npxLint runs the pinned linter cli (args[0]) with npx, with env added to
// the environment, when HOSPO_OPENAPI_LINT is set, and fails t when it
// reports an error.
func npxLint(t *testing.T, name string, env []string, args ...string) {
	t.Helper()
	if os.Getenv("HOSPO_OPENAPI_LINT") == "" {
		t.Skip("set HOSPO_OPENAPI_LINT=1 to lint with " + args[0] + " (needs npx and the npm registry)")
	}
	npx, err := exec.LookPath("npx")
	if err != nil {
		t.Fatalf("HOSPO_OPENAPI_LINT is set but npx is not installed: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, npx, append([]string{"--yes"}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s lint failed: %v\n%s", name, err, out)
	}
	t.Logf("%s", out)
}
