package baseurl

import (
	"errors"
	"strings"
	"testing"
)

var testRules = Rules{
	Name:   "test: base URL",
	Server: "the test server",
	NoHost: "has no host",
	Redact: func(s string) string { return strings.ReplaceAll(s, "tok-secret", Redacted) },
}

func TestParseRefuses(t *testing.T) {
	t.Parallel()
	dropping := testRules
	dropping.DropQuery = true
	tests := []struct {
		rules Rules
		in    string
		want  string // the whole error text
	}{
		{testRules, "", `test: base URL "" is empty`},
		{testRules, "127.0.0.1:8080", `test: base URL "127.0.0.1:8080" is not an absolute URL (no http:// or https://); use "http://127.0.0.1:8080"`},
		{testRules, "pos.local.localhost:1", `test: base URL "pos.local.localhost:1" is not an absolute URL (no http:// or https://); use "http://pos.local.localhost:1"`},
		{testRules, "example.com", `test: base URL "example.com" is not an absolute URL (no http:// or https://); use "https://example.com"`},
		{testRules, "HTTP//example.com", `test: base URL "HTTP//example.com" is malformed; use "http://example.com"`},
		{testRules, "gopher://example.com", `test: base URL "gopher://example.com" has the scheme "gopher"; the test server speaks http or https; use "https://example.com"`},
		{testRules, "https://", `test: base URL "https://" has no host`},
		{testRules, "/just/a/path", `test: base URL "/just/a/path" is not an absolute URL (no http:// or https://)`},
		{testRules, "\thttp://example.com", "test: base URL \"\thttp://example.com\" has spaces around it; use \"http://example.com\""},
		{testRules, "https://example.com/?t=tok-secret", `test: base URL "https://example.com/?t=REDACTED" must not have a query: request paths and their queries are added to it; use "https://example.com/"`},
		{testRules, "https://u:pw@example.com/#x", `test: base URL "https://u:REDACTED@example.com/#x" must not have a fragment; use "https://u@example.com/"`},
		{testRules, "gopher://tok-secret@example.com/", `test: base URL "gopher://REDACTED@example.com/" has the scheme "gopher"; the test server speaks http or https; use "https://REDACTED@example.com/"`},
		{dropping, "ftp://example.com/?a=1", `test: base URL "ftp://example.com/?a=1" has the scheme "ftp"; the test server speaks http or https; use "https://example.com/?a=1"`},
	}
	for _, tt := range tests {
		u, err := tt.rules.Parse(tt.in)
		if err == nil {
			t.Errorf("Parse(%q) = %v, want an error", tt.in, u)
			continue
		}
		if !errors.Is(err, ErrInvalid) {
			t.Errorf("Parse(%q): %v does not match ErrInvalid", tt.in, err)
		}
		if err.Error() != tt.want {
			t.Errorf("Parse(%q):\n got %s\nwant %s", tt.in, err, tt.want)
		}
	}
}

func TestParseAccepts(t *testing.T) {
	t.Parallel()
	dropping := testRules
	dropping.DropQuery = true
	tests := []struct {
		rules Rules
		in    string
		want  string // the URL, unchanged: shaping the path is the caller's
	}{
		{testRules, "http://127.0.0.1:8080", "http://127.0.0.1:8080"},
		{testRules, "HTTPS://Example.com/v1/", "https://Example.com/v1/"},
		{dropping, "https://example.com/v1?env=test#top", "https://example.com/v1?env=test#top"},
	}
	for _, tt := range tests {
		u, err := tt.rules.Parse(tt.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.in, err)
			continue
		}
		if u.String() != tt.want {
			t.Errorf("Parse(%q) = %s, want %s", tt.in, u, tt.want)
		}
	}
}

// A URL that does not parse keeps url.Parse's error in the chain, without
// url.Error's copy of the unredacted URL.
func TestParseErrorUnwraps(t *testing.T) {
	t.Parallel()
	_, err := testRules.Parse("http://tok-secret@exa mple.com")
	var e *Error
	if !errors.As(err, &e) || errors.Unwrap(err) == nil {
		t.Fatalf("err = %#v, want an *Error wrapping url.Parse's", err)
	}
	if want := `test: base URL "http://REDACTED@exa mple.com" is not a valid URL: invalid character " " in host name`; err.Error() != want {
		t.Errorf("err = %s\nwant %s", err, want)
	}
	if strings.Contains(errors.Unwrap(err).Error(), "tok-secret") {
		t.Errorf("the wrapped error shows the credential: %v", errors.Unwrap(err))
	}
}

func TestIsLoopback(t *testing.T) {
	t.Parallel()
	for host, want := range map[string]bool{
		"localhost": true, "LOCALHOST.": true, "app.localhost": true, "127.0.0.1": true, "127.9.9.9": true, "::1": true,
		"example.com": false, "localhost.example.com": false, "10.0.0.1": false, "::": false, "": false,
	} {
		if got := IsLoopback(host); got != want {
			t.Errorf("IsLoopback(%q) = %v, want %v", host, got, want)
		}
	}
}
