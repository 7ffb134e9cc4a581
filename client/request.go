package client

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// Auth names the credential an endpoint takes. Do attaches that credential
// and no other, so a key is never sent where it is not needed.
type Auth int

// The credentials.
const (
	// AuthNone: the endpoint is public (location details, menus).
	AuthNone Auth = iota
	// AuthAccessToken: a user or POS access token in the accessToken query
	// parameter (WithAccessToken).
	AuthAccessToken
	// AuthAPIKey: a vendor API key in the X-Vendor-API-Key header (WithAPIKey).
	AuthAPIKey
	// AuthAdminKey: the sandbox admin key in the X-Sandbox-Admin-Key header
	// (WithAdminKey).
	AuthAdminKey
)

// String returns the name of the credential.
func (a Auth) String() string {
	switch a {
	case AuthNone:
		return "none"
	case AuthAccessToken:
		return "access token"
	case AuthAPIKey:
		return "API key"
	case AuthAdminKey:
		return "admin key"
	}
	return "Auth(" + strconv.Itoa(int(a)) + ")"
}

// The headers and query parameter that carry credentials and idempotency.
const (
	QueryAccessToken     = "accessToken"
	HeaderAPIKey         = "X-Vendor-API-Key"
	HeaderAdminKey       = "X-Sandbox-Admin-Key"
	HeaderIdempotencyKey = "Idempotency-Key"
	HeaderRequestID      = "X-Request-Id"
)

// Request describes one API call for Do. Area packages build one per method.
type Request struct {
	// Method is the HTTP method; "" means GET.
	Method string
	// Route is the endpoint's path template as the API reference writes
	// it, with a leading slash and the path parameters in braces
	// ("/payments/v1/payment/{paymentId}"). Telemetry names the call's
	// span and metrics by it (with the method), never by the URL, which
	// holds ids and the access token. Empty: they carry the method alone.
	Route string
	// Params are the values of Route's path parameters, in the order
	// Route names them. When Path is empty, Do builds the path from Route
	// and Params, each value escaped with url.PathEscape, so that a call
	// writes its path once: Route "/v3/bill/{billId}" with Params
	// []string{"b 1"} requests v3/bill/b%201.
	Params []string
	// Path, when set, is the path itself, relative to the base URL,
	// without a leading slash ("v1/user/me"), so that a base URL with a
	// path prefix works; a leading slash is refused. Path segments taken
	// from user input must be escaped with url.PathEscape. Route and Params
	// are the usual way to give it.
	Path string
	// Query holds the query parameters; it may be nil. Do adds accessToken
	// itself and does not modify the map.
	Query url.Values
	// Body is JSON-encoded as the request body when non-nil. A
	// json.RawMessage is sent as it is, without being checked or
	// re-encoded, for a caller that has encoded the body already.
	Body any
	// Auth is the credential the endpoint takes.
	Auth Auth
}

// Response is the HTTP response of a call whose body Do has already
// consumed (decoded into v, or into an *APIError); Body is http.NoBody.
type Response struct {
	*http.Response
	// RequestID is the X-Request-Id header, the reference to quote in a
	// support request.
	RequestID string
}

// newIdempotencyKey returns 32 hex characters from crypto/rand: 128 bits, so
// keys of different calls never collide.
func newIdempotencyKey() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (it crashes the program instead)
	return hex.EncodeToString(b[:])
}

// retryableMethod reports whether repeating a request with this method is
// harmless by HTTP semantics.
func retryableMethod(m string) bool {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPut, http.MethodDelete, http.MethodOptions:
		return true
	}
	return false
}

// routePath is the path of route, relative to the base URL, with its
// parameters ({name}) replaced by params in order, each escaped with
// url.PathEscape.
func routePath(route string, params []string) (string, error) {
	if !strings.HasPrefix(route, "/") {
		return "", fmt.Errorf("hospo: route %q must start with a slash", route)
	}
	if strings.IndexByte(route, '{') < 0 && len(params) == 0 {
		return route[1:], nil
	}
	var b strings.Builder
	rest, n := route[1:], 0
	for {
		open := strings.IndexByte(rest, '{')
		if open < 0 {
			b.WriteString(rest)
			break
		}
		end := strings.IndexByte(rest[open:], '}')
		if end < 0 {
			return "", fmt.Errorf("hospo: route %q has an unclosed {", route)
		}
		if n == len(params) {
			return "", fmt.Errorf("hospo: route %q has more parameters than the %d given", route, len(params))
		}
		b.WriteString(rest[:open])
		b.WriteString(url.PathEscape(params[n]))
		n++
		rest = rest[open+end+1:]
	}
	if n != len(params) {
		return "", fmt.Errorf("hospo: route %q has %d parameters, %d given", route, n, len(params))
	}
	return b.String(), nil
}
