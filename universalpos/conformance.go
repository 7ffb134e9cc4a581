package universalpos

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Names of the checks RunConformance runs, in the order it runs them. Each is one
// line of a Report.
const (
	CheckHealth             = "health"
	CheckMenusShape         = "menus/shape"
	CheckMenusConsistency   = "menus/consistency"
	CheckAuthMissingToken   = "auth/missing-token"
	CheckAuthWrongToken     = "auth/wrong-token"
	CheckOrderAccepted      = "orders/accepted"
	CheckOrderIdempotent    = "orders/idempotent-resend"
	CheckOrderRejectsBroken = "orders/rejects-invalid"
)

// ConformanceConfig says which POS RunConformance exercises and how.
type ConformanceConfig struct {
	// URL is the POS's base URL, under which it serves /health, /menus
	// and /orders.
	URL string
	// Token is the bearer token the POS issued to the service.
	Token string
	// HTTPClient sends the requests; nil means http.DefaultClient.
	HTTPClient *http.Client
	// Timeout bounds each request; 0 means DefaultClientTimeout.
	Timeout time.Duration
	// LocationID is the posLocationId of the test orders; "" means "1".
	LocationID string
	// Now stamps the test orders' createdAt; nil means time.Now.
	Now func() time.Time
}

// RunConformance exercises the POS at cfg.URL the way the service does and reports
// each check:
//
//   - health: GET /health answers 200 {"status": "OK"} or
//     {"status": "FAILED", "message": "..."};
//   - menus/shape: GET /menus answers 200 {"menus": [...]} with every
//     field of the contract present and of the right JSON type, prices
//     with at most 2 fraction digits;
//   - menus/consistency: ValidateMenus finds nothing;
//   - auth/missing-token and auth/wrong-token: all three endpoints answer
//     401 without the token and with a wrong one;
//   - orders/accepted: an order built from the menu it fetched (the first
//     available item, with the least choice each modifier group allows)
//     is answered 201 {"posOrderId"};
//   - orders/idempotent-resend: sending that order again answers 200 with
//     the same posOrderId;
//   - orders/rejects-invalid: an order without items is answered with a
//     4xx (a 5xx would make the service retry it for nothing).
//
// RunConformance creates test orders at the POS, so point it at a test
// environment. It never returns nil.
func RunConformance(ctx context.Context, cfg ConformanceConfig) *Report {
	c := &checker{cfg: cfg, report: &Report{URL: cfg.URL}}
	if c.cfg.HTTPClient == nil {
		c.cfg.HTTPClient = http.DefaultClient
	}
	if c.cfg.Timeout <= 0 {
		c.cfg.Timeout = DefaultClientTimeout
	}
	if c.cfg.LocationID == "" {
		c.cfg.LocationID = "1"
	}
	if c.cfg.Now == nil {
		c.cfg.Now = time.Now
	}
	base, err := parseBaseURL(cfg.URL)
	if err != nil {
		c.fail("config", "%v", err)
		return c.report
	}
	c.base = base.String()
	if cfg.Token == "" {
		c.fail("config", "no token: the service always sends one")
		return c.report
	}
	c.checkHealth(ctx)
	menus := c.checkMenus(ctx)
	order, orderErr := sampleOrder(menus, c.cfg.LocationID, c.cfg.Now())
	c.checkAuth(ctx, menus, orderErr)
	c.checkOrders(ctx, order, orderErr)
	return c.report
}

type checker struct {
	cfg    ConformanceConfig
	base   string
	report *Report
}

func (c *checker) pass(name, format string, args ...any) {
	c.report.Results = append(c.report.Results, Result{Name: name, Passed: true, Reason: fmt.Sprintf(format, args...)})
}

func (c *checker) fail(name, format string, args ...any) {
	c.report.Results = append(c.report.Results, Result{Name: name, Reason: fmt.Sprintf(format, args...)})
}

// response is what the checker saw of one request.
type response struct {
	status int
	body   []byte
}

// call sends one request with the given Authorization header value (""
// sends none). Transport errors come back as errors; statuses do not.
func (c *checker) call(ctx context.Context, method, path, auth string, body []byte) (response, error) {
	ctx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return response{}, err
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.cfg.HTTPClient.Do(req)
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return response{}, fmt.Errorf("no answer within %s", c.cfg.Timeout)
		}
		// The method and URL are on the report line already.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return response{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes+1))
	if err != nil {
		return response{}, fmt.Errorf("reading the body: %w", err)
	}
	if len(b) > maxResponseBytes {
		return response{}, errors.New("response larger than 8 MiB")
	}
	return response{status: resp.StatusCode, body: b}, nil
}

func (c *checker) bearer() string { return "Bearer " + c.cfg.Token }

