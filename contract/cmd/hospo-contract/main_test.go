package main

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/contract"
	"github.com/hospo-dev/hospo-go/internal/bintest"
	"github.com/hospo-dev/hospo-go/refserver/refservertest"
	"github.com/hospo-dev/hospo-go/sandbox"
)

func env(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

func TestUsageErrors(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{},
		{"-base-url", "http://127.0.0.1:1"},
		{"-base-url", "http://127.0.0.1:1", "-admin-key", "k", "-access-token", "t"},
		{"-base-url", "http://127.0.0.1:1", "-admin-key", "k", "extra"},
		{"-base-url", "http://127.0.0.1:1", "-admin-key", "k", "-only", "no/such-check"},
		{"-no-such-flag"},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), args, env(nil), &stdout, &stderr); code != 2 {
			t.Errorf("run(%q) = %d, want 2; stderr %s", args, code, stderr.String())
		}
	}
}

func TestList(t *testing.T) {
	t.Parallel()
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"-list"}, env(nil), &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if got, want := strings.Count(stdout.String(), "\n"), len(contract.Checks()); got != want {
		t.Errorf("-list printed %d lines, want %d", got, want)
	}
}

// In-process: the admin key from the environment, -json on stdout and
// -junit to a file; exit 0 when every check passes, 1 (naming the check)
// when a fault makes one fail.
func TestRunAgainstRefserver(t *testing.T) {
	t.Parallel()
	srv := refservertest.Start(t)
	junit := filepath.Join(t.TempDir(), "contract.xml")
	args := []string{"-base-url", srv.URL, "-json", "-junit", junit, "-only", "wallet/get,pos/push-check,bills/get-scopes"}
	var stdout, stderr bytes.Buffer
	if code := run(t.Context(), args, env(map[string]string{"HOSPO_ADMIN_KEY": srv.AdminKey}), &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, stderr.String(), stdout.String())
	}
	var rep contract.Report
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatalf("-json output: %v\n%s", err, stdout.String())
	}
	if rep.Summary.Passed != 3 || rep.Mode != "sandbox" {
		t.Errorf("report %+v", rep.Summary)
	}
	data, err := os.ReadFile(junit)
	if err != nil {
		t.Fatal(err)
	}
	var doc contract.JUnit
	if err := xml.Unmarshal(data, &doc); err != nil || doc.Tests != 3 {
		t.Errorf("JUnit file: %v, %d tests", err, doc.Tests)
	}

	admin := sandbox.NewService(srv.Client(t, client.WithAdminKey(srv.AdminKey)))
	if _, err := admin.AddFault(t.Context(), sandbox.FaultRequest{Method: "GET", PathPrefix: "/v3/bill/", Status: 500}); err != nil {
		t.Fatal(err)
	}
	stdout.Reset()
	if code := run(t.Context(), []string{"-base-url", srv.URL, "-only", "bills/get-scopes"}, env(map[string]string{"HOSPO_ADMIN_KEY": srv.AdminKey}), &stdout, &stderr); code != 1 {
		t.Errorf("with a fault: exit %d, want 1", code)
	}
	if !strings.Contains(stdout.String(), "FAIL bills/get-scopes") {
		t.Errorf("with a fault:\n%s", stdout.String())
	}
}

// The built command passes against the built refserver.
func TestBinaryAgainstRefserverBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds two binaries")
	}
	t.Parallel()
	dir := t.TempDir()
	refserver := bintest.Build(t, dir, "./refserver/cmd/refserver")
	hospoContract := bintest.Build(t, dir, "./contract/cmd/hospo-contract")
	base := startRefserver(t, refserver)

	junit := filepath.Join(dir, "contract.xml")
	cmd := exec.Command(hospoContract, "-base-url", base, "-junit", junit)
	cmd.Env = append(os.Environ(), "HOSPO_ADMIN_KEY=binary-admin-key")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("hospo-contract: %v\n%s", err, out)
	}
	summary := strings.Fields(lastLine(string(out)))
	if len(summary) < 7 || summary[4] != "0" || summary[6] != "0" {
		t.Errorf("summary %q, want no failures and no skips:\n%s", lastLine(string(out)), out)
	}
	data, err := os.ReadFile(junit)
	if err != nil {
		t.Fatal(err)
	}
	var doc contract.JUnit
	if err := xml.Unmarshal(data, &doc); err != nil || doc.Tests != len(contract.Checks()) || doc.Failures != 0 {
		t.Errorf("JUnit file: %v, %d tests, %d failures", err, doc.Tests, doc.Failures)
	}
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// startRefserver starts the refserver binary on an in-memory database and
// free ports, and returns its HTTP base URL once its banner names it.
func startRefserver(t *testing.T, bin string) string {
	t.Helper()
	return bintest.Start(t, exec.Command(bin, "-db", ":memory:", "-addr", "127.0.0.1:0", "-tls-addr", "127.0.0.1:0",
		"-admin-key", "binary-admin-key", "-log-level", "warn")).URL
}
