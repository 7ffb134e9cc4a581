package client

import (
	"errors"
	"net"
	"net/url"
	"strings"
	"syscall"

	"github.com/hospo-dev/hospo-go/internal/baseurl"
)

// ErrInvalidBaseURL is matched (errors.Is) by the error New returns, or a
// call with a per-call WithBaseURL, when the base URL is unusable. The
// error's text says what is wrong and, where it can, gives the URL that
// was probably meant. universalpos.Client's base URL errors match it too.
var ErrInvalidBaseURL = baseurl.ErrInvalid

// serviceBaseURL is what the service's base URL must look like.
var serviceBaseURL = baseurl.Rules{
	Name:   "hospo: base URL",
	Server: "the service",
	NoHost: `has no host; use a URL such as "https://api.example.com/" or, for the sandbox, "` + SandboxURL + `"`,
	Redact: redactor{}.string,
}

// parseBaseURL checks u (see baseurl.Rules.Parse: an absolute http(s) URL
// without query or fragment, its errors matching ErrInvalidBaseURL and
// naming the likely fix) and gives it the trailing slash that relative
// request paths resolve under.
func parseBaseURL(u string) (*url.URL, error) {
	base, err := serviceBaseURL.Parse(u)
	if err != nil {
		return nil, err
	}
	if !strings.HasSuffix(base.Path, "/") {
		base.Path += "/"
		if base.RawPath != "" {
			base.RawPath += "/"
		}
	}
	return base, nil
}

// sandboxHint says what to do about a refused connection to a loopback
// base URL, which is most likely the sandbox not running; "" otherwise.
func sandboxHint(u *url.URL, err error) string {
	if u == nil || !baseurl.IsLoopback(u.Hostname()) || !errors.Is(err, syscall.ECONNREFUSED) {
		return ""
	}
	start := "go run ./refserver/cmd/refserver"
	if port := u.Port(); port != "" && port != "8080" && u.Scheme == "http" {
		start += " -addr " + net.JoinHostPort("127.0.0.1", port)
	}
	return "nothing is listening at " + u.Host + ": is the sandbox running? Start it with: " + start
}
