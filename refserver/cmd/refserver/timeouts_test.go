package main

import (
	"bufio"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// closedWithin is how long a test waits for the server to close a
// connection: far beyond the timeouts the tests set, so that a slow
// machine cannot fail them, and far below "never", which is what the
// server did without timeouts.
const closedWithin = 30 * time.Second

// Both listeners close connections that stop making progress: one idle
// after a request, one that never finishes its headers, one that never
// sends the body it announced. The timeouts also bound what the test does
// in time (a TLS handshake, a first request), so they are seconds: a busy
// machine must not be taken for a stalled client.
func TestRunClosesStalledConnections(t *testing.T) {
	t.Parallel()
	s := startRun(t, "-db", ":memory:",
		"-idle-timeout", "2s", "-read-header-timeout", "2s", "-read-timeout", "3s")
	host := func(u string) string { return strings.TrimPrefix(strings.TrimPrefix(u, "http://"), "https://") }
	listeners := []struct {
		name string
		dial func(t *testing.T) net.Conn
	}{
		{"HTTP", func(t *testing.T) net.Conn {
			c, err := net.Dial("tcp", host(s.base))
			if err != nil {
				t.Fatal(err)
			}
			return c
		}},
		{"HTTPS", func(t *testing.T) net.Conn {
			c, err := tls.Dial("tcp", host(s.tls), &tls.Config{InsecureSkipVerify: true})
			if err != nil {
				t.Fatal(err)
			}
			return c
		}},
	}
	stalls := []struct {
		name string
		do   func(t *testing.T, c net.Conn, r *bufio.Reader)
	}{
		{"idle after a request", func(t *testing.T, c net.Conn, r *bufio.Reader) {
			write(t, c, "GET /sandbox/ca.pem HTTP/1.1\r\nHost: localhost\r\n\r\n")
			resp, err := http.ReadResponse(r, nil)
			if err != nil {
				t.Fatal(err)
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK || resp.Close {
				t.Fatalf("first request: %d, close %v; want a kept-alive 200", resp.StatusCode, resp.Close)
			}
		}},
		{"headers never finished", func(t *testing.T, c net.Conn, _ *bufio.Reader) {
			write(t, c, "GET /sandbox/ca.pem HTTP/1.1\r\nHost: localhost\r\n")
		}},
		{"body never sent", func(t *testing.T, c net.Conn, _ *bufio.Reader) {
			write(t, c, "POST /sandbox/clock HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{")
		}},
	}
	for _, l := range listeners {
		for _, st := range stalls {
			t.Run(l.name+"/"+st.name, func(t *testing.T) {
				t.Parallel()
				c := l.dial(t)
				defer c.Close()
				r := bufio.NewReader(c)
				st.do(t, c, r)
				// Whatever the server still sends (an error answer, say),
				// the connection must end.
				if err := c.SetReadDeadline(time.Now().Add(closedWithin)); err != nil {
					t.Fatal(err)
				}
				_, err := io.Copy(io.Discard, r)
				if errors.Is(err, os.ErrDeadlineExceeded) {
					t.Fatalf("connection still open after %v", closedWithin)
				}
			})
		}
	}
}

// A response that cannot be written within the write timeout is dropped
// and its connection closed, rather than holding it for as long as the
// handler takes.
func TestRunWriteTimeout(t *testing.T) {
	t.Parallel()
	s := startRun(t, "-db", filepath.Join(t.TempDir(), "write.db"), "-write-timeout", "300ms")
	req, _ := http.NewRequest("POST", s.base+"/sandbox/faults", strings.NewReader(`{"pathPrefix":"/v1/slow","latencyMs":3000}`))
	req.Header.Set("X-Sandbox-Admin-Key", DefaultAdminKey)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("add fault: %v %v", resp, err)
	}
	resp.Body.Close()
	// A new connection: net/http sends a GET again, unasked, when a
	// kept-alive connection closes under it, and the fault would be spent.
	fresh := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err = fresh.Get(s.base + "/v1/slow")
	if err == nil {
		resp.Body.Close()
		t.Fatalf("slow request answered %d after the write timeout; want the connection closed", resp.StatusCode)
	}
}

func write(t *testing.T, c net.Conn, s string) {
	t.Helper()
	if _, err := io.WriteString(c, s); err != nil {
		t.Fatal(err)
	}
}
