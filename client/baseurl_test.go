package client

import (
	"context"
	"errors"
	"net"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/jarcoal/httpmock"

	"github.com/hospo-dev/hospo-go/internal/sdktest"
)

func TestBaseURLMistakes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		base string
		want string // the whole error text
	}{
		{"127.0.0.1:8080", `hospo: base URL "127.0.0.1:8080" is not an absolute URL (no http:// or https://); use "http://127.0.0.1:8080"`},
		{"localhost:8080/prefix", `hospo: base URL "localhost:8080/prefix" is not an absolute URL (no http:// or https://); use "http://localhost:8080/prefix"`},
		{"[::1]:8080", `hospo: base URL "[::1]:8080" is not an absolute URL (no http:// or https://); use "http://[::1]:8080"`},
		{"api.example.com", `hospo: base URL "api.example.com" is not an absolute URL (no http:// or https://); use "https://api.example.com"`},
		{"api.example.com:443", `hospo: base URL "api.example.com:443" is not an absolute URL (no http:// or https://); use "https://api.example.com:443"`},
		{"//api.example.com/v", `hospo: base URL "//api.example.com/v" is not an absolute URL (no http:// or https://); use "https://api.example.com/v"`},
		{"http:/127.0.0.1:8080", `hospo: base URL "http:/127.0.0.1:8080" is malformed; use "http://127.0.0.1:8080"`},
		{"HTTPS:api.example.com", `hospo: base URL "HTTPS:api.example.com" is malformed; use "https://api.example.com"`},
		{"http//127.0.0.1:8080", `hospo: base URL "http//127.0.0.1:8080" is malformed; use "http://127.0.0.1:8080"`},
		{"http://", `hospo: base URL "http://" has no host; use a URL such as "https://api.example.com/" or, for the sandbox, "http://127.0.0.1:8080"`},
		{"https:///v1", `hospo: base URL "https:///v1" has no host; use a URL such as "https://api.example.com/" or, for the sandbox, "http://127.0.0.1:8080"`},
		{"ftp://api.example.com/v1", `hospo: base URL "ftp://api.example.com/v1" has the scheme "ftp"; the service speaks http or https; use "https://api.example.com/v1"`},
		{"ws://localhost:8080", `hospo: base URL "ws://localhost:8080" has the scheme "ws"; the service speaks http or https; use "http://localhost:8080"`},
		{"https://api.example.com/?v=1#top", `hospo: base URL "https://api.example.com/?v=1#top" must not have a query: request paths and their queries are added to it; use "https://api.example.com/"`},
		{"https://api.example.com/v1?", `hospo: base URL "https://api.example.com/v1?" must not have a query: request paths and their queries are added to it; use "https://api.example.com/v1"`},
		{"https://h/?accessToken=secret-token", `hospo: base URL "https://h/?accessToken=REDACTED" must not have a query: request paths and their queries are added to it; use "https://h/"`},
		{"https://api.example.com/v1#docs", `hospo: base URL "https://api.example.com/v1#docs" must not have a fragment; use "https://api.example.com/v1"`},
		{" http://127.0.0.1:8080\n", `hospo: base URL " http://127.0.0.1:8080\n" has spaces around it; use "http://127.0.0.1:8080"`},
		{"http://exa mple.com", `hospo: base URL "http://exa mple.com" is not a valid URL: invalid character " " in host name`},
		{"user:hunter2@127.0.0.1:8080", `hospo: base URL "user:REDACTED@127.0.0.1:8080" is not an absolute URL (no http:// or https://); use "http://user:REDACTED@127.0.0.1:8080"`},
	}
	for _, tt := range tests {
		_, err := New(WithBaseURL(tt.base))
		if !errors.Is(err, ErrInvalidBaseURL) {
			t.Errorf("New(WithBaseURL(%q)): %v, want ErrInvalidBaseURL", tt.base, err)
			continue
		}
		if got := strings.ReplaceAll(err.Error(), "\n", `\n`); got != strings.ReplaceAll(tt.want, "\n", `\n`) {
			t.Errorf("New(WithBaseURL(%q)):\n got %s\nwant %s", tt.base, got, tt.want)
		}
	}
}

