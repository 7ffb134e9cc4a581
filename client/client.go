package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"

	"github.com/hashicorp/go-retryablehttp"
	"golang.org/x/time/rate"
)

// Client is the transport shared by the area services (wallet, bills,
// possync, fulfillment): base URL, credentials, retries, rate limit and
// logging. It is safe for concurrent use and meant to be created once and
// reused, so that connections are pooled.
type Client struct {
	defaults settings // the options of New; calls copy it when they have their own
	base     *url.URL
	baseStr  string // base.String(), ending in "/"
	hc       *http.Client
	tr       *transport
	rc       *retryablehttp.Client // for calls using the default retry policy
	tel      *telemetry            // nil: telemetry off (telemetry.go)
}

// New returns a Client configured by opts. Without options it talks to the
// sandbox at SandboxURL with no credentials.
func New(opts ...Option) (*Client, error) {
	s := defaultSettings()
	for _, o := range opts {
		o(&s)
	}
	if s.idemKey != "" {
		return nil, errors.New("hospo: WithIdempotencyKey is a per-call option; one key for every call would make the second a 409004")
	}
	if s.env != EnvironmentSandbox && s.env != EnvironmentProduction {
		return nil, fmt.Errorf("hospo: unknown environment %q", s.env)
	}
	if s.baseURL == "" {
		if s.env == EnvironmentProduction {
			return nil, errors.New("hospo: EnvironmentProduction needs WithBaseURL")
		}
		s.baseURL = SandboxURL
	}
	base, err := parseBaseURL(s.baseURL)
	if err != nil {
		return nil, err
	}
	if s.retry.MaxRetries < 0 {
		s.retry.MaxRetries = 0
	}

	hc := &http.Client{}
	if s.httpClient != nil {
		*hc = *s.httpClient // a copy: the caller's client is not modified
	}
	hc.CheckRedirect = keepKeysOnOrigin(hc.CheckRedirect)
	// A nil base means http.DefaultTransport, looked up per request as
	// net/http does, so that tools which swap it (httpmock.Activate) work.
	tr := &transport{base: hc.Transport, logger: s.logger}
	if s.rateSet && s.rateLimit != rate.Inf {
		if s.rateLimit <= 0 {
			return nil, errors.New("hospo: WithRateLimit needs a positive rate (rate.Inf for no limit)")
		}
		tr.limiter = rate.NewLimiter(s.rateLimit, max(s.rateBurst, 1))
	}
	hc.Transport = tr
	tel, err := newTelemetry(&s)
	if err != nil {
		return nil, fmt.Errorf("hospo: telemetry: %w", err)
	}

	c := &Client{
		tel:      tel,
		defaults: s,
		base:     base,
		baseStr:  base.String(),
		hc:       hc,
		tr:       tr,
	}
	c.rc = newRetryClient(hc, s.retry)
	return c, nil
}

// BaseURL returns a copy of the base URL, with its trailing slash.
func (c *Client) BaseURL() *url.URL {
	u := *c.base
	return &u
}

// Environment returns the environment the Client was created for.
func (c *Client) Environment() Environment { return c.defaults.env }

// CloseIdleConnections closes the idle connections of the underlying
// transport. Only this method closes them: go-retryablehttp's habit of
// closing every idle connection after one failed call is deliberately
// not passed on, as it would penalise the Client's other calls.
func (c *Client) CloseIdleConnections() {
	if ci, ok := c.tr.roundTripper().(interface{ CloseIdleConnections() }); ok {
		ci.CloseIdleConnections()
	}
}

// Do sends req and decodes a 2xx response's JSON body into v (unless v is
// nil). When v is an io.Writer, the body is copied to it as it is, without
// being decoded, for the few endpoints that do not answer JSON (the
// sandbox's CA certificate). opts apply to this call only (see Option).
//
// A non-2xx response is returned as an *APIError, together with the
// Response. Every POST carries an Idempotency-Key generated once per call
// and reused on every retry, unless WithoutIdempotencyKey or
// WithIdempotencyKey says otherwise. Idempotent methods and keyed requests
// are retried after connection errors, 429s and 5xx (except 501) according
// to the retry policy; a POST without a key never is. When retries run out,
// the last response's error is returned. ctx bounds the whole call, waits
// included. If the credential that req.Auth names is not configured, Do
// returns an error wrapping ErrNoCredential and sends nothing.
//
// A failure without a response (connection refused, timeout) is returned
// with the request's method and redacted URL, wrapping net/http's error,
// so errors.Is(err, syscall.ECONNREFUSED) and errors.As with *net.OpError
// work. When a loopback base URL refuses the connection, the error adds
// that the sandbox may not be running and how to start it.
func (c *Client) Do(ctx context.Context, req *Request, v any, opts ...Option) (*Response, error) {
	if ctx == nil {
		return nil, errors.New("hospo: nil context")
	}
	if req == nil {
		return nil, errors.New("hospo: nil request")
	}
	s := &c.defaults
	if len(opts) > 0 {
		cp := c.defaults
		for _, o := range opts {
			o(&cp)
		}
		s = &cp
	}
	method := req.Method
	if method == "" {
		method = http.MethodGet
	}
	if c.tel == nil {
		return c.do(ctx, s, method, req, v, nil)
	}
	ctx, ct := c.tel.start(ctx, method, req.Route)
	resp, err := c.do(ctx, s, method, req, v, ct)
	ct.end(ctx, resp, err)
	return resp, err
}

