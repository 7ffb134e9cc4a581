package client

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/hospo-dev/hospo-go/internal/sdktest"
	"github.com/hospo-dev/hospo-go/internal/syncbuf"

	"github.com/jarcoal/httpmock"
)

// Secrets with characters that URL encoding changes, so that both the raw and
// the encoded forms are checked.
const (
	secretToken    = "tok+en/with=chars-0123456789abcdef"
	secretAPIKey   = "vendor-key-0123456789abcdef"
	secretAdminKey = "admin-key-0123456789abcdef"
	shortToken     = "t0k"
)

func assertNoSecrets(t *testing.T, where, text string, secrets ...string) {
	t.Helper()
	for _, s := range secrets {
		for _, form := range []string{s, url.QueryEscape(s), url.PathEscape(s)} {
			if strings.Contains(text, form) {
				t.Errorf("%s contains credential %q:\n%s", where, form, text)
			}
		}
	}
}

// TestRedaction drives calls through every failure path with a debug logger
// and checks that no credential reaches a log line or an error string.
func TestRedaction(t *testing.T) {
	t.Parallel()
	var logs syncbuf.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	m := sdktest.NewMock()
	echoURL := func(status int) httpmock.Responder {
		return func(r *http.Request) (*http.Response, error) {
			// A hostile proxy echoing the whole URL in a non-JSON body.
			return httpmock.NewStringResponse(status, "<html>error for "+r.URL.String()+" key "+r.Header.Get(HeaderAPIKey)+"</html>"), nil
		}
	}
	m.Handle("GET", "v1/5xx", echoURL(503))
	m.Handle("GET", "v1/4xx", echoURL(403))
	m.Handle("GET", "v1/connfail", httpmock.ConnectionFailure)
	m.Handle("GET", "v1/echoerr", func(r *http.Request) (*http.Response, error) {
		return nil, errors.New("transport failed for " + r.URL.String())
	})
	m.Handle("GET", "v1/badjson", func(r *http.Request) (*http.Response, error) {
		return httpmock.NewStringResponse(200, `{"amount":"`+secretToken+`"}`), nil
	})
	m.Handle("GET", "v1/short", httpmock.NewStringResponder(401, sdktest.ErrorBody(CodeAccessTokenInvalid, "")))
	block := make(chan struct{})
	t.Cleanup(func() { close(block) })
	m.Handle("GET", "v1/hang", func(r *http.Request) (*http.Response, error) {
		select {
		case <-r.Context().Done():
			return nil, r.Context().Err()
		case <-block:
			return nil, errors.New("unreachable")
		}
	})

	c, err := New(
		WithBaseURL(sdktest.BaseURL),
		WithHTTPClient(m.HTTPClient),
		WithRetryPolicy(fastRetry),
		WithLogger(logger),
		WithAccessToken(secretToken),
		WithAPIKey(secretAPIKey),
		WithAdminKey(secretAdminKey),
	)
	if err != nil {
		t.Fatal(err)
	}

	// A real socket that refuses connections.
	srv := httptest.NewServer(http.NotFoundHandler())
	refused := srv.URL + "/"
	srv.Close()
	cRefused, err := New(WithBaseURL(refused), WithRetryPolicy(fastRetry), WithLogger(logger), WithAccessToken(secretToken))
	if err != nil {
		t.Fatal(err)
	}

	type call struct {
		name string
		c    *Client
		path string
		auth Auth
		ctx  func() (context.Context, context.CancelFunc)
		opts []Option
	}
	bg := func() (context.Context, context.CancelFunc) { return context.WithCancel(context.Background()) }
	cancelled := func() (context.Context, context.CancelFunc) {
		ctx, cancel := context.WithCancel(context.Background())
		go func() { cancel() }()
		return ctx, cancel
	}
	calls := []call{
		{"connection refused", cRefused, "v1/x", AuthAccessToken, bg, nil},
		{"5xx retried", c, "v1/5xx", AuthAccessToken, bg, nil},
		{"5xx API key", c, "v1/5xx", AuthAPIKey, bg, nil},
		{"4xx", c, "v1/4xx", AuthAccessToken, bg, nil},
		{"4xx admin", c, "v1/4xx", AuthAdminKey, bg, nil},
		{"connection failure", c, "v1/connfail", AuthAccessToken, bg, nil},
		{"transport error echoing URL", c, "v1/echoerr", AuthAccessToken, bg, nil},
		{"bad JSON echoing secret", c, "v1/badjson", AuthAccessToken, bg, nil},
		{"ctx cancel", c, "v1/hang", AuthAccessToken, cancelled, nil},
		{"per-call token", c, "v1/5xx", AuthAccessToken, bg, []Option{WithAccessToken(shortToken)}},
		{"short token kept out", c, "v1/short", AuthAccessToken, bg, []Option{WithAccessToken(shortToken)}},
	}
	var errs []string
	for _, cl := range calls {
		ctx, cancel := cl.ctx()
		_, err := cl.c.Do(ctx, &Request{Path: cl.path, Auth: cl.auth, Query: url.Values{"scope": {"wallet"}}}, &struct{ Amount Money }{}, cl.opts...)
		cancel()
		if err == nil {
			t.Errorf("%s: no error", cl.name)
			continue
		}
		errs = append(errs, cl.name+": "+err.Error())
		assertNoSecrets(t, cl.name+" error", err.Error(), secretToken, secretAPIKey, secretAdminKey)
		for e := errors.Unwrap(err); e != nil; e = errors.Unwrap(e) {
			assertNoSecrets(t, cl.name+" wrapped error", e.Error(), secretToken, secretAPIKey, secretAdminKey)
		}
		var ue *url.Error
		if errors.As(err, &ue) {
			assertNoSecrets(t, cl.name+" url.Error URL", ue.URL, secretToken)
		}
	}
	// The per-call short token must not show as a query parameter value.
	joined := strings.Join(errs, "\n")
	if strings.Contains(joined, "accessToken="+shortToken) || strings.Contains(logs.String(), "accessToken="+shortToken) {
		t.Errorf("short per-call token leaked")
	}

	out := logs.String()
	assertNoSecrets(t, "log output", out, secretToken, secretAPIKey, secretAdminKey)
	for _, want := range []string{
		`msg="hospo: http attempt" method=GET path=/prefix/v1/5xx attempt=4 status=503`,
		`msg="hospo: giving up" method=GET path=/prefix/v1/5xx attempts=4`,
		`level=DEBUG msg="hospo: http attempt" method=GET path=/prefix/v1/4xx attempt=1 status=403`,
		`path=/v1/x attempt=1 duration=`, // connection refused
		"accessToken=REDACTED",           // the refused URL in the give-up line
	} {
		if !strings.Contains(out, want) {
			t.Errorf("logs lack %q:\n%s", want, out)
		}
	}
	if t.Failed() {
		t.Logf("errors:\n%s", joined)
	}
}

func TestSilentByDefault(t *testing.T) {
	t.Parallel()
	// With no logger the transport must not even format log records; this
	// is visible as the absence of a logger, so check the wiring.
	c, _ := newMockClient(t)
	if c.tr.logger != nil || c.rc.Logger != nil {
		t.Errorf("default Client has a logger: %v %v", c.tr.logger, c.rc.Logger)
	}
}

func TestRedactorString(t *testing.T) {
	t.Parallel()
	r := redactor{secrets: [3]string{"abc", "long-secret-value-123", ""}}
	tests := []struct{ in, want string }{
		{"token abc used", "token REDACTED used"},
		{"abcdef tokenabc", "abcdef tokenabc"},
		{"x long-secret-value-123y", "x REDACTEDy"},
		{"GET /p?a=1&accessToken=zzz&b=2", "GET /p?a=1&accessToken=REDACTED&b=2"},
		{"GET /p?ACCESSTOKEN=zzz", "GET /p?ACCESSTOKEN=REDACTED"},
		{"no secrets here", "no secrets here"},
	}
	for _, tt := range tests {
		if got := r.string(tt.in); got != tt.want {
			t.Errorf("string(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