func TestBaseURLsAccepted(t *testing.T) {
	t.Parallel()
	tests := []struct{ base, want string }{
		{"http://127.0.0.1:8080", "http://127.0.0.1:8080/"},
		{"HTTP://LOCALHOST:8080/p", "http://LOCALHOST:8080/p/"},
		{"http://[::1]:8080/", "http://[::1]:8080/"},
		{"https://api.example.com/v1/", "https://api.example.com/v1/"},
		{"https://api.example.com/a%2Fb", "https://api.example.com/a%2Fb/"},
	}
	for _, tt := range tests {
		c, err := New(WithBaseURL(tt.base))
		if err != nil {
			t.Errorf("New(WithBaseURL(%q)): %v", tt.base, err)
			continue
		}
		if got := c.BaseURL().String(); got != tt.want {
			t.Errorf("New(WithBaseURL(%q)).BaseURL() = %s, want %s", tt.base, got, tt.want)
		}
	}
}

// A per-call base URL is checked the same way, and nothing is sent.
func TestPerCallBaseURLMistake(t *testing.T) {
	t.Parallel()
	c, m := newMockClient(t)
	_, err := c.Do(context.Background(), &Request{Path: "v1/x"}, nil, WithBaseURL("127.0.0.1:9090"))
	if !errors.Is(err, ErrInvalidBaseURL) || !strings.Contains(err.Error(), `use "http://127.0.0.1:9090"`) {
		t.Errorf("Do with a per-call base URL without scheme: %v", err)
	}
	if n := m.Calls(); n != 0 {
		t.Errorf("%d requests sent", n)
	}
}

// refused is the error of a dial to a port nobody listens on.
var refused = &net.OpError{Op: "dial", Net: "tcp", Err: &os.SyscallError{Syscall: "connect", Err: syscall.ECONNREFUSED}}

func TestSandboxHintOnRefusedConnection(t *testing.T) {
	t.Parallel()
	const hint = "is the sandbox running? Start it with: go run ./refserver/cmd/refserver"
	timeout := &net.OpError{Op: "dial", Net: "tcp", Err: os.ErrDeadlineExceeded}
	tests := []struct {
		name     string
		base     string
		perCall  string // per-call base URL, if any
		err      error
		wantHint string // "" for none
	}{
		{"default sandbox URL", "", "", refused,
			"(nothing is listening at 127.0.0.1:8080: " + hint + ")"},
		{"localhost on another port", "http://localhost:9090/", "", refused,
			"(nothing is listening at localhost:9090: " + hint + " -addr 127.0.0.1:9090)"},
		{"per-call loopback base URL", "https://api.test/", "http://[::1]:8080", refused,
			"(nothing is listening at [::1]:8080: " + hint + ")"},
		{"remote host", "https://api.test/", "", refused, ""},
		{"loopback, another failure", "", "", timeout, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m := sdktest.NewMock()
			m.Transport.RegisterNoResponder(httpmock.NewErrorResponder(tt.err))
			opts := []Option{WithHTTPClient(m.HTTPClient), WithMaxRetries(0), WithAccessToken("tok-secret-123456")}
			if tt.base != "" {
				opts = append(opts, WithBaseURL(tt.base))
			}
			c, err := New(opts...)
			if err != nil {
				t.Fatal(err)
			}
			var callOpts []Option
			if tt.perCall != "" {
				callOpts = append(callOpts, WithBaseURL(tt.perCall))
			}
			_, err = c.Do(context.Background(), &Request{Path: "v1/wallet", Auth: AuthAccessToken}, nil, callOpts...)
			if err == nil {
				t.Fatal("Do succeeded")
			}
			if !errors.Is(err, tt.err) && !errors.Is(err, syscall.ECONNREFUSED) {
				t.Errorf("err = %v, the cause is not reachable with errors.Is", err)
			}
			var oe *net.OpError
			if !errors.As(err, &oe) {
				t.Errorf("err = %v, no *net.OpError in the chain", err)
			}
			msg := err.Error()
			if strings.Contains(msg, "tok-secret-123456") {
				t.Errorf("err shows the token: %s", msg)
			}
			switch {
			case tt.wantHint == "" && strings.Contains(msg, "sandbox"):
				t.Errorf("err = %s, want no sandbox hint", msg)
			case tt.wantHint != "" && !strings.HasSuffix(msg, tt.wantHint):
				t.Errorf("err = %s\nwant it to end with %s", msg, tt.wantHint)
			}
		})
	}
}