// do is Do after its arguments are checked; ct is the call's telemetry,
// nil when it is off.
func (c *Client) do(ctx context.Context, s *settings, method string, req *Request, v any, ct *callTelemetry) (*Response, error) {
	if req.Path == "" && req.Route != "" {
		path, err := routePath(req.Route, req.Params)
		if err != nil {
			return nil, err
		}
		withPath := *req
		withPath.Path = path
		req = &withPath
	}
	rawURL, err := c.requestURL(s, req)
	if err != nil {
		return nil, err
	}
	// The key is fixed here, once per call, so every retry repeats it.
	key := s.idemKey
	if key == "" && !s.noIdem && method == http.MethodPost {
		key = newIdempotencyKey()
	}
	st := &callState{
		Context:   ctx,
		retryable: retryableMethod(method) || key != "",
		timeout:   s.timeout,
		red:       s.redactor(),
		tel:       ct,
	}
	hreq, err := newHTTPRequest(st, s, method, rawURL, key, req)
	if err != nil {
		return nil, err
	}
	if ct != nil {
		ct.st = st
		ct.request(ctx, hreq.URL, hreq.Header)
	}

	rc := c.rc
	if s.retry != c.defaults.retry {
		rc = newRetryClient(c.hc, s.retry)
	}
	resp, err := rc.Do(hreq)
	if err != nil {
		if resp != nil {
			drainClose(resp.Body)
		}
		terr := st.red.newTransportError(method, hreq.URL, err)
		terr.hint = sandboxHint(hreq.URL, err)
		if ctx.Err() == nil {
			c.logGiveUp(ctx, method, hreq.URL.Path, st, 0, terr)
		}
		return nil, terr
	}
	return c.handleResponse(ctx, method, hreq.URL, st, resp, v)
}

// requestURL resolves req's path and query under the base URL and adds the
// access token when the endpoint takes one. It builds the text in one
// buffer; newHTTPRequest parses it once.
func (c *Client) requestURL(s *settings, req *Request) (string, error) {
	if strings.HasPrefix(req.Path, "/") {
		return "", fmt.Errorf("hospo: request path %q must be relative to the base URL (no leading slash)", req.Path)
	}
	baseStr := c.baseStr
	if s.baseURL != c.defaults.baseURL {
		b, err := parseBaseURL(s.baseURL)
		if err != nil {
			return "", err
		}
		baseStr = b.String()
	}
	var token string
	switch req.Auth {
	case AuthNone:
	case AuthAccessToken:
		if s.accessToken == "" {
			return "", fmt.Errorf("%w: %s needs an access token (WithAccessToken)", ErrNoCredential, req.Path)
		}
		token = url.QueryEscape(s.accessToken)
	case AuthAPIKey:
		if s.apiKey == "" {
			return "", fmt.Errorf("%w: %s needs an API key (WithAPIKey)", ErrNoCredential, req.Path)
		}
	case AuthAdminKey:
		if s.adminKey == "" {
			return "", fmt.Errorf("%w: %s needs the admin key (WithAdminKey)", ErrNoCredential, req.Path)
		}
	default:
		return "", fmt.Errorf("hospo: unknown %v for %s", req.Auth, req.Path)
	}

	var b strings.Builder
	b.Grow(len(baseStr) + len(req.Path) + 64 + len(token))
	b.WriteString(baseStr)
	b.WriteString(req.Path)
	sep := byte('?')
	if strings.IndexByte(req.Path, '?') >= 0 {
		sep = '&'
	}
	// The query is encoded as url.Values.Encode does (keys sorted), written
	// straight into the buffer.
	if len(req.Query) > 0 {
		keys := make([]string, 0, 8)
		for k := range req.Query {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			ek := url.QueryEscape(k)
			for _, v := range req.Query[k] {
				b.WriteByte(sep)
				sep = '&'
				b.WriteString(ek)
				b.WriteByte('=')
				b.WriteString(url.QueryEscape(v))
			}
		}
	}
	if token != "" {
		b.WriteByte(sep)
		b.WriteString(QueryAccessToken)
		b.WriteByte('=')
		b.WriteString(token)
	}
	return b.String(), nil
}

