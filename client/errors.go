package client

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// ErrNoCredential is returned (wrapped) by Do when the endpoint's credential
// (Request.Auth) is not configured; nothing is sent.
var ErrNoCredential = errors.New("hospo: no credential configured for this endpoint")

// APIError is the error of a call that received a non-2xx response. It
// carries the fields of the service's error body and of the response
// headers. When the body is not the service's (an HTML 502 from a proxy, for
// example), Code is 0 and Message holds a short, redacted snippet of it.
//
// Match codes with errors.Is and the sentinels of the catalogue:
//
//	if errors.Is(err, client.ErrCardNotTokenised) { ... }
//
// and read the fields with errors.As:
//
//	var apiErr *client.APIError
//	if errors.As(err, &apiErr) { log.Print(apiErr.RequestID) }
type APIError struct {
	// HTTPStatus is the response status code.
	HTTPStatus int
	// Code is the error code of the body; 0 when the body was not the
	// service's error body.
	Code Code
	// Message is the body's message, for developers.
	Message string
	// DisplayString is a message fit to show end users, when the service
	// gives one.
	DisplayString *string
	// ContextData is the body's contextData, nil when null or absent. For a
	// 400002 it maps JSON paths to reasons; see FieldErrors.
	ContextData json.RawMessage
	// RequestInfo is the body's requestInfo.
	RequestInfo RequestInfo
	// RequestID is the X-Request-Id response header.
	RequestID string
	// RetryAfter is the wait the server asked for with Retry-After (on a 429
	// in particular); 0 when absent.
	RetryAfter time.Duration
	// Allow is the methods the path takes, from the Allow header of a 405
	// (405001), such as ["GET"]; nil when absent.
	Allow []string
	// Method and Path are the call's HTTP method and URL path (never its
	// query, which may carry the access token).
	Method string
	Path   string
}

// Error returns a one-line description: the call (method and URL path,
// never the query, which carries the access token), the status, code and
// message, what the code's contextData says (every failing field of a
// 400002, the gateway of a 404006, the last heartbeat of a 409003, the
// route of a 404001 that matched none) with what to do about it, and the
// request id to quote. It never contains credentials.
func (e *APIError) Error() string {
	var b strings.Builder
	b.WriteString("hospo: ")
	if e.Method != "" || e.Path != "" {
		b.WriteString(e.Method)
		b.WriteByte(' ')
		b.WriteString(e.Path)
		b.WriteString(": ")
	}
	b.WriteString("HTTP ")
	b.WriteString(strconv.Itoa(e.HTTPStatus))
	b.WriteString(": ")
	if e.Code != 0 {
		b.WriteString(strconv.Itoa(int(e.Code)))
		b.WriteByte(' ')
	}
	msg := e.Message
	if msg == "" {
		msg = e.Code.Message()
	}
	if msg == "" {
		msg = http.StatusText(e.HTTPStatus)
	}
	if detail := e.detail(); detail != "" {
		b.WriteString(strings.TrimSuffix(msg, "."))
		b.WriteString(": ")
		b.WriteString(detail)
	} else {
		b.WriteString(msg)
	}
	if e.RequestID != "" {
		b.WriteString(" (request id ")
		b.WriteString(e.RequestID)
		b.WriteByte(')')
	}
	return b.String()
}

// maxFieldsInError bounds the failing fields Error lists; FieldErrors has
// them all.
const maxFieldsInError = 10

// detail says what the contextData of e's code means for the caller, or ""
// when there is nothing to add to the message.
func (e *APIError) detail() string {
	switch e.Code {
	case CodeValidation:
		fields := e.FieldErrors()
		if len(fields) == 0 {
			return ""
		}
		paths := slices.Sorted(maps.Keys(fields))
		var b strings.Builder
		for i, p := range paths {
			if i == maxFieldsInError {
				fmt.Fprintf(&b, "; and %d more (see FieldErrors)", len(paths)-i)
				break
			}
			if i > 0 {
				b.WriteString("; ")
			}
			b.WriteString(p)
			b.WriteString(": ")
			b.WriteString(fields[p])
		}
		return b.String()
	case CodeCardNotTokenised:
		var cd struct{ Gateway string }
		if json.Unmarshal(e.ContextData, &cd) != nil || cd.Gateway == "" {
			return ""
		}
		return "the card has no " + cd.Gateway + " token; add one for " + cd.Gateway +
			" (wallet.Service.AddCard) or pay with wallet.Service.PayWithRecovery"
	case CodeLocationOffline:
		var cd struct {
			LastHeartbeat       *int64
			OfflineAfterSeconds int64
		}
		if json.Unmarshal(e.ContextData, &cd) != nil {
			return ""
		}
		last := "never"
		if cd.LastHeartbeat != nil {
			last = time.Unix(*cd.LastHeartbeat, 0).UTC().Format(time.RFC3339)
		}
		window := "recently"
		if cd.OfflineAfterSeconds > 0 {
			window = "in the last " + (time.Duration(cd.OfflineAfterSeconds) * time.Second).String()
		}
		return "last heartbeat " + last + "; the location's POS must send a heartbeat " + window +
			" (possync.Service.Heartbeat, or a running possync.Agent) before it takes payments"
	case CodeNotFound:
		var cd struct{ Route string }
		if json.Unmarshal(e.ContextData, &cd) != nil || cd.Route == "" {
			return ""
		}
		return "no route " + cd.Route + "; check the client's base URL and its path"
	}
	return ""
}

