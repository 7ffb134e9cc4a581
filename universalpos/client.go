package universalpos

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/hospo-dev/hospo-go/internal/baseurl"
)

// Defaults of the Client. Retries are few because the service has its own
// slower retry loop for orders (contract: backoff from 1 s to 60 s); the
// Client's retries only smooth over a blip.
const (
	DefaultClientTimeout = 10 * time.Second
	DefaultClientRetries = 2
	DefaultBackoffBase   = 200 * time.Millisecond
	DefaultBackoffMax    = 2 * time.Second
	// maxResponseBytes bounds what the Client reads from a POS; menus are
	// the largest answer and stay far below it.
	maxResponseBytes = 8 << 20
)

// Client calls a universal POS: the service side of the contract.
//
// Every call sends "Authorization: Bearer <token>", gives each attempt its
// own timeout, and retries on 5xx, timeouts and broken connections (never
// on a 4xx, which is final). Retrying POST /orders is safe because the POS
// de-duplicates by orderId. Every error is an *Error, whose Temporary
// method says whether trying later may succeed. A Client is safe for
// concurrent use.
type Client struct {
	base        *url.URL
	baseErr     error
	token       string
	hc          *http.Client
	timeout     time.Duration
	retries     int
	backoffBase time.Duration
	backoffMax  time.Duration
	userAgent   string
}

// ClientOption configures a Client.
type ClientOption func(*Client)

// WithHTTPClient sets the HTTP client used for requests (its transport,
// proxy and TLS settings). Timeouts come from WithTimeout regardless.
func WithHTTPClient(hc *http.Client) ClientOption {
	return func(c *Client) {
		if hc != nil {
			c.hc = hc
		}
	}
}

// WithTimeout sets how long one attempt may take, response body included;
// default DefaultClientTimeout. A timed-out attempt counts as temporary.
func WithTimeout(d time.Duration) ClientOption {
	return func(c *Client) {
		if d > 0 {
			c.timeout = d
		}
	}
}

// WithRetries sets how many times a call is retried after a temporary
// failure (so n+1 attempts at most); default DefaultClientRetries, 0 turns
// retries off.
func WithRetries(n int) ClientOption {
	return func(c *Client) {
		if n >= 0 {
			c.retries = n
		}
	}
}

// WithBackoff sets the wait before retry k: base*2^k with jitter, at most
// maxWait. Defaults DefaultBackoffBase and DefaultBackoffMax.
func WithBackoff(base, maxWait time.Duration) ClientOption {
	return func(c *Client) {
		if base > 0 {
			c.backoffBase = base
		}
		if maxWait > 0 {
			c.backoffMax = maxWait
		}
	}
}

// WithUserAgent sets the User-Agent header.
func WithUserAgent(ua string) ClientOption {
	return func(c *Client) { c.userAgent = ua }
}

// NewClient returns a Client for the POS at baseURL (the URL under which it
// serves /health, /menus and /orders) that authenticates with token.
//
// A baseURL that is not an absolute http or https URL makes every call
// fail with a non-temporary *Error that matches client.ErrInvalidBaseURL
// and, like client.New's, says what is wrong and gives the URL that was
// probably meant ("127.0.0.1:9090" gets "http://127.0.0.1:9090"). A query
// or fragment in baseURL is dropped: the token travels in the
// Authorization header only, and URLs appear in error messages.
func NewClient(baseURL, token string, opts ...ClientOption) *Client {
	c := &Client{
		token:       token,
		hc:          http.DefaultClient,
		timeout:     DefaultClientTimeout,
		retries:     DefaultClientRetries,
		backoffBase: DefaultBackoffBase,
		backoffMax:  DefaultBackoffMax,
		userAgent:   "hospo-go-universalpos",
	}
	c.base, c.baseErr = parseBaseURL(baseURL)
	for _, o := range opts {
		o(c)
	}
	return c
}

// posBaseURL is what a POS's base URL must look like: the rules of the
// service's base URL (client.New), except that a query or fragment is
// dropped rather than refused.
var posBaseURL = baseurl.Rules{
	Name:      "POS base URL",
	Server:    "a universal POS",
	NoHost:    `has no host; use the URL the POS serves /health, /menus and /orders under, such as "https://pos.example.com/"`,
	DropQuery: true,
}

// parseBaseURL checks a POS's base URL and shapes it for the Client, which
// appends paths that start with "/".
func parseBaseURL(s string) (*url.URL, error) {
	u, err := posBaseURL.Parse(s)
	if err != nil {
		return nil, err
	}
	u.Path = strings.TrimRight(u.Path, "/")
	u.RawPath = ""
	u.RawQuery, u.ForceQuery, u.Fragment, u.RawFragment = "", false, "", ""
	return u, nil
}

// Health calls GET /health. A POS answering {"status": "FAILED"} is not an
// error: the status is returned with its message. Anything but a 200 with
// status OK or FAILED is an *Error.
func (c *Client) Health(ctx context.Context) (HealthStatus, error) {
	const op = "GET /health"
	var st HealthStatus
	status, body, err := c.do(ctx, http.MethodGet, "/health", nil)
	if err != nil {
		return HealthStatus{}, err
	}
	if status != http.StatusOK {
		return HealthStatus{}, &Error{Op: op, StatusCode: status, Message: "unexpected status, want 200"}
	}
	if err := json.Unmarshal(body, &st); err != nil {
		return HealthStatus{}, &Error{Op: op, StatusCode: status, Message: "invalid health body", Err: err}
	}
	if st.Status != HealthOK && st.Status != HealthFailed {
		return HealthStatus{}, &Error{Op: op, StatusCode: status, Message: fmt.Sprintf("invalid health status %q", st.Status)}
	}
	return st, nil
}