// newHTTPRequest builds the retryable request: body encoded once and
// replayed from memory on every attempt, headers, credential header and
// Idempotency-Key.
func newHTTPRequest(ctx context.Context, s *settings, method, rawURL, key string, req *Request) (*retryablehttp.Request, error) {
	var body any // untyped nil: no body at all
	switch b := req.Body.(type) {
	case nil:
	case json.RawMessage:
		body = []byte(b)
	default:
		enc, err := json.Marshal(b)
		if err != nil {
			return nil, fmt.Errorf("hospo: encode %s %s body: %w", method, req.Path, err)
		}
		body = enc
	}
	hreq, err := retryablehttp.NewRequestWithContext(ctx, method, rawURL, body)
	if err != nil {
		return nil, s.redactor().wrap("hospo: "+method+" "+req.Path, err)
	}
	h := hreq.Header
	for k, vs := range s.headers {
		h[k] = append([]string(nil), vs...)
	}
	h.Set("Accept", "application/json")
	if s.userAgent != "" {
		h.Set("User-Agent", s.userAgent)
	}
	if body != nil {
		h.Set("Content-Type", "application/json")
	}
	switch req.Auth {
	case AuthAPIKey:
		h.Set(HeaderAPIKey, s.apiKey)
	case AuthAdminKey:
		h.Set(HeaderAdminKey, s.adminKey)
	}
	if key != "" {
		h.Set(HeaderIdempotencyKey, key)
	}
	return hreq, nil
}

// handleResponse consumes the final response: decodes a 2xx body into v, or
// a non-2xx one into an *APIError.
func (c *Client) handleResponse(ctx context.Context, method string, u *url.URL, st *callState, resp *http.Response, v any) (*Response, error) {
	out := &Response{Response: resp, RequestID: resp.Header.Get(HeaderRequestID)}
	body := resp.Body
	resp.Body = http.NoBody
	defer drainClose(body)

	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		b, err := io.ReadAll(io.LimitReader(body, maxErrorBody))
		if err != nil && len(b) == 0 {
			return out, st.red.newTransportError(method, u, fmt.Errorf("reading HTTP %d error body: %w", resp.StatusCode, err))
		}
		apiErr := decodeAPIError(resp.StatusCode, resp.Header, b, st.red.string)
		apiErr.Method, apiErr.Path = method, st.red.string(u.Path)
		if shouldRetryStatus(resp.StatusCode) {
			c.logGiveUp(ctx, method, u.Path, st, resp.StatusCode, apiErr)
		}
		return out, apiErr
	}
	if v == nil {
		return out, nil
	}
	if w, ok := v.(io.Writer); ok {
		if _, err := io.Copy(w, body); err != nil {
			return out, st.red.newTransportError(method, u, fmt.Errorf("reading HTTP %d body: %w", resp.StatusCode, err))
		}
		return out, nil
	}
	if err := json.NewDecoder(body).Decode(v); err != nil && err != io.EOF {
		// io.EOF: an empty body (204, or a 202 with nothing) leaves v as is.
		return out, st.red.wrap(fmt.Sprintf("hospo: decode %s %s response (HTTP %d, request id %q)",
			method, u.Path, resp.StatusCode, out.RequestID), err)
	}
	return out, nil
}

func shouldRetryStatus(code int) bool {
	return code == http.StatusTooManyRequests || (code >= 500 && code != http.StatusNotImplemented)
}

// logGiveUp warns that a call ends in a failure that a retry might have
// cured: retries ran out, or the request was not safe to retry.
func (c *Client) logGiveUp(ctx context.Context, method, path string, st *callState, status int, err error) {
	l := c.tr.logger
	if l == nil || !l.Enabled(ctx, slog.LevelWarn) {
		return
	}
	attrs := []slog.Attr{
		slog.String("method", method),
		slog.String("path", path),
		slog.Int("attempts", st.attempt),
		slog.Bool("retryable", st.retryable),
	}
	if status != 0 {
		attrs = append(attrs, slog.Int("status", status))
	}
	attrs = append(attrs, slog.String("error", st.red.string(err.Error())))
	l.LogAttrs(ctx, slog.LevelWarn, "hospo: giving up", attrs...)
}

// drainClose reads what is left of a body, up to a bound, so that the
// connection can be reused, then closes it.
func drainClose(body io.ReadCloser) {
	if body == nil {
		return
	}
	bp := drainBufs.Get().(*[]byte)
	for n := 0; n < maxDrain; {
		m, err := body.Read(*bp)
		n += m
		if err != nil || m == 0 {
			break
		}
	}
	drainBufs.Put(bp)
	body.Close()
}

// maxDrain bounds the bytes read from a body only to reuse its connection;
// beyond it, closing the connection is cheaper.
const maxDrain = 64 << 10

// drainBufs keeps drainClose from allocating on every call.
var drainBufs = sync.Pool{New: func() any { b := make([]byte, 4096); return &b }}

// keepKeysOnOrigin wraps a CheckRedirect so that the API key and admin key
// headers only follow a redirect that stays on the original scheme and
// host. net/http strips Authorization on such a redirect, but copies every
// other header, ours included, to wherever the Location points. next (nil:
// net/http's default of at most 10 redirects) then decides as before.
func keepKeysOnOrigin(next func(*http.Request, []*http.Request) error) func(*http.Request, []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		if orig := via[0].URL; req.URL.Host != orig.Host || req.URL.Scheme != orig.Scheme {
			req.Header.Del(HeaderAPIKey)
			req.Header.Del(HeaderAdminKey)
		}
		if next != nil {
			return next(req, via)
		}
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}
}
