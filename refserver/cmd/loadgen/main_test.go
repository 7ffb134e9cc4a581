package main

import (
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/hospo-dev/hospo-go/refserver/refservertest"
)

// TestLoad runs a small, short load against an in-process sandbox: every
// kind of request must be made, none may fail, and the report must be
// complete. Nothing here depends on how fast anything is.
func TestLoad(t *testing.T) {
	t.Parallel()
	env := refservertest.Start(t)
	var out strings.Builder
	err := run(t.Context(), []string{
		"-url", env.URL, "-admin-key", env.AdminKey,
		"-locations", "3", "-customers", "2", "-open-checks", "2",
		"-push-interval", "20ms", "-poll-interval", "100ms", "-heartbeat-interval", "200ms", "-pay-interval", "50ms",
		"-warmup", "300ms", "-duration", "1500ms", "-timeline",
		"-server-pid", strconv.Itoa(os.Getpid()), // the server runs in this process
	}, &out)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	report := out.String()
	t.Log(report)
	for _, want := range []string{
		"POST /v1/pos/push-pull/check", "GET /v1/pos/push-pull/payments/{id}", "POST /v1/pos/push-pull/heartbeat/{id}",
		"POST /payments/v1/payment", "check pushes:", "errors: 0 ", "peak RSS (VmHWM)",
		"second    starts at  requests", "\n     0 ", "\n     1 ",
	} {
		if !strings.Contains(report, want) {
			t.Errorf("report lacks %q", want)
		}
	}
}

func TestHello(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(helloHandler())
	defer srv.Close()
	o, err := parseFlags([]string{"-hello", "-concurrency", "2", "-warmup", "0s", "-duration", "300ms"}, &strings.Builder{})
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := driveHello(t.Context(), srv.URL, o, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "POST /v1/pos/push-pull/check") {
		t.Errorf("report:\n%s", out.String())
	}
}

func TestFlags(t *testing.T) {
	t.Parallel()
	bad := [][]string{
		{"-url", "http://example.com:8080"},
		{"-url", "http://10.0.0.1"},
		{"-url", "ftp://127.0.0.1"},
		{"-duration", "3h"},
		{"-duration", "0s"},
		{"-locations", "0"},
		{"-push-interval", "0s"},
		{"extra"},
	}
	for _, args := range bad {
		if _, err := parseFlags(args, &strings.Builder{}); err == nil {
			t.Errorf("parseFlags(%q) accepted", args)
		}
	}
	for _, u := range []string{"http://127.0.0.1:8080", "http://localhost:1", "http://[::1]:8080"} {
		if _, err := parseFlags([]string{"-url", u}, &strings.Builder{}); err != nil {
			t.Errorf("parseFlags(-url %s): %v", u, err)
		}
	}
}

func TestRouteOf(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"/v1/pos/push-pull/heartbeat/17":                          "/v1/pos/push-pull/heartbeat/{id}",
		"/ordering/v3/order/0b8f1c9e-8a53-4c55-9a3e-6b1f2f4d8c11": "/ordering/v3/order/{id}",
		"/v1/pos/push-pull/check":                                 "/v1/pos/push-pull/check",
	} {
		if got := routeOf(in); got != want {
			t.Errorf("routeOf(%q) = %q, want %q", in, got, want)
		}
	}
}
