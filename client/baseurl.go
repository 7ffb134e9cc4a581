package client

import (
	"errors"
	"net"
	"net/url"
	"regexp"
	"strings"
	"syscall"
)

// ErrInvalidBaseURL is matched (errors.Is) by the error New returns, or a
// call with a per-call WithBaseURL, when the base URL is unusable. The
// error's text says what is wrong and, where it can, gives the URL that
// was probably meant.
var ErrInvalidBaseURL = errors.New("hospo: invalid base URL")

// baseURLError says what is wrong with a base URL and how to fix it.
type baseURLError struct {
	url     string // redacted
	problem string
	fix     string // redacted; "" when there is no single likely fix
	err     error  // url.Parse's error, if that is what failed
}

func (e *baseURLError) Error() string {
	s := "hospo: base URL " + quote(e.url) + " " + e.problem
	if e.fix != "" {
		s += "; use " + quote(e.fix)
	}
	return s
}

// Is makes errors.Is(err, ErrInvalidBaseURL) true.
func (e *baseURLError) Is(target error) bool { return target == ErrInvalidBaseURL }

// Unwrap returns url.Parse's error, if any.
func (e *baseURLError) Unwrap() error { return e.err }

func quote(s string) string { return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"` }

// noHostHint is what a base URL without a host is told to look like.
const noHostHint = `has no host; use a URL such as "https://api.example.com/" or, for the sandbox, "` + SandboxURL + `"`

// misspeltScheme matches a base URL whose http or https lacks its "//" or
// its ":" ("http:/h", "http:h", "http//h").
var misspeltScheme = regexp.MustCompile(`(?i)^(https?)(?::/?|//)([^/].*)$`)

// parseBaseURL checks that u is an absolute http(s) URL without query or
// fragment and gives it the trailing slash that relative request paths
// resolve under. Its errors match ErrInvalidBaseURL and suggest the fix of
// the usual mistakes: "127.0.0.1:8080" for "http://127.0.0.1:8080", a
// scheme other than http or https, a query.
func parseBaseURL(u string) (*url.URL, error) {
	bad := func(problem, fix string) error {
		return &baseURLError{url: redactRawURL(u), problem: problem, fix: redactRawURL(fix)}
	}
	if t := strings.TrimSpace(u); t != u {
		return nil, bad("has spaces around it", t)
	}
	if !strings.Contains(u, "://") {
		if m := misspeltScheme.FindStringSubmatch(u); m != nil {
			return nil, bad("is malformed", strings.ToLower(m[1])+"://"+m[2])
		}
		rest := strings.TrimPrefix(u, "//")
		if c, err := url.Parse("http://" + rest); err == nil && c.Host != "" {
			return nil, bad("is not an absolute URL (no http:// or https://)", schemeFor(c.Hostname())+"://"+rest)
		}
	}
	base, err := url.Parse(u)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // url.Error's text repeats the URL, unredacted
		}
		return nil, &baseURLError{url: redactRawURL(u), problem: "is not a valid URL: " + err.Error(), err: err}
	}
	fixed := func(b *url.URL) string { return redactor{}.url(b) }
	switch {
	case base.Scheme == "":
		return nil, bad("is not an absolute URL (no http:// or https://)", "")
	case base.Scheme != "http" && base.Scheme != "https":
		f := ""
		if base.Host != "" {
			c := *base
			c.Scheme = schemeFor(base.Hostname())
			f = fixed(&c)
		}
		return nil, bad("has the scheme "+quote(base.Scheme)+"; the service speaks http or https", f)
	case base.Host == "":
		return nil, bad(noHostHint, "")
	case base.RawQuery != "" || base.ForceQuery:
		c := *base
		c.RawQuery, c.ForceQuery, c.Fragment, c.RawFragment = "", false, "", ""
		return nil, bad("must not have a query: request paths and their queries are added to it", fixed(&c))
	case base.Fragment != "":
		c := *base
		c.Fragment, c.RawFragment = "", ""
		return nil, bad("must not have a fragment", fixed(&c))
	}
	if !strings.HasSuffix(base.Path, "/") {
		base.Path += "/"
		if base.RawPath != "" {
			base.RawPath += "/"
		}
	}
	return base, nil
}

// schemeFor returns the scheme a base URL for host most likely wants: the
// sandbox listens on loopback and speaks plain http there; anything else
// is a real deployment, reached over https.
func schemeFor(host string) string {
	if isLoopback(host) {
		return "http"
	}
	return "https"
}

func isLoopback(host string) bool {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// redactRawURL scrubs credentials from a base URL's text, which may not
// parse: a password in its user info, and access tokens.
func redactRawURL(s string) string {
	start := 0
	if i := strings.Index(s, "://"); i >= 0 {
		start = i + 3
	}
	end := len(s)
	if i := strings.IndexAny(s[start:], "/?#"); i >= 0 {
		end = start + i
	}
	if at := strings.LastIndexByte(s[start:end], '@'); at >= 0 {
		if colon := strings.IndexByte(s[start:start+at], ':'); colon >= 0 {
			s = s[:start+colon+1] + redacted + s[start+at:]
		}
	}
	return redactor{}.string(s)
}

// sandboxHint says what to do about a refused connection to a loopback
// base URL, which is most likely the sandbox not running; "" otherwise.
func sandboxHint(u *url.URL, err error) string {
	if u == nil || !isLoopback(u.Hostname()) || !errors.Is(err, syscall.ECONNREFUSED) {
		return ""
	}
	start := "go run ./refserver/cmd/refserver"
	if port := u.Port(); port != "" && port != "8080" && u.Scheme == "http" {
		start += " -addr " + net.JoinHostPort("127.0.0.1", port)
	}
	return "nothing is listening at " + u.Host + ": is the sandbox running? Start it with: " + start
}
