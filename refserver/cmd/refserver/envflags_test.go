package main

import (
	"context"
	"flag"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
)

func envMap(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

// Every flag but -version has its REFSERVER_ variable, in upper snake
// case; the command line wins over it, whichever kind the flag is.
func TestFlagsFromEnvironment(t *testing.T) {
	t.Parallel()
	env := map[string]string{
		"REFSERVER_ADDR":                "0.0.0.0:9000",
		"REFSERVER_TLS_ADDR":            "0.0.0.0:9443",
		"REFSERVER_DB":                  "/data/refserver.db",
		"REFSERVER_ADMIN_KEY":           "from-env",
		"REFSERVER_RATE_LIMIT":          "2.5",
		"REFSERVER_MAX_IN_FLIGHT":       "7",
		"REFSERVER_MAX_SNAPSHOTS":       "3",
		"REFSERVER_MAX_SNAPSHOTS_BYTES": "1048576",
		"REFSERVER_POS_HEALTH_INTERVAL": "3s",
		"REFSERVER_VALIDATE":            "true",
		"REFSERVER_ADMIN_HOST":          "sandbox.example,docker",
	}
	o, err := parseFlags(nil, io.Discard, envMap(env))
	if err != nil {
		t.Fatal(err)
	}
	if o.addr != "0.0.0.0:9000" || o.tlsAddr != "0.0.0.0:9443" || o.db != "/data/refserver.db" || o.adminKey != "from-env" ||
		o.rateLimit != 2.5 || o.maxInFlight != 7 || o.maxSnapshots != 3 || o.maxSnapshotsBytes != 1<<20 || o.posHealthInterval != 3*time.Second || !o.validate ||
		!slices.Equal(o.adminHosts, []string{"sandbox.example", "docker"}) {
		t.Errorf("from the environment: %+v", o)
	}

	o, err = parseFlags([]string{"-admin-key", "from-flag", "-admin-host", "cli.example", "-validate=false"}, io.Discard, envMap(env))
	if err != nil {
		t.Fatal(err)
	}
	if o.adminKey != "from-flag" || !slices.Equal(o.adminHosts, []string{"cli.example"}) || o.validate || o.addr != "0.0.0.0:9000" {
		t.Errorf("the command line should win flag by flag: %+v", o)
	}
}

// Each flag's variable is the one the documentation promises.
func TestEveryFlagHasItsVariable(t *testing.T) {
	t.Parallel()
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	fs.String("admin-key", "", "")
	fs.Duration("read-header-timeout", 0, "")
	fs.Bool("version", false, "")
	var seen []string
	if err := setFromEnv(fs, func(k string) (string, bool) { seen = append(seen, k); return "", false }); err != nil {
		t.Fatal(err)
	}
	if want := []string{"REFSERVER_ADMIN_KEY", "REFSERVER_READ_HEADER_TIMEOUT"}; !slices.Equal(seen, want) {
		t.Errorf("looked up %q, want %q (and never REFSERVER_VERSION)", seen, want)
	}
}

// An invalid value names its variable, and is checked like the flag's.
func TestFlagsFromEnvironmentRejectBadValues(t *testing.T) {
	t.Parallel()
	for env, want := range map[string]string{
		"REFSERVER_RATE_LIMIT": `REFSERVER_RATE_LIMIT="fast" (for -rate-limit)`,
		"REFSERVER_ADMIN_KEY":  "-admin-key must not be empty",
	} {
		val := map[string]string{"REFSERVER_RATE_LIMIT": "fast", "REFSERVER_ADMIN_KEY": ""}[env]
		_, err := parseFlags(nil, io.Discard, envMap(map[string]string{env: val}))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s=%q: %v, want %q", env, val, err, want)
		}
	}
}

// -help says that the variables exist.
func TestHelpNamesTheVariables(t *testing.T) {
	t.Parallel()
	var out strings.Builder
	if _, err := parseFlags([]string{"-help"}, &out, envMap(nil)); err != flag.ErrHelp {
		t.Fatalf("-help: %v", err)
	}
	if !strings.Contains(out.String(), "REFSERVER_ADMIN_KEY") || !strings.Contains(out.String(), "-tls-addr") {
		t.Errorf("-help:\n%s", out.String())
	}
}

// In a container the server listens on 0.0.0.0 and is configured by its
// environment: a key of one's own given there is accepted on 0.0.0.0,
// and the well-known default still is not.
func TestAdminKeyFromEnvironmentOnAllInterfaces(t *testing.T) {
	t.Setenv("REFSERVER_ADDR", "0.0.0.0:0")
	t.Setenv("REFSERVER_TLS_ADDR", "0.0.0.0:0")
	t.Setenv("REFSERVER_DB", ":memory:")

	t.Setenv("REFSERVER_ADMIN_KEY", DefaultAdminKey)
	err := run(t.Context(), nil, io.Discard, io.Discard, func(string, string) { t.Error("served with the default key on 0.0.0.0") })
	if err == nil || !strings.Contains(err.Error(), "set -admin-key") {
		t.Errorf("default key on 0.0.0.0 from the environment: %v", err)
	}

	t.Setenv("REFSERVER_ADMIN_KEY", "container-key")
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	ready := make(chan string, 1)
	go func() {
		done <- run(ctx, nil, io.Discard, io.Discard, func(h, _ string) { ready <- h })
	}()
	select {
	case h := <-ready:
		req, _ := http.NewRequest(http.MethodGet, "http://"+publicAddr(mustTCPAddr(t, "http://"+h))+"/sandbox/fixtures", nil)
		req.Header.Set("X-Sandbox-Admin-Key", "container-key")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("admin API with the key from the environment: %d", resp.StatusCode)
		}
	case err := <-done:
		t.Fatalf("own key from the environment on 0.0.0.0: %v", err)
	}
	cancel()
	if err := <-done; err != nil {
		t.Error(err)
	}
}
