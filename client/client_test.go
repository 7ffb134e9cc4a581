package client

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jarcoal/httpmock"

	"github.com/hospo-dev/hospo-go/internal/sdktest"
)

// credentials is what a request carried of the credentials.
type credentials struct {
	Path     string
	Query    url.Values
	APIKey   string
	AdminKey string
}

func credentialsOf(r sdktest.Request) credentials {
	return credentials{Path: r.Path, Query: r.Query, APIKey: r.Header.Get(HeaderAPIKey), AdminKey: r.Header.Get(HeaderAdminKey)}
}

func TestCredentialPlacement(t *testing.T) {
	t.Parallel()
	creds := []Option{WithAccessToken("user-token"), WithAPIKey("vendor-key"), WithAdminKey("admin-key")}
	tests := []struct {
		name string
		auth Auth
		opts []Option // per call
		want credentials
	}{
		{
			name: "none sends no credential",
			auth: AuthNone,
			want: credentials{Path: "/prefix/v1/thing", Query: url.Values{"q": {"1"}}},
		},
		{
			name: "access token in query",
			auth: AuthAccessToken,
			want: credentials{Path: "/prefix/v1/thing", Query: url.Values{"q": {"1"}, "accessToken": {"user-token"}}},
		},
		{
			name: "per-call access token overrides",
			auth: AuthAccessToken,
			opts: []Option{WithAccessToken("pos-token")},
			want: credentials{Path: "/prefix/v1/thing", Query: url.Values{"q": {"1"}, "accessToken": {"pos-token"}}},
		},
		{
			name: "API key header",
			auth: AuthAPIKey,
			want: credentials{Path: "/prefix/v1/thing", Query: url.Values{"q": {"1"}}, APIKey: "vendor-key"},
		},
		{
			name: "per-call API key overrides",
			auth: AuthAPIKey,
			opts: []Option{WithAPIKey("other-key")},
			want: credentials{Path: "/prefix/v1/thing", Query: url.Values{"q": {"1"}}, APIKey: "other-key"},
		},
		{
			name: "admin key header",
			auth: AuthAdminKey,
			want: credentials{Path: "/prefix/v1/thing", Query: url.Values{"q": {"1"}}, AdminKey: "admin-key"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, m := newMockClient(t, creds...)
			rec := m.Reply("GET", "v1/thing", 200, `{}`)
			query := url.Values{"q": {"1"}}
			if _, err := c.Do(context.Background(), &Request{Path: "v1/thing", Query: query, Auth: tt.auth}, nil, tt.opts...); err != nil {
				t.Fatalf("Do: %v", err)
			}
			if diff := cmp.Diff(tt.want, credentialsOf(rec.Last(t))); diff != "" {
				t.Errorf("request (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(url.Values{"q": {"1"}}, query); diff != "" {
				t.Errorf("Do modified the caller's query (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPerCallOptionDoesNotLeak(t *testing.T) {
	t.Parallel()
	c, m := newMockClient(t, WithAccessToken("user-token"))
	rec := m.Reply("GET", "v1/thing", 200, `{}`)
	req := &Request{Path: "v1/thing", Auth: AuthAccessToken}
	if _, err := c.Do(context.Background(), req, nil, WithAccessToken("pos-token"), WithHeader("X-Extra", "1")); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Do(context.Background(), req, nil); err != nil {
		t.Fatal(err)
	}
	if tok := rec.Last(t).Query.Get(QueryAccessToken); tok != "user-token" {
		t.Errorf("second call sent accessToken %q, want the Client's user-token", tok)
	}
}

func TestNoCredential(t *testing.T) {
	t.Parallel()
	tests := []struct {
		auth Auth
		opts []Option
	}{
		{AuthAccessToken, nil},
		{AuthAPIKey, nil},
		{AuthAdminKey, nil},
		{AuthAccessToken, []Option{WithAccessToken("")}},
	}
	for _, tt := range tests {
		t.Run(tt.auth.String(), func(t *testing.T) {
			t.Parallel()
			c, m := newMockClient(t, tt.opts...)
			_, err := c.Do(context.Background(), &Request{Method: "POST", Path: "v1/thing", Auth: tt.auth}, nil)
			if !errors.Is(err, ErrNoCredential) {
				t.Fatalf("err = %v, want ErrNoCredential", err)
			}
			if n := m.Calls(); n != 0 {
				t.Errorf("%d requests sent, want none", n)
			}
		})
	}
}

func TestDoDecodesAndSendsHeaders(t *testing.T) {
	t.Parallel()
	c, m := newMockClient(t, WithUserAgent("test-agent/1"), WithHeader("X-Extra", "yes"))
	type body struct {
		Amount Money  `json:"amount"`
		Name   string `json:"name"`
	}
	m.Handle("POST", "v1/things", func(r *http.Request) (*http.Response, error) {
		hdr := map[string]string{}
		for _, k := range []string{"Content-Type", "Accept", "User-Agent", "X-Extra"} {
			hdr[k] = r.Header.Get(k)
		}
		want := map[string]string{"Content-Type": "application/json", "Accept": "application/json", "User-Agent": "test-agent/1", "X-Extra": "yes"}
		if diff := cmp.Diff(want, hdr); diff != "" {
			t.Errorf("headers (-want +got):\n%s", diff)
		}
		b, _ := io.ReadAll(r.Body)
		if got, want := string(b), `{"amount":7.69,"name":"x"}`; got != want {
			t.Errorf("body %s, want %s", got, want)
		}
		resp := httpmock.NewStringResponse(201, `{"amount":7.69,"name":"y","extra":true}`)
		resp.Header.Set(HeaderRequestID, "rid-1")
		return resp, nil
	})
	var out body
	resp, err := c.Do(context.Background(), &Request{Method: "POST", Path: "v1/things", Body: body{MustParseMoney("7.69"), "x"}}, &out)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(body{MustParseMoney("7.69"), "y"}, out, cmp.AllowUnexported(Money{})); diff != "" {
		t.Errorf("decoded (-want +got):\n%s", diff)
	}
	if resp.StatusCode != 201 || resp.RequestID != "rid-1" {
		t.Errorf("response status %d, request id %q", resp.StatusCode, resp.RequestID)
	}
	if resp.Body != http.NoBody {
		t.Errorf("Response.Body is not http.NoBody")
	}
}

func TestDoSendsRawMessageBodiesAsTheyAre(t *testing.T) {
	t.Parallel()
	c, m := newMockClient(t)
	const raw = `{ "amount" : 7.69 }`
	m.Handle("POST", "v1/raw", func(r *http.Request) (*http.Response, error) {
		b, _ := io.ReadAll(r.Body)
		if string(b) != raw {
			t.Errorf("body %q, want %q unchanged", b, raw)
		}
		if ct := r.Header.Get("Content-Type"); ct != "application/json" {
			t.Errorf("Content-Type %q", ct)
		}
		return httpmock.NewStringResponse(200, `{}`), nil
	})
	if _, err := c.Do(context.Background(), &Request{Method: "POST", Path: "v1/raw", Body: json.RawMessage(raw)}, nil); err != nil {
		t.Fatal(err)
	}
}

func TestDoEmptyAndBadBodies(t *testing.T) {
	t.Parallel()
	c, m := newMockClient(t)
	m.Handle("POST", "ordering/v3/empty", httpmock.NewStringResponder(202, ``))
	m.Handle("GET", "v1/bad", httpmock.NewStringResponder(200, `{"amount":"7.69"}`))

	var out struct{ Amount Money }
	if _, err := c.Do(context.Background(), &Request{Method: "POST", Path: "ordering/v3/empty"}, &out); err != nil {
		t.Errorf("empty 202 body: %v", err)
	}
	_, err := c.Do(context.Background(), &Request{Path: "v1/bad"}, &out)
	if !errors.Is(err, ErrMoneySyntax) {
		t.Errorf("bad body: err = %v, want ErrMoneySyntax wrapped", err)
	}
}

func TestRequestPathAndBaseURL(t *testing.T) {
	t.Parallel()
	c, m := newMockClient(t)
	m.Handle("GET", "v3/bill/a%2Fb", httpmock.NewStringResponder(200, `{}`))
	if _, err := c.Do(context.Background(), &Request{Path: "/v1/abs"}, nil); err == nil || !strings.Contains(err.Error(), "leading slash") {
		t.Errorf("absolute path: err = %v", err)
	}
	if _, err := c.Do(context.Background(), &Request{Path: "v3/bill/" + url.PathEscape("a/b")}, nil); err != nil {
		t.Errorf("escaped path: %v", err)
	}
	if got := c.BaseURL().String(); got != sdktest.BaseURL {
		t.Errorf("BaseURL = %s, want %s", got, sdktest.BaseURL)
	}
	c.BaseURL().Path = "/changed/"
	if got := c.BaseURL().String(); got != sdktest.BaseURL {
		t.Errorf("BaseURL copy leaked a change: %s", got)
	}
}

func TestNew(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		opts    []Option
		wantURL string
		wantErr string
	}{
		{name: "sandbox default", wantURL: SandboxURL + "/"},
		{name: "base URL gets a slash", opts: []Option{WithBaseURL("http://h:1/p")}, wantURL: "http://h:1/p/"},
		{name: "production with URL", opts: []Option{WithEnvironment(EnvironmentProduction), WithBaseURL("https://api.example.com")}, wantURL: "https://api.example.com/"},
		{name: "production needs URL", opts: []Option{WithEnvironment(EnvironmentProduction)}, wantErr: "needs WithBaseURL"},
		{name: "unknown environment", opts: []Option{WithEnvironment("staging")}, wantErr: "unknown environment"},
		{name: "relative URL", opts: []Option{WithBaseURL("api.example.com")}, wantErr: "absolute"},
		{name: "query in URL", opts: []Option{WithBaseURL("https://h/?accessToken=x")}, wantErr: "query"},
		{name: "zero rate", opts: []Option{WithRateLimit(0, 1)}, wantErr: "positive rate"},
		{name: "idempotency key at New", opts: []Option{WithIdempotencyKey("k")}, wantErr: "per-call"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := New(tt.opts...)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tt.wantErr)
				}
				if strings.Contains(err.Error(), "accessToken=x") {
					t.Errorf("error shows the query: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := c.BaseURL().String(); got != tt.wantURL {
				t.Errorf("BaseURL = %s, want %s", got, tt.wantURL)
			}
		})
	}
}

func TestWithHTTPClientNotModified(t *testing.T) {
	t.Parallel()
	mt := httpmock.NewMockTransport()
	hc := &http.Client{Transport: mt}
	if _, err := New(WithHTTPClient(hc)); err != nil {
		t.Fatal(err)
	}
	if hc.Transport != mt {
		t.Error("New replaced the caller's transport")
	}
}

func TestResponseBodyOfAPIError(t *testing.T) {
	t.Parallel()
	c, m := newMockClient(t)
	m.Handle("GET", "v1/missing", sdktest.ErrorResponder(CodeNotFound))
	resp, err := c.Do(context.Background(), &Request{Path: "v1/missing"}, nil)
	var apiErr *APIError
	if !errors.As(err, &apiErr) {
		t.Fatalf("err = %v, want *APIError", err)
	}
	if resp == nil || resp.StatusCode != 404 || resp.RequestID != "req-404001" {
		t.Fatalf("resp = %+v", resp)
	}
	var v json.RawMessage
	if b, _ := io.ReadAll(resp.Body); len(b) != 0 || v != nil {
		t.Errorf("body not consumed")
	}
}
