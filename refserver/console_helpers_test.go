package refserver_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/possync"
	"github.com/hospo-dev/hospo-go/refserver/refservertest"
	"github.com/hospo-dev/hospo-go/sandbox"
	"github.com/hospo-dev/hospo-go/wallet"
)

// consoleURL serves env's server on a listener of its own and returns its
// base URL, for the console's pages. refservertest's listeners check every
// response against the API's OpenAPI document, which the console's HTML
// pages are not part of.
func consoleURL(t testing.TB, env *refservertest.Env) string {
	t.Helper()
	ts := httptest.NewServer(env.Server.Handler())
	t.Cleanup(ts.Close)
	return ts.URL
}

// consoleAgent is a browser stand-in for the console: a cookie jar and no
// automatic redirects, so that tests see every 303.
type consoleAgent struct {
	t    *testing.T
	base string
	hc   *http.Client
}

func newConsoleAgent(t *testing.T, base string, transport http.RoundTripper) *consoleAgent {
	t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &consoleAgent{t: t, base: base, hc: &http.Client{
		Transport: transport,
		Jar:       jar,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}}
}

// loggedInAgent returns an agent of env's console logged in with the
// admin key.
func loggedInAgent(t *testing.T, env *refservertest.Env) *consoleAgent {
	t.Helper()
	a := newConsoleAgent(t, consoleURL(t, env), nil)
	a.login(env.AdminKey)
	return a
}

// do sends a request and returns the response with its body read.
func (a *consoleAgent) do(req *http.Request) (*http.Response, string) {
	a.t.Helper()
	resp, err := a.hc.Do(req)
	if err != nil {
		a.t.Fatalf("%s %s: %v", req.Method, req.URL.Path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		a.t.Fatalf("%s %s: read body: %v", req.Method, req.URL.Path, err)
	}
	return resp, string(b)
}

func (a *consoleAgent) get(path string) (*http.Response, string) {
	a.t.Helper()
	req, err := http.NewRequest(http.MethodGet, a.base+path, nil)
	if err != nil {
		a.t.Fatal(err)
	}
	return a.do(req)
}

// post sends a form, with extra headers (Origin and the like) when given.
func (a *consoleAgent) post(path string, form url.Values, header http.Header) (*http.Response, string) {
	a.t.Helper()
	req, err := http.NewRequest(http.MethodPost, a.base+path, strings.NewReader(form.Encode()))
	if err != nil {
		a.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for k, vs := range header {
		req.Header[k] = vs
	}
	return a.do(req)
}

// login logs in with key and fails the test unless it works.
func (a *consoleAgent) login(key string) *http.Response {
	a.t.Helper()
	resp, body := a.post("/console/login", url.Values{"adminKey": {key}}, nil)
	if resp.StatusCode != http.StatusSeeOther {
		a.t.Fatalf("login: status %d, body:\n%s", resp.StatusCode, body)
	}
	return resp
}

var csrfField = regexp.MustCompile(`name="csrf" value="([0-9a-f]+)"`)

// csrf returns the CSRF token of the agent's session, read from a page's
// forms.
func (a *consoleAgent) csrf() string {
	a.t.Helper()
	resp, body := a.get("/console/controls")
	m := csrfField.FindStringSubmatch(body)
	if resp.StatusCode != http.StatusOK || m == nil {
		a.t.Fatalf("no CSRF token on the controls page (status %d)", resp.StatusCode)
	}
	return m[1]
}

// postControl posts form to a control of the controls page with the
// session's CSRF token csrf, fails the test unless the control redirects
// back to the page, and returns the page, which shows the control's
// outcome once.
func (a *consoleAgent) postControl(csrf, path string, form url.Values) string {
	a.t.Helper()
	form.Set("csrf", csrf)
	resp, _ := a.post(path, form, nil)
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/console/controls" {
		a.t.Fatalf("POST %s: %d to %q", path, resp.StatusCode, resp.Header.Get("Location"))
	}
	return a.mustPage("/console/controls")
}

// mustPage fetches a console page or fragment and fails unless it is a 200.
func (a *consoleAgent) mustPage(path string) string {
	a.t.Helper()
	resp, body := a.get(path)
	if resp.StatusCode != http.StatusOK {
		a.t.Fatalf("GET %s: status %d, body:\n%s", path, resp.StatusCode, body)
	}
	return body
}

// readJournal fetches GET /sandbox/requests?query and returns the body
// both decoded and raw.
func readJournal(t *testing.T, env *refservertest.Env, query string) (sandbox.Journal, []byte) {
	t.Helper()
	var raw json.RawMessage
	if st := env.AdminDo(t, http.MethodGet, "/sandbox/requests?"+query, nil, &raw); st != http.StatusOK {
		t.Fatalf("GET /sandbox/requests?%s: status %d: %s", query, st, raw)
	}
	var l sandbox.Journal
	if err := json.Unmarshal(raw, &l); err != nil {
		t.Fatalf("decode journal: %v", err)
	}
	return l, raw
}

// consoleCheck is an open check of the given location.
func consoleCheck(loc, number int64, staffID, total string) *possync.Check {
	return &possync.Check{
		TableNumber: 7, CheckNumber: number, LocationID: loc, StaffID: staffID, Guests: 2,
		Status:              possync.CheckStatus("open"),
		TotalAmount:         client.MustParseMoney(total),
		OutstandingAmount:   client.MustParseMoney(total),
		ServiceChargeAmount: client.MustParseMoney("0"),
		TipsPaid:            client.MustParseMoney("0"),
		Discounts:           []possync.Discount{},
		MenuItems:           []possync.MenuItem{},
	}
}

// consoleTestCard is the card the console tests tokenise: its number and
// CVC must never show up anywhere the console or the journal shows.
var consoleTestCard = wallet.CardDetails{Number: "4242424242424242", CVC: "9371", ExpiryMonth: 9, ExpiryYear: 39, HolderName: "Console Tester"}

// addConsoleCard gives d a providerB card, consoleTestCard, makes it
// d.Card and returns its id.
func addConsoleCard(t *testing.T, d *refservertest.Diner, nickname string) int64 {
	t.Helper()
	card, err := d.Wallet.AddCard(context.Background(), wallet.AddCardRequest{
		Card: consoleTestCard, Providers: []wallet.Gateway{wallet.ProviderB}, Nickname: nickname,
	})
	if err != nil {
		t.Fatalf("AddCard: %v", err)
	}
	d.Card = card
	return card.CardID
}
