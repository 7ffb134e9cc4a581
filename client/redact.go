package client

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"

	"github.com/hospo-dev/hospo-go/internal/baseurl"
)

// redacted replaces a credential in every text the SDK produces.
const redacted = baseurl.Redacted

// accessTokenParam matches the accessToken query parameter in any URL text,
// whatever its encoding.
var accessTokenParam = regexp.MustCompile(`(?i)(accessToken=)[^&\s"'<>]*`)

// redactor scrubs the credentials of one call from text. Access tokens
// travel in the URL, and net/http puts URLs into its errors, so every error
// string and log line passes through one of these.
type redactor struct {
	secrets [3]string
}

func (s *settings) redactor() redactor {
	return redactor{secrets: [3]string{s.accessToken, s.apiKey, s.adminKey}}
}

// string returns s without credentials.
func (r redactor) string(s string) string {
	for _, sec := range r.secrets {
		if sec == "" {
			continue
		}
		s = replaceSecret(s, sec)
		// The query-escaped form appears in URLs.
		if esc := url.QueryEscape(sec); esc != sec {
			s = replaceSecret(s, esc)
		}
	}
	if strings.Contains(strings.ToLower(s), "accesstoken=") {
		s = accessTokenParam.ReplaceAllString(s, "${1}"+redacted)
	}
	return s
}

// shortSecret is the length under which a secret is only replaced where it
// stands alone, not inside a longer word: a test token such as "tok" must not
// turn "tokenised" into "REDACTEDenised", while a real credential (long and
// random) is replaced wherever it appears.
const shortSecret = 12

func replaceSecret(s, sec string) string {
	if !strings.Contains(s, sec) {
		return s
	}
	if len(sec) >= shortSecret {
		return strings.ReplaceAll(s, sec, redacted)
	}
	var b strings.Builder
	for {
		i := strings.Index(s, sec)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		end := i + len(sec)
		alone := (i == 0 || !isWordByte(s[i-1])) && (end == len(s) || !isWordByte(s[end]))
		b.WriteString(s[:i])
		if alone {
			b.WriteString(redacted)
		} else {
			b.WriteString(sec)
		}
		s = s[end:]
	}
}

func isWordByte(c byte) bool {
	return c == '_' || ('0' <= c && c <= '9') || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z')
}

// url returns u as text with the accessToken parameter's value replaced.
func (r redactor) url(u *url.URL) string {
	if u == nil {
		return ""
	}
	ru := *u
	if ru.User != nil {
		ru.User = url.User(ru.User.Username())
	}
	if strings.Contains(strings.ToLower(ru.RawQuery), "accesstoken") {
		q := ru.Query()
		for k := range q {
			if strings.EqualFold(k, QueryAccessToken) {
				q[k] = []string{redacted}
			}
		}
		ru.RawQuery = q.Encode()
	}
	return r.string(ru.String())
}

// transportError is a failure without a response (connection refused, reset,
// timeout, cancelled context), with the request's URL redacted. It wraps the
// net/http error, so errors.Is(err, context.Canceled) and errors.As with
// *net.OpError keep working.
type transportError struct {
	method string
	url    string // redacted
	err    error  // the cause, with any *url.Error's URL redacted
	msg    string // the cause's text, redacted
	hint   string // what to do about it, if known
}

func (e *transportError) Error() string {
	s := "hospo: " + e.method + " " + e.url + ": " + e.msg
	if e.hint != "" {
		s += " (" + e.hint + ")"
	}
	return s
}

// Unwrap returns the cause.
func (e *transportError) Unwrap() error { return e.err }

// newTransportError wraps err, a failure of the request to u, so that
// neither its text nor any error in its chain shows credentials.
func (r redactor) newTransportError(method string, u *url.URL, err error) *transportError {
	te := &transportError{method: method, url: r.url(u)}
	if ue, ok := err.(*url.Error); ok {
		// url.Error's text is `Op "URL": Err`. Keep the inner error, which is
		// what callers match on, under a url.Error whose URL is redacted.
		ru := r.string(ue.URL)
		if pu, perr := url.Parse(ue.URL); perr == nil {
			ru = r.url(pu)
		}
		inner := r.hide(ue.Err)
		te.err = &url.Error{Op: ue.Op, URL: ru, Err: inner}
		te.msg = inner.Error()
		return te
	}
	te.err = r.hide(err)
	te.msg = te.err.Error()
	return te
}

// hide returns err itself when its text shows no credential, and otherwise
// a stand-in with the redacted text that errors.Is still sees through.
func (r redactor) hide(err error) error {
	text := err.Error()
	if clean := r.string(text); clean != text {
		return &redactedError{msg: clean, err: err}
	}
	return err
}

// wrap prefixes err with msg like fmt.Errorf("%s: %w"); when err's text
// shows a credential, the wrapped error is hide's stand-in.
func (r redactor) wrap(msg string, err error) error {
	return fmt.Errorf("%s: %w", msg, r.hide(err))
}

// redactedError stands in for an error whose text showed a credential. It
// has no Unwrap, since unwrapping would give the credential back.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }

// Is lets errors.Is match the hidden cause (context.Canceled, ErrMoneySyntax...).
func (e *redactedError) Is(target error) bool { return errors.Is(e.err, target) }
