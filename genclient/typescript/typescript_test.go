package typescript_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/hospo-dev/hospo-go/genclient/internal/served"
)

// nodeTool returns the path of a pinned tool installed by npm ci in this
// directory. Without it the test skips, except under CI=true, where .ci/run
// installs the tools and a missing one is a failure.
func nodeTool(t *testing.T, name string) string {
	t.Helper()
	bin, err := filepath.Abs(filepath.Join("node_modules", ".bin", name))
	if err != nil {
		t.Fatal(err)
	}
	_, statErr := os.Stat(bin)
	_, nodeErr := exec.LookPath("node")
	if statErr == nil && nodeErr == nil {
		return bin
	}
	msg := name + " is not installed: run npm ci in genclient/typescript (needs node and npm)"
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// The types openapi-typescript (pinned in package.json) generates from the
// served document accept the right bodies of bodies.ts and refuse every
// wrong one under tsc --strict: each wrong body is marked @ts-expect-error,
// and tsc fails on a directive whose line is not an error.
func TestTypeScriptTypesRefuseWrongBodies(t *testing.T) {
	gen, tsc := nodeTool(t, "openapi-typescript"), nodeTool(t, "tsc")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	dir := t.TempDir()
	spec := served.Document(t, dir)
	run(ctx, t, "", gen, spec, "-o", filepath.Join(dir, "schema.d.ts"))
	for _, f := range []string{"bodies.ts", "tsconfig.json"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	run(ctx, t, dir, tsc, "-p", dir)
}

func run(ctx context.Context, t *testing.T, dir, name string, args ...string) {
	t.Helper()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %v: %v\n%s", filepath.Base(name), args, err, out)
	}
}