// Is reports whether target is the Code sentinel of e's code, so that
// errors.Is(err, client.ErrNotFound) matches a 404001.
func (e *APIError) Is(target error) bool {
	c, ok := target.(Code)
	return ok && e.Code != 0 && c == e.Code
}

// FieldErrors returns the failing fields of a validation error (code 400002)
// as JSON path -> reason, such as "menuItems[0].price" -> "required". It
// returns nil for other errors or when contextData is not an object.
func (e *APIError) FieldErrors() map[string]string {
	if e.Code != CodeValidation || len(e.ContextData) == 0 {
		return nil
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(e.ContextData, &raw); err != nil || len(raw) == 0 {
		return nil
	}
	out := make(map[string]string, len(raw))
	for k, v := range raw {
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			s = string(v) // a non-string reason is kept as its JSON text
		}
		out[k] = s
	}
	return out
}

// errorBody is the wire shape of an error response.
type errorBody struct {
	Error         *bool           `json:"error"`
	Code          Code            `json:"code"`
	Message       string          `json:"message"`
	ContextData   json.RawMessage `json:"contextData"`
	DisplayString json.RawMessage `json:"displayString"`
	RequestInfo   RequestInfo     `json:"requestInfo"`
}

// maxErrorBody bounds how much of an error body is read: the service's error
// bodies are small, and a proxy's error page need not be read whole.
const maxErrorBody = 64 << 10

// maxSnippet bounds the snippet of a foreign error body kept in Message.
const maxSnippet = 200

// decodeAPIError builds the APIError of a non-2xx response from its status,
// headers and (possibly truncated) body. It never fails: a body that is not
// the service's error body yields Code 0 and a snippet of the body. redact
// scrubs credentials from any text taken from the body.
func decodeAPIError(status int, h http.Header, body []byte, redact func(string) string) *APIError {
	e := &APIError{
		HTTPStatus: status,
		RequestID:  h.Get(HeaderRequestID),
		RetryAfter: parseRetryAfter(h.Get("Retry-After"), time.Now()),
		Allow:      parseAllow(h.Values("Allow")),
	}
	var eb errorBody
	if err := json.Unmarshal(body, &eb); err == nil && eb.Code != 0 {
		e.Code = eb.Code
		e.Message = redact(eb.Message)
		if c := bytes.TrimSpace(eb.ContextData); len(c) > 0 && !bytes.Equal(c, []byte("null")) {
			e.ContextData = c
		}
		if d := bytes.TrimSpace(eb.DisplayString); len(d) > 0 && !bytes.Equal(d, []byte("null")) {
			var s string
			if json.Unmarshal(d, &s) != nil {
				s = string(d) // not a string: keep its JSON text rather than drop it
			}
			s = redact(s)
			e.DisplayString = &s
		}
		e.RequestInfo = eb.RequestInfo
		return e
	}
	e.Message = snippet(body, redact)
	return e
}

// snippet returns a short, single-line, valid UTF-8 excerpt of a foreign
// error body, or the status text's place holder when the body is empty.
func snippet(body []byte, redact func(string) string) string {
	s := strings.ToValidUTF8(string(bytes.TrimSpace(body)), "\uFFFD")
	s = strings.Join(strings.Fields(s), " ")
	s = redact(s) // before truncation, so a secret cut in half is still found
	if len(s) > maxSnippet {
		cut := maxSnippet
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "..."
	}
	if s == "" {
		return "(empty body)"
	}
	return "non-JSON error body: " + s
}

// parseAllow reads the methods of Allow headers ("GET, HEAD"), which may
// come as one header or several.
func parseAllow(vs []string) []string {
	var methods []string
	for _, v := range vs {
		for m := range strings.SplitSeq(v, ",") {
			if m = strings.TrimSpace(m); m != "" {
				methods = append(methods, m)
			}
		}
	}
	return methods
}

// parseRetryAfter reads a Retry-After value: delay seconds or an HTTP date.
// It returns 0 when the header is absent, malformed or in the past.
func parseRetryAfter(v string, now time.Time) time.Duration {
	if v == "" {
		return 0
	}
	if n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err == nil {
		if n <= 0 {
			return 0
		}
		if n > int64(24*time.Hour/time.Second) {
			n = int64(24 * time.Hour / time.Second) // avoid overflow; clamped by the policy anyway
		}
		return time.Duration(n) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}