// Menus calls GET /menus and returns the POS's menus. A body that does not
// decode (money with more than two fraction digits included) is an *Error;
// use ValidateMenus to check the menus' consistency.
func (c *Client) Menus(ctx context.Context) ([]Menu, error) {
	const op = "GET /menus"
	status, body, err := c.do(ctx, http.MethodGet, "/menus", nil)
	if err != nil {
		return nil, err
	}
	if status != http.StatusOK {
		return nil, &Error{Op: op, StatusCode: status, Message: "unexpected status, want 200"}
	}
	var mb struct {
		Menus *[]Menu `json:"menus"`
	}
	if err := json.Unmarshal(body, &mb); err != nil {
		return nil, &Error{Op: op, StatusCode: status, Message: "invalid menus body", Err: err}
	}
	if mb.Menus == nil {
		return nil, &Error{Op: op, StatusCode: status, Message: "invalid menus body: no menus array"}
	}
	return *mb.Menus, nil
}

// SendOrder calls POST /orders and returns the POS's order id. The POS
// answers 201 for a new order and 200 with the same posOrderId when it has
// seen the orderId before; both are success. A 4xx means the POS refused
// the order for good (Temporary is false); a 5xx or timeout is temporary.
func (c *Client) SendOrder(ctx context.Context, order Order) (posOrderID string, err error) {
	const op = "POST /orders"
	payload, err := json.Marshal(order)
	if err != nil {
		return "", &Error{Op: op, Message: "cannot encode the order", Err: err}
	}
	status, body, err := c.do(ctx, http.MethodPost, "/orders", payload)
	if err != nil {
		return "", err
	}
	if status != http.StatusOK && status != http.StatusCreated {
		return "", &Error{Op: op, StatusCode: status, Message: "unexpected status, want 201 or 200"}
	}
	var oc orderCreated
	if err := json.Unmarshal(body, &oc); err != nil {
		return "", &Error{Op: op, StatusCode: status, Message: "invalid order response", Err: err}
	}
	if oc.POSOrderID == "" {
		return "", &Error{Op: op, StatusCode: status, Message: "invalid order response: no posOrderId"}
	}
	return oc.POSOrderID, nil
}

// do runs one call with retries. It returns the status and body of a 2xx
// (or other non-error status below 400), or an *Error.
func (c *Client) do(ctx context.Context, method, path string, payload []byte) (int, []byte, error) {
	op := method + " " + path
	if c.baseErr != nil {
		return 0, nil, &Error{Op: op, Message: c.baseErr.Error(), Err: c.baseErr}
	}
	for attempt := 0; ; attempt++ {
		status, body, err := c.attempt(ctx, method, path, payload)
		if err == nil {
			return status, body, nil
		}
		err.Op = op
		if !err.Temporary() || attempt >= c.retries || ctx.Err() != nil {
			return 0, nil, err
		}
		if !sleep(ctx, c.backoff(attempt)) {
			return 0, nil, err
		}
	}
}

// attempt sends one request under its own timeout.
func (c *Client) attempt(ctx context.Context, method, path string, payload []byte) (int, []byte, *Error) {
	actx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	u := *c.base
	u.Path += path
	var rd io.Reader
	if payload != nil {
		rd = bytes.NewReader(payload)
	}
	req, err := http.NewRequestWithContext(actx, method, u.String(), rd)
	if err != nil {
		return 0, nil, &Error{Message: "cannot build the request", Err: err}
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	req.Header.Set("Accept", "application/json")
	if payload != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.userAgent != "" {
		req.Header.Set("User-Agent", c.userAgent)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return 0, nil, c.transportError(ctx, actx, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes+1))
	if err != nil {
		return 0, nil, c.transportError(ctx, actx, err)
	}
	if len(body) > maxResponseBytes {
		return 0, nil, &Error{StatusCode: resp.StatusCode, Message: "response too large"}
	}
	if resp.StatusCode >= 400 {
		return 0, nil, errorFromBody(resp.StatusCode, body)
	}
	return resp.StatusCode, body, nil
}

// transportError explains a failure without a response. The attempt's own
// deadline is reported as a timeout; the caller's context as itself.
func (c *Client) transportError(ctx, actx context.Context, err error) *Error {
	switch {
	case ctx.Err() != nil:
		return &Error{Message: "cancelled: " + ctx.Err().Error(), Err: ctx.Err()}
	case errors.Is(actx.Err(), context.DeadlineExceeded):
		return &Error{Message: fmt.Sprintf("timed out after %s", c.timeout), Err: context.DeadlineExceeded}
	}
	return &Error{Err: err}
}

// errorFromBody reads the contract's error body {"error", "fields"}; any
// other body leaves the message empty so Error() shows the status text.
func errorFromBody(status int, body []byte) *Error {
	e := &Error{StatusCode: status}
	var eb errorBody
	if json.Unmarshal(body, &eb) == nil {
		e.Message = eb.Error
		e.Fields = eb.Fields
	}
	return e
}

func (c *Client) backoff(attempt int) time.Duration {
	d := c.backoffBase << min(attempt, 20)
	if d <= 0 || d > c.backoffMax {
		d = c.backoffMax
	}
	// Full jitter over the upper half, so parallel callers spread out.
	return d/2 + rand.N(d/2+1)
}

// sleep waits d or until ctx ends; it reports whether the wait completed.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
