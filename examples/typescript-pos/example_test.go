// Package typescriptpos_test runs the TypeScript POS example (pos.ts)
// against an in-process sandbox: it generates the types from the served
// document with the pinned openapi-typescript, compiles with tsc --strict
// and runs the program with node.
package typescriptpos_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/hospo-dev/hospo-go/refserver/refservertest"
)

func TestTypeScriptPOS(t *testing.T) {
	bins, err := filepath.Abs(filepath.Join("node_modules", ".bin"))
	if err != nil {
		t.Fatal(err)
	}
	_, statErr := os.Stat(filepath.Join(bins, "tsc"))
	node, nodeErr := exec.LookPath("node")
	if statErr != nil || nodeErr != nil {
		msg := "node or the example's tools are missing: run npm ci in examples/typescript-pos"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	env := refservertest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()

	// Build in a copy, so the test leaves the example's folder as it was.
	dir := t.TempDir()
	for _, f := range []string{"pos.ts", "tsconfig.json", "package.json"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Dir(bins), filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	run := func(name string, args ...string) string {
		t.Helper()
		cmd := exec.CommandContext(ctx, name, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "HOSPO_BASE_URL="+env.URL, "HOSPO_ADMIN_KEY="+env.AdminKey)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %v: %v\n%s", filepath.Base(name), args, err, out)
		}
		return string(out)
	}
	run(filepath.Join(bins, "openapi-typescript"), env.URL+"/openapi.json", "-o", "schema.d.ts")
	run(filepath.Join(bins, "tsc"), "-p", ".")
	out := run(node, "build/pos.js")
	t.Logf("%s", out)

	for _, want := range []string{
		`(?m)^pushed check \d+ at location \d+: bill \S+, total 1234567\.89$`,
		`(?m)^diner paid 1000000\.01 with a tip of 0\.07: payment \d+$`,
		`(?m)^poll: payment \d+ for check \d+: 1000000\.01 \+ tip 0\.07$`,
		`(?m)^accepted payment \d+$`,
	} {
		if !regexp.MustCompile(want).MatchString(out) {
			t.Errorf("output lacks %s", want)
		}
	}
}