func (c *checker) checkHealth(ctx context.Context) {
	resp, err := c.call(ctx, http.MethodGet, "/health", c.bearer(), nil)
	if err != nil {
		c.fail(CheckHealth, "GET /health: %v", err)
		return
	}
	if resp.status != http.StatusOK {
		c.fail(CheckHealth, "GET /health answered %d, want 200", resp.status)
		return
	}
	tree, err := parseTree(resp.body)
	if err != nil {
		c.fail(CheckHealth, "GET /health: body is not JSON: %v", err)
		return
	}
	var p problems
	o, ok := asObject(tree, "", &p)
	if !ok {
		c.fail(CheckHealth, "GET /health: body must be a JSON object")
		return
	}
	status, ok := o.str("status", false)
	switch {
	case !ok:
		c.fail(CheckHealth, "GET /health: %s", p.list()[0])
	case status == string(HealthOK):
		c.pass(CheckHealth, `GET /health answered {"status": "OK"}`)
	case status == string(HealthFailed):
		if msg, ok := o.str("message", true); ok {
			c.pass(CheckHealth, "GET /health answered FAILED with message %q (shape is right; the POS is not taking orders)", msg)
		} else {
			c.fail(CheckHealth, `GET /health: status FAILED needs a non-empty "message"`)
		}
	default:
		c.fail(CheckHealth, `GET /health: status %q, want "OK" or "FAILED"`, status)
	}
}

func (c *checker) checkMenus(ctx context.Context) []Menu {
	resp, err := c.call(ctx, http.MethodGet, "/menus", c.bearer(), nil)
	if err != nil {
		c.fail(CheckMenusShape, "GET /menus: %v", err)
		c.fail(CheckMenusConsistency, "not checked: no menus")
		return nil
	}
	if resp.status != http.StatusOK {
		c.fail(CheckMenusShape, "GET /menus answered %d, want 200", resp.status)
		c.fail(CheckMenusConsistency, "not checked: no menus")
		return nil
	}
	tree, err := parseTree(resp.body)
	if err != nil {
		c.fail(CheckMenusShape, "GET /menus: body is not JSON: %v", err)
		c.fail(CheckMenusConsistency, "not checked: no menus")
		return nil
	}
	if probs := checkMenusShape(tree); len(probs) > 0 {
		c.fail(CheckMenusShape, "%s", summarise(probs))
		c.fail(CheckMenusConsistency, "not checked: the menus do not have the contract's shape")
		return nil
	}
	var mb menusBody
	if err := json.Unmarshal(resp.body, &mb); err != nil {
		c.fail(CheckMenusShape, "GET /menus: %v", err)
		c.fail(CheckMenusConsistency, "not checked: no menus")
		return nil
	}
	items := 0
	for _, m := range mb.Menus {
		for range m.Items() {
			items++
		}
	}
	c.pass(CheckMenusShape, "%s, %s", plural(len(mb.Menus), "menu"), plural(items, "item"))
	if probs := ValidateMenus(mb.Menus); len(probs) > 0 {
		c.fail(CheckMenusConsistency, "%s", summarise(probs))
		return mb.Menus
	}
	if len(mb.Menus) == 0 {
		c.fail(CheckMenusConsistency, "the POS serves no menu, so nothing can be ordered")
		return nil
	}
	c.pass(CheckMenusConsistency, "unique PLUs, sound modifier bounds, deals name existing items, prices valid")
	return mb.Menus
}

// summarise lists the first few problems on one line.
func summarise(probs []Problem) string {
	const show = 5
	parts := make([]string, 0, show)
	for i, p := range probs {
		if i == show {
			break
		}
		parts = append(parts, p.String())
	}
	s := strings.Join(parts, "; ")
	if len(probs) > show {
		s += fmt.Sprintf("; and %d more", len(probs)-show)
	}
	return s
}

// checkAuth sends every endpoint a request without a token and one with a
// wrong token. The order sent is a valid one with a fresh orderId, so a POS
// that does not check the token at all shows it by creating the order.
func (c *checker) checkAuth(ctx context.Context, menus []Menu, orderErr error) {
	orderBody := func() []byte {
		if orderErr != nil {
			return []byte(`{}`)
		}
		o, _ := sampleOrder(menus, c.cfg.LocationID, c.cfg.Now())
		b, _ := json.Marshal(o)
		return b
	}
	wrong := "Bearer wrong-" + randomHex(16)
	for _, tc := range []struct{ name, auth, what string }{
		{CheckAuthMissingToken, "", "without a token"},
		{CheckAuthWrongToken, wrong, "with a wrong token"},
	} {
		var bad []string
		for _, ep := range []struct {
			method, path string
			body         []byte
		}{
			{http.MethodGet, "/health", nil},
			{http.MethodGet, "/menus", nil},
			{http.MethodPost, "/orders", orderBody()},
		} {
			resp, err := c.call(ctx, ep.method, ep.path, tc.auth, ep.body)
			switch {
			case err != nil:
				bad = append(bad, fmt.Sprintf("%s %s: %v", ep.method, ep.path, err))
			case resp.status != http.StatusUnauthorized:
				bad = append(bad, fmt.Sprintf("%s %s answered %d", ep.method, ep.path, resp.status))
			}
		}
		if len(bad) > 0 {
			c.fail(tc.name, "%s, want 401 everywhere: %s", tc.what, strings.Join(bad, "; "))
		} else {
			c.pass(tc.name, "GET /health, GET /menus and POST /orders answer 401 %s", tc.what)
		}
	}
}

