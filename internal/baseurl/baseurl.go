// Package baseurl checks the base URLs that the SDK's clients are given,
// so that client.New and universalpos.NewClient refuse the same mistakes
// with the same advice: what is wrong and, where one is likely, the URL
// that was meant ("127.0.0.1:8080" gets "http://127.0.0.1:8080").
package baseurl

import (
	"errors"
	"net"
	"net/url"
	"regexp"
	"strings"
)

// ErrInvalid is matched (errors.Is) by every error of Rules.Parse. The
// client package exports it as ErrInvalidBaseURL.
var ErrInvalid = errors.New("hospo: invalid base URL")

// Redacted is what the SDK writes in place of a credential.
const Redacted = "REDACTED"

// Rules are what one client accepts as a base URL and how its errors are
// worded.
type Rules struct {
	// Name starts every error, followed by the quoted URL: "hospo: base
	// URL".
	Name string
	// Server is what the URL reaches, in the error about a scheme other
	// than http or https: "the service" ("... the service speaks http or
	// https").
	Server string
	// NoHost is the problem told of a URL without a host; it should show
	// a URL that works.
	NoHost string
	// DropQuery accepts a query and a fragment, which the caller drops,
	// instead of refusing them.
	DropQuery bool
	// Redact scrubs credentials from the URLs an error quotes, beyond the
	// password of the user info, which Parse always hides. nil: nothing
	// more.
	Redact func(string) string
}

// Error says what is wrong with a base URL and how to fix it. It matches
// ErrInvalid.
type Error struct {
	name    string
	url     string // redacted
	problem string
	fix     string // redacted; "" when there is no single likely fix
	err     error  // url.Parse's error, if that is what failed
}

func (e *Error) Error() string {
	s := e.name + " " + quote(e.url) + " " + e.problem
	if e.fix != "" {
		s += "; use " + quote(e.fix)
	}
	return s
}

// Is makes errors.Is(err, ErrInvalid) true.
func (e *Error) Is(target error) bool { return target == ErrInvalid }

// Unwrap returns url.Parse's error, if any.
func (e *Error) Unwrap() error { return e.err }

func quote(s string) string { return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"` }

// misspeltScheme matches a base URL whose http or https lacks its "//" or
// its ":" ("http:/h", "http:h", "http//h").
var misspeltScheme = regexp.MustCompile(`(?i)^(https?)(?::/?|//)([^/].*)$`)

// Parse checks that s is an absolute http or https URL with a host and,
// unless DropQuery, without query or fragment, and returns it parsed; the
// path is left as it is for the caller to shape. Its errors are *Error and
// suggest the fix of the usual mistakes: no scheme, a misspelt one, a
// scheme other than http or https, spaces around the URL, a query.
// Nothing is read from the network.
func (r Rules) Parse(s string) (*url.URL, error) {
	bad := func(problem, fix string) error {
		return &Error{name: r.Name, url: r.redactRaw(s), problem: problem, fix: r.redactRaw(fix)}
	}
	if s == "" {
		return nil, bad("is empty", "")
	}
	if t := strings.TrimSpace(s); t != s {
		return nil, bad("has spaces around it", t)
	}
	if !strings.Contains(s, "://") {
		if m := misspeltScheme.FindStringSubmatch(s); m != nil {
			return nil, bad("is malformed", strings.ToLower(m[1])+"://"+m[2])
		}
		rest := strings.TrimPrefix(s, "//")
		if c, err := url.Parse("http://" + rest); err == nil && c.Host != "" {
			return nil, bad("is not an absolute URL (no http:// or https://)", schemeFor(c.Hostname())+"://"+rest)
		}
	}
	u, err := url.Parse(s)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // url.Error's text repeats the URL, unredacted
		}
		return nil, &Error{name: r.Name, url: r.redactRaw(s), problem: "is not a valid URL: " + err.Error(), err: err}
	}
	switch {
	case u.Scheme == "":
		return nil, bad("is not an absolute URL (no http:// or https://)", "")
	case u.Scheme != "http" && u.Scheme != "https":
		f := ""
		if u.Host != "" {
			c := *u
			c.Scheme = schemeFor(u.Hostname())
			f = r.fixed(&c)
		}
		return nil, bad("has the scheme "+quote(u.Scheme)+"; "+r.Server+" speaks http or https", f)
	case u.Host == "":
		return nil, bad(r.NoHost, "")
	case r.DropQuery:
	case u.RawQuery != "" || u.ForceQuery:
		c := *u
		c.RawQuery, c.ForceQuery, c.Fragment, c.RawFragment = "", false, "", ""
		return nil, bad("must not have a query: request paths and their queries are added to it", r.fixed(&c))
	case u.Fragment != "":
		c := *u
		c.Fragment, c.RawFragment = "", ""
		return nil, bad("must not have a fragment", r.fixed(&c))
	}
	return u, nil
}

// fixed is the text of a corrected URL without the password of its user
// info; the error still passes it through redactRaw, like the URL itself.
func (Rules) fixed(u *url.URL) string {
	c := *u
	if c.User != nil {
		c.User = url.User(c.User.Username())
	}
	return c.String()
}

// redactRaw scrubs credentials from a base URL's text, which may not
// parse: a password in its user info, then whatever Redact removes.
func (r Rules) redactRaw(s string) string {
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
			s = s[:start+colon+1] + Redacted + s[start+at:]
		}
	}
	if r.Redact != nil {
		s = r.Redact(s)
	}
	return s
}

// schemeFor returns the scheme a base URL for host most likely wants: the
// sandbox (and a POS under development) listens on loopback and speaks
// plain http there; anything else is a real deployment, reached over
// https.
func schemeFor(host string) string {
	if IsLoopback(host) {
		return "http"
	}
	return "https"
}

// IsLoopback reports whether host, a name or an IP address, is this
// machine: localhost, a name under .localhost or a loopback address.
func IsLoopback(host string) bool {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
