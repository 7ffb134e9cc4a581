package client_test

import (
	"context"
	"errors"
	"net"
	"net/url"
	"strings"
	"syscall"
	"testing"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/refserver/refservertest"
	"github.com/hospo-dev/hospo-go/sandbox"
)

// TestE2EBaseURLFix: the sandbox's address without its scheme fails in New
// with the fix, and the fix reaches the sandbox.
func TestE2EBaseURLFix(t *testing.T) {
	t.Parallel()
	env := refservertest.Start(t)
	_, err := client.New(client.WithBaseURL(strings.TrimPrefix(env.URL, "http://")))
	if !errors.Is(err, client.ErrInvalidBaseURL) {
		t.Fatalf("New without scheme: %v, want ErrInvalidBaseURL", err)
	}
	_, fix, ok := strings.Cut(err.Error(), `; use "`)
	if !ok {
		t.Fatalf("New without scheme: %q names no fix", err)
	}
	fix = strings.TrimSuffix(fix, `"`)
	if fix != env.URL {
		t.Errorf("fix %q, want %q", fix, env.URL)
	}
	c, err := client.New(client.WithBaseURL(fix), client.WithAdminKey(env.AdminKey))
	if err != nil {
		t.Fatalf("New with the fix: %v", err)
	}
	if _, err := sandbox.NewService(c).Fixtures(context.Background()); err != nil {
		t.Errorf("a call through the fixed base URL: %v", err)
	}
}

// TestE2ESandboxNotRunning: calls to a sandbox that has stopped fail with
// the hint to start it, the refusal still reachable with errors.Is.
func TestE2ESandboxNotRunning(t *testing.T) {
	t.Parallel()
	var base string
	t.Run("sandbox", func(t *testing.T) {
		base = refservertest.Start(t).URL // stopped when this subtest ends
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.New(client.WithBaseURL(base), client.WithMaxRetries(0), client.WithAdminKey("admin-secret-key-123"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = sandbox.NewService(c).Fixtures(context.Background())
	if !errors.Is(err, syscall.ECONNREFUSED) {
		t.Fatalf("call to a stopped sandbox: %v, want ECONNREFUSED in the chain", err)
	}
	var oe *net.OpError
	if !errors.As(err, &oe) {
		t.Errorf("no *net.OpError in the chain of %v", err)
	}
	want := "(nothing is listening at " + u.Host + ": is the sandbox running? Start it with: go run ./refserver/cmd/refserver -addr 127.0.0.1:" + u.Port() + ")"
	if !strings.HasSuffix(err.Error(), want) {
		t.Errorf("err = %s\nwant it to end with %s", err, want)
	}
	if strings.Contains(err.Error(), "admin-secret-key-123") {
		t.Errorf("err shows the admin key: %s", err)
	}
}
