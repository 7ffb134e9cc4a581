package outbound

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/hospo-dev/hospo-go/universalpos"
)

func TestPublicPOSErrorNamesNoAddress(t *testing.T) {
	t.Parallel()
	urlErr := &url.Error{Op: "Get", URL: "https://pos.example.internal:9443/secret/path/health", Err: errors.New("x509: certificate is valid for a.internal, not pos.example.internal")}
	dnsErr := &url.Error{Op: "Get", URL: "https://pos.example.internal/h", Err: &net.DNSError{Err: "no such host", Name: "pos.example.internal", IsNotFound: true}}
	tests := []struct {
		err  error
		want string
	}{
		{&universalpos.Error{Op: "GET /health", Err: urlErr}, "GET /health: the connection failed"},
		{&universalpos.Error{Op: "GET /health", Err: dnsErr}, "GET /health: the POS's host name did not resolve"},
		{&universalpos.Error{Op: "GET /health", StatusCode: 502, Message: "unexpected status, want 200"}, "GET /health: 502 Bad Gateway: unexpected status, want 200"},
		{&universalpos.Error{Op: "GET /health", Message: "invalid health body", Err: urlErr}, "GET /health: invalid health body"},
		{errors.New("Get \"https://pos.example.internal/h\": EOF"), "the POS could not be reached"},
	}
	for _, tc := range tests {
		got := publicPOSError(tc.err)
		if got != tc.want {
			t.Errorf("publicPOSError(%v) = %q, want %q", tc.err, got, tc.want)
		}
		if strings.Contains(got, "pos.example.internal") || strings.Contains(got, "secret") {
			t.Errorf("%q names the POS's address", got)
		}
	}
}

func TestPOSClientUsesServerSettings(t *testing.T) {
	t.Parallel()
	var got http.Header
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.Header.Clone()
		_, _ = w.Write([]byte(`{"status":"OK"}`))
	}))
	defer srv.Close()
	if _, err := newPOSClient(srv.Client(), srv.URL, "tok").Health(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got.Get("Authorization") != "Bearer tok" || got.Get("User-Agent") != "hospo-refserver" {
		t.Errorf("headers %v", got)
	}
}

func TestTruncateTextKeepsUTF8(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"abcdef", 3, "abc..."},
		{"aé", 2, "a..."}, // é is two bytes: not split
	}
	for _, tc := range tests {
		if got := truncateText(tc.in, tc.n); got != tc.want {
			t.Errorf("truncateText(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
	}
}