func (c *checker) checkOrders(ctx context.Context, order Order, orderErr error) {
	if orderErr != nil {
		c.fail(CheckOrderAccepted, "not checked: %v", orderErr)
		c.fail(CheckOrderIdempotent, "not checked: no order was accepted")
	} else {
		c.checkOrderAccepted(ctx, order)
	}
	resp, err := c.call(ctx, http.MethodPost, "/orders", c.bearer(),
		fmt.Appendf(nil, `{"orderId":%q,"posLocationId":%q,"fulfillmentType":"order-at-table","fulfillment":{},"items":[],"total":0,"createdAt":%d}`,
			newOrderID(), c.cfg.LocationID, c.cfg.Now().Unix()))
	switch {
	case err != nil:
		c.fail(CheckOrderRejectsBroken, "POST /orders with no items: %v", err)
	case resp.status == http.StatusUnauthorized || resp.status == http.StatusForbidden:
		c.fail(CheckOrderRejectsBroken, "an order with no items answered %d: the token was refused, so validation was not reached", resp.status)
	case resp.status >= 400 && resp.status < 500:
		c.pass(CheckOrderRejectsBroken, "an order with no items is refused with %d", resp.status)
	default:
		c.fail(CheckOrderRejectsBroken, "an order with no items answered %d, want a 4xx (a 5xx makes the service retry, a 2xx accepts nonsense)", resp.status)
	}
}

func (c *checker) checkOrderAccepted(ctx context.Context, order Order) {
	body, err := json.Marshal(order)
	if err != nil {
		c.fail(CheckOrderAccepted, "cannot encode the test order: %v", err)
		c.fail(CheckOrderIdempotent, "not checked: no order was accepted")
		return
	}
	first, err := c.sendOrder(ctx, body, http.StatusCreated)
	if err != nil {
		c.fail(CheckOrderAccepted, "order %s (%s): %v", order.OrderID, describeOrder(order), err)
		c.fail(CheckOrderIdempotent, "not checked: no order was accepted")
		return
	}
	c.pass(CheckOrderAccepted, "order of %s accepted with posOrderId %q", describeOrder(order), first)
	again, err := c.sendOrder(ctx, body, http.StatusOK)
	switch {
	case err != nil:
		c.fail(CheckOrderIdempotent, "resending orderId %s: %v", order.OrderID, err)
	case again != first:
		c.fail(CheckOrderIdempotent, "resending orderId %s gave posOrderId %q, want the first one %q", order.OrderID, again, first)
	default:
		c.pass(CheckOrderIdempotent, "the resend answered 200 with the same posOrderId")
	}
}

// sendOrder posts body and wants status and a posOrderId.
func (c *checker) sendOrder(ctx context.Context, body []byte, want int) (string, error) {
	resp, err := c.call(ctx, http.MethodPost, "/orders", c.bearer(), body)
	if err != nil {
		return "", err
	}
	if resp.status != want {
		msg := ""
		if e := errorFromBody(resp.status, resp.body); e.Message != "" {
			msg = ": " + e.Message
			if len(e.Fields) > 0 {
				msg += " " + fmt.Sprint(e.Fields)
			}
		}
		return "", fmt.Errorf("answered %d, want %d%s", resp.status, want, msg)
	}
	var oc struct {
		POSOrderID *string `json:"posOrderId"`
	}
	if err := json.Unmarshal(resp.body, &oc); err != nil {
		return "", fmt.Errorf("body is not {\"posOrderId\": string}: %v", err)
	}
	if oc.POSOrderID == nil || *oc.POSOrderID == "" {
		return "", errors.New(`body has no "posOrderId"`)
	}
	return *oc.POSOrderID, nil
}

func describeOrder(o Order) string {
	if len(o.Items) == 0 {
		return "nothing"
	}
	it := o.Items[0]
	s := fmt.Sprintf("1 x %s (%s)", it.PLU, it.Name)
	if n := countOptions(it.Options); n > 0 {
		s += " with " + plural(n, "option")
	}
	return s + ", total " + o.Total.String()
}

func countOptions(opts []OrderOption) int {
	n := len(opts)
	for _, o := range opts {
		n += countOptions(o.Options)
	}
	return n
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// newOrderID returns a random version 4 UUID, the form of the service's
// order ids.
func newOrderID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
