package main

import (
	"context"
	"errors"
	"io"
	"net"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// occupy listens on a free loopback port for the test's lifetime and
// returns its address.
func occupy(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l.Addr().String()
}

// runRefused runs the command with args after free loopback listeners and
// an in-memory database (so later flags win) and returns its error; should
// it start after all, it stops at once so that the test can fail.
func runRefused(t *testing.T, args ...string) error {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	args = append([]string{"-db", ":memory:", "-addr", "127.0.0.1:0", "-tls-addr", "127.0.0.1:0"}, args...)
	err := run(ctx, args, io.Discard, io.Discard, func(string, string) { cancel() })
	if err == nil {
		t.Fatalf("run %q started on a taken address", args)
	}
	return err
}

// A listener address that is taken (a second sandbox started with only
// -addr finds its HTTPS port held by the first) fails with a message that
// names the flag to change and a free address to give it.
func TestRunNamesTheFlagOfATakenAddress(t *testing.T) {
	t.Parallel()
	for _, flag := range []string{"-tls-addr", "-addr"} {
		t.Run(flag, func(t *testing.T) {
			t.Parallel()
			taken := occupy(t)
			err := runRefused(t, flag, taken)
			msg := err.Error()
			if !strings.HasPrefix(msg, flag+" "+taken+" is in use, most likely by a sandbox already running") {
				t.Errorf("err = %s\nwant it to start by naming %s %s", msg, flag, taken)
			}
			m := regexp.MustCompile(`start this one with ` + flag + ` (\S+), which is free`).FindStringSubmatch(msg)
			if m == nil {
				t.Fatalf("err = %s\nwant a free address to pass to %s", msg, flag)
			}
			host, _, _ := net.SplitHostPort(m[1])
			if m[1] == taken || host != "127.0.0.1" {
				t.Errorf("suggested %s, want another port on 127.0.0.1", m[1])
			}
			if !errors.Is(err, syscall.EADDRINUSE) {
				t.Errorf("err = %v, want it to wrap EADDRINUSE", err)
			}
			if strings.Contains(msg, "-db") {
				t.Errorf("err = %s\nmentions -db for an in-memory database", msg)
			}
		})
	}
}

// Both addresses taken (a second sandbox started with no flags at all):
// one run names both flags, and says that the database must differ too.
func TestRunNamesBothTakenAddressesAndTheDatabase(t *testing.T) {
	t.Parallel()
	addr, tlsAddr := occupy(t), occupy(t)
	err := runRefused(t, "-addr", addr, "-tls-addr", tlsAddr, "-db", "refserver.db")
	msg := err.Error()
	for _, want := range []string{
		"-addr " + addr + " is in use",
		"-tls-addr " + tlsAddr + " is in use",
		"give this one a -db other than refserver.db (another file, or :memory: to keep nothing on disk)",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("err lacks %q:\n%s", want, msg)
		}
	}
}

// A listen failure other than a taken address still names the flag.
func TestRunNamesTheFlagOfABadAddress(t *testing.T) {
	t.Parallel()
	err := runRefused(t, "-tls-addr", "127.0.0.1:99999")
	if msg := err.Error(); !strings.HasPrefix(msg, "-tls-addr 127.0.0.1:99999: ") || strings.Contains(msg, "in use") {
		t.Errorf("err = %s, want it to name -tls-addr and no taken address", msg)
	}
}

func TestFreeAddrNear(t *testing.T) {
	t.Parallel()
	for _, addr := range []string{"no-port", "127.0.0.1:0", "127.0.0.1:http", "127.0.0.1:65535"} {
		if got := freeAddrNear(addr); got != "" {
			t.Errorf("freeAddrNear(%q) = %q, want none", addr, got)
		}
	}
	taken := occupy(t)
	got := freeAddrNear(taken)
	port := func(addr string) (string, int) {
		h, p, _ := net.SplitHostPort(addr)
		n, _ := strconv.Atoi(p)
		return h, n
	}
	_, tp := port(taken)
	if host, gp := port(got); host != "127.0.0.1" || gp <= tp || gp > tp+100 {
		t.Errorf("freeAddrNear(%s) = %q, want one of the next ports on 127.0.0.1", taken, got)
	}
}
