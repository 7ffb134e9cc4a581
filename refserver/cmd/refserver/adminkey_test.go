package main

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
)

// The well-known default admin key is refused on an address that other
// machines can reach, with a message saying which flag to set; a key of
// one's own is accepted there, and the default is fine on loopback.
func TestRunRefusesTheDefaultAdminKeyOffLoopback(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"-addr", "0.0.0.0:0", "-tls-addr", "127.0.0.1:0"},
		{"-addr", "127.0.0.1:0", "-tls-addr", "0.0.0.0:0"},
		{"-addr", "0.0.0.0:0", "-tls-addr", "127.0.0.1:0", "-admin-key", DefaultAdminKey},
	} {
		ctx, cancel := context.WithCancel(t.Context())
		err := run(ctx, append([]string{"-db", ":memory:"}, args...), io.Discard, io.Discard, func(string, string) {
			cancel() // it should not have started; stop it so the test can fail
		})
		cancel()
		if err == nil || !strings.Contains(err.Error(), "set -admin-key") || !strings.Contains(err.Error(), "addr 0.0.0.0:0") {
			t.Errorf("run %q: %v, want a refusal naming the address and -admin-key", args, err)
		}
	}
	s := startRun(t, "-db", ":memory:", "-addr", "0.0.0.0:0", "-admin-key", "a-key-of-our-own")
	if got := getStatus(t, "http://"+publicAddr(mustTCPAddr(t, s.base))+"/sandbox/ca.pem"); got != http.StatusOK {
		t.Errorf("own key on 0.0.0.0: %d", got)
	}
}

func TestIsExposed(t *testing.T) {
	t.Parallel()
	tests := []struct {
		ip      string
		exposed bool
	}{
		{"127.0.0.1", false},
		{"127.1.2.3", false},
		{"::1", false},
		{"0.0.0.0", true},
		{"::", true},
		{"192.168.1.10", true},
		{"2001:db8::1", true},
	}
	for _, tt := range tests {
		if got := isExposed(&net.TCPAddr{IP: net.ParseIP(tt.ip), Port: 8080}); got != tt.exposed {
			t.Errorf("isExposed(%s) = %v, want %v", tt.ip, got, tt.exposed)
		}
	}
}

func mustTCPAddr(t *testing.T, u string) net.Addr {
	t.Helper()
	a, err := net.ResolveTCPAddr("tcp", strings.TrimPrefix(u, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	return a
}
