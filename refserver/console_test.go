package refserver_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/hospo-dev/hospo-go/refserver/refservertest"
)

func TestConsoleLogin(t *testing.T) {
	t.Parallel()
	env := refservertest.Start(t)
	base := consoleURL(t, env)
	a := newConsoleAgent(t, base, nil)

	// Without a session: pages redirect to the login form, fragments say 401.
	for _, p := range []string{"/console", "/console/", "/console/locations", "/console/users", "/console/locations/1", "/console/requests", "/console/controls"} {
		resp, _ := a.get(p)
		if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/console/login" {
			t.Errorf("GET %s without a session: %d to %q, want 303 to /console/login", p, resp.StatusCode, resp.Header.Get("Location"))
		}
	}
	for _, p := range []string{"/console/live/locations", "/console/live/status", "/console/live/requests"} {
		if resp, _ := a.get(p); resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("GET %s without a session: %d, want 401", p, resp.StatusCode)
		}
	}
	if resp, _ := a.post("/console/controls/reset", url.Values{"confirm": {"yes"}}, nil); resp.StatusCode != http.StatusSeeOther ||
		resp.Header.Get("Location") != "/console/login" {
		t.Errorf("POST without a session: %d to %q, want 303 to the login form", resp.StatusCode, resp.Header.Get("Location"))
	}
	// The login page and the static files need no session.
	if body := a.mustPage("/console/login"); !strings.Contains(body, `name="adminKey"`) {
		t.Error("the login page has no admin key field")
	}
	resp, js := a.get("/console/static/console.js")
	if resp.StatusCode != http.StatusOK || !strings.Contains(resp.Header.Get("Content-Type"), "javascript") || !strings.Contains(js, "data-live") {
		t.Errorf("console.js: status %d, type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}

	for _, key := range []string{"", "wrong", env.AdminKey + "x"} {
		resp, body := a.post("/console/login", url.Values{"adminKey": {key}}, nil)
		if resp.StatusCode != http.StatusUnauthorized || len(resp.Cookies()) != 0 || !strings.Contains(body, "Wrong admin key") {
			t.Errorf("login with %q: status %d, %d cookies", key, resp.StatusCode, len(resp.Cookies()))
		}
	}
	if resp, _ := a.post("/console/login", url.Values{"adminKey": {env.AdminKey}}, http.Header{"Origin": {"http://evil.example"}}); resp.StatusCode != http.StatusForbidden {
		t.Errorf("cross-origin login: status %d, want 403", resp.StatusCode)
	}

	resp = a.login(env.AdminKey)
	if got := resp.Header.Get("Location"); got != "/console/locations" {
		t.Errorf("login redirects to %q", got)
	}
	cookies := resp.Cookies()
	if len(cookies) != 1 {
		t.Fatalf("login set %d cookies, want 1", len(cookies))
	}
	ck := cookies[0]
	if !ck.HttpOnly || ck.SameSite != http.SameSiteStrictMode || ck.Path != "/console" || ck.Secure {
		t.Errorf("session cookie %+v: want HttpOnly, SameSite=Strict, Path=/console, not Secure over plain HTTP", ck)
	}
	if strings.Contains(ck.Value, env.AdminKey) || len(ck.Value) != 64 {
		t.Errorf("session cookie value %q: want 64 hex characters unrelated to the admin key", ck.Value)
	}

	resp, body := a.get("/console/locations")
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, "Harbour Grill") {
		t.Fatalf("locations page after login: status %d", resp.StatusCode)
	}
	for h, want := range map[string]string{
		"X-Frame-Options":        "DENY",
		"X-Content-Type-Options": "nosniff",
		"Cache-Control":          "no-store",
		"Content-Type":           "text/html; charset=utf-8",
	} {
		if got := resp.Header.Get(h); got != want {
			t.Errorf("%s: %q, want %q", h, got, want)
		}
	}
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") || !strings.Contains(csp, "frame-ancestors 'none'") {
		t.Errorf("Content-Security-Policy %q", csp)
	}
	if resp, _ := a.get("/console/login"); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("login page with a session: %d, want a redirect into the console", resp.StatusCode)
	}

	// Logging out needs the CSRF token, then ends the session for good.
	if resp, _ := a.post("/console/logout", nil, nil); resp.StatusCode != http.StatusForbidden {
		t.Errorf("logout without the CSRF token: %d, want 403", resp.StatusCode)
	}
	stolen := ck.Value
	resp, _ = a.post("/console/logout", url.Values{"csrf": {a.csrf()}}, nil)
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/console/login" {
		t.Errorf("logout: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	if c := resp.Cookies(); len(c) != 1 || c[0].MaxAge >= 0 {
		t.Errorf("logout does not delete the cookie: %+v", c)
	}
	replay := newConsoleAgent(t, base, nil)
	u, _ := url.Parse(base + "/console")
	replay.hc.Jar.SetCookies(u, []*http.Cookie{{Name: ck.Name, Value: stolen, Path: "/console"}})
	if resp, _ := replay.get("/console/locations"); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("the session id still works after logout: %d", resp.StatusCode)
	}
}

// Over HTTPS the session cookie is Secure.
func TestConsoleCookieSecureOverTLS(t *testing.T) {
	t.Parallel()
	env := refservertest.Start(t)
	ts := httptest.NewTLSServer(env.Server.Handler())
	t.Cleanup(ts.Close)
	a := newConsoleAgent(t, ts.URL, ts.Client().Transport)
	ck := a.login(env.AdminKey).Cookies()
	if len(ck) != 1 || !ck[0].Secure || !ck[0].HttpOnly || ck[0].SameSite != http.SameSiteStrictMode {
		t.Errorf("session cookie over TLS: %+v, want Secure, HttpOnly, SameSite=Strict", ck)
	}
}

func TestConsoleCSRF(t *testing.T) {
	t.Parallel()
	env := refservertest.Start(t)
	base := consoleURL(t, env)
	a := newConsoleAgent(t, base, nil)
	a.login(env.AdminKey)
	token := a.csrf()
	other := newConsoleAgent(t, base, nil)
	other.login(env.AdminKey)
	otherToken := other.csrf()
	if token == otherToken {
		t.Fatal("two sessions share a CSRF token")
	}

	tests := []struct {
		name   string
		form   url.Values
		header http.Header
		want   int
	}{
		{"no token", url.Values{}, nil, http.StatusForbidden},
		{"wrong token", url.Values{"csrf": {strings.Repeat("0", 64)}}, nil, http.StatusForbidden},
		{"another session's token", url.Values{"csrf": {otherToken}}, nil, http.StatusForbidden},
		{"token but cross-origin", url.Values{"csrf": {token}}, http.Header{"Origin": {"http://evil.example"}}, http.StatusForbidden},
		{"token but cross-site fetch", url.Values{"csrf": {token}}, http.Header{"Sec-Fetch-Site": {"cross-site"}}, http.StatusForbidden},
		{"token", url.Values{"csrf": {token}}, nil, http.StatusSeeOther},
		{"token from the same origin", url.Values{"csrf": {token}}, http.Header{"Origin": {base}, "Sec-Fetch-Site": {"same-origin"}}, http.StatusSeeOther},
		{"token in the header", url.Values{}, http.Header{"X-Csrf-Token": {token}}, http.StatusSeeOther},
	}
	advanced := int64(0)
	for _, tt := range tests {
		tt.form.Set("advanceSeconds", "60")
		resp, _ := a.post("/console/controls/clock", tt.form, tt.header)
		if resp.StatusCode != tt.want {
			t.Errorf("%s: status %d, want %d", tt.name, resp.StatusCode, tt.want)
		}
		if tt.want == http.StatusSeeOther {
			advanced += 60
		}
	}
	var clock struct{ OffsetSeconds int64 }
	env.AdminDo(t, http.MethodGet, "/sandbox/clock", nil, &clock)
	if clock.OffsetSeconds != advanced {
		t.Errorf("clock offset %d s, want %d: a refused request moved the clock", clock.OffsetSeconds, advanced)
	}
}

// Text that users, POSes or admins supplied reaches the pages escaped.
func TestConsoleEscapesUserText(t *testing.T) {
	t.Parallel()
	env := refservertest.Start(t)
	ctx := context.Background()
	const (
		locName  = `<script>alert("loc")</script>`
		staffID  = `"><img src=x onerror=alert(1)>`
		nickname = `<svg onload=alert(2)>`
	)
	venue := env.NewVenue(t, refservertest.VenueConfig{Name: locName})
	loc, pos := venue.ID, venue.POS
	if _, err := pos.Heartbeat(ctx, loc); err != nil {
		t.Fatal(err)
	}
	if _, err := pos.PushCheck(ctx, consoleCheck(loc, 41, staffID, "30.00")); err != nil {
		t.Fatal(err)
	}
	addConsoleCard(t, env.NewDiner(t), nickname)

	a := loggedInAgent(t, env)
	// A fault whose path prefix carries markup, added through the console.
	if resp, _ := a.post("/console/controls/faults", url.Values{"csrf": {a.csrf()}, "pathPrefix": {"/<b>x"}, "status": {"503"}}, nil); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("add fault: %d", resp.StatusCode)
	}

	id := fmtID(loc)
	pages := map[string][]string{
		"/console/locations":            {`&lt;script&gt;alert(&#34;loc&#34;)&lt;/script&gt;`},
		"/console/live/locations":       {`&lt;script&gt;alert(&#34;loc&#34;)&lt;/script&gt;`},
		"/console/locations/" + id:      {`&lt;script&gt;`, `&#34;&gt;&lt;img src=x onerror=alert(1)&gt;`},
		"/console/live/locations/" + id: {`&#34;&gt;&lt;img src=x onerror=alert(1)&gt;`},
		"/console/users":                {`&lt;svg onload=alert(2)&gt;`},
		"/console/live/users":           {`&lt;svg onload=alert(2)&gt;`},
		"/console/controls":             {`/&lt;b&gt;x`},
		"/console/live/controls":        {`/&lt;b&gt;x`},
		// Filters are echoed back into the form and the error message.
		"/console/requests?status=%3Cscript%3E&locationId=%22%3E%3Cb%3E": {`value="&lt;script&gt;"`, `value="&#34;&gt;&lt;b&gt;"`},
	}
	raw := []string{locName, staffID, nickname, "<b>x", "<script>", `"><b>`}
	for page, escaped := range pages {
		body := a.mustPage(page)
		for _, r := range raw {
			if strings.Contains(body, r) {
				t.Errorf("%s contains %q unescaped", page, r)
			}
		}
		for _, e := range escaped {
			if !strings.Contains(body, e) {
				t.Errorf("%s lacks the escaped text %q", page, e)
			}
		}
	}
}

// The location page follows a location through heartbeat, check, payment,
// acceptance and the clock, which is what the browser test watches too.
func TestConsoleLocationPage(t *testing.T) {
	t.Parallel()
	env := refservertest.Start(t)
	ctx := context.Background()
	venue := env.NewVenue(t, refservertest.VenueConfig{Name: "Console Bistro"})
	loc, pos := venue.ID, venue.POS
	a := loggedInAgent(t, env)
	live := "/console/live/locations/" + fmtID(loc)

	if body := a.mustPage(live); !strings.Contains(body, `data-pos-status="offline"`) || !strings.Contains(body, "No checks pushed yet") {
		t.Error("a new location is not shown offline and without checks")
	}
	if _, err := pos.Heartbeat(ctx, loc); err != nil {
		t.Fatal(err)
	}
	if _, err := pos.PushCheck(ctx, consoleCheck(loc, 1234, "S9", "42.50")); err != nil {
		t.Fatal(err)
	}
	diner := env.NewDiner(t)
	addConsoleCard(t, diner, "dinner card")
	p := diner.Pay(t, venue, 1234, "40.00", "2.50")
	body := a.mustPage(live)
	for _, want := range []string{
		`data-pos-status="online"`, `data-check-number="1234"`, "42.50",
		`data-payment-id="` + fmtID(p.PaymentID) + `" data-payment-status="pending"`, "•••• 4242", "40.00", "2.50",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("after heartbeat, check and payment the page lacks %q", want)
		}
	}
	if overview := a.mustPage("/console/live/locations"); !strings.Contains(overview, `data-pos-status="online"`) {
		t.Error("the locations list does not show the location online")
	}

	if _, err := pos.AcceptPayment(ctx, p.PaymentID); err != nil {
		t.Fatal(err)
	}
	resp, _ := a.post("/console/controls/clock", url.Values{"csrf": {a.csrf()}, "advanceSeconds": {"361"}}, nil)
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("advance clock: %d", resp.StatusCode)
	}
	body = a.mustPage(live)
	for _, want := range []string{`data-pos-status="offline"`, `data-payment-status="accepted"`} {
		if !strings.Contains(body, want) {
			t.Errorf("after acceptance and 6m 1s the page lacks %q", want)
		}
	}
	if status := a.mustPage("/console/live/status"); !strings.Contains(status, "6m 1s ahead") {
		t.Errorf("status line %q does not show the clock offset", status)
	}
}

// The controls act through the admin API: its validation answers, its
// effects show, and the journal records them as admin requests.
func TestConsoleControls(t *testing.T) {
	t.Parallel()
	env := refservertest.Start(t)
	a := loggedInAgent(t, env)
	csrf := a.csrf()
	post := func(path string, form url.Values) string { return a.postControl(csrf, path, form) }

	if page := post("/console/controls/faults", url.Values{"pathPrefix": {"/v1/location/"}, "status": {"200"}}); !strings.Contains(page, "status: must be 0 (latency only) or 400-599") {
		t.Errorf("an invalid fault does not report the admin API's reason:\n%s", page)
	}
	if page := post("/console/controls/faults", url.Values{"pathPrefix": {"/v1/location/"}, "status": {"x"}}); !strings.Contains(page, "status: enter a whole number") {
		t.Error("a non-numeric status is not reported")
	}
	if page := post("/console/controls/faults", url.Values{"method": {"GET"}, "pathPrefix": {"/v1/location/"}, "status": {"503"}, "count": {"1"}}); !strings.Contains(page, "Fault added.") {
		t.Error("adding a fault is not confirmed")
	}
	if live := a.mustPage("/console/live/controls"); !strings.Contains(live, "<code>/v1/location/</code>") {
		t.Error("the active fault is not listed")
	}
	if st, _ := env.Send(t, "GET", "/v1/location/1", nil, nil); st != http.StatusServiceUnavailable {
		t.Errorf("the injected fault did not fire: status %d", st)
	}
	post("/console/controls/faults", url.Values{"pathPrefix": {"/v1/"}, "status": {"500"}, "count": {"5"}})
	if page := post("/console/controls/faults/clear", url.Values{}); !strings.Contains(page, "Faults cleared.") {
		t.Error("clearing faults is not confirmed")
	}
	if st, _ := env.Send(t, "GET", "/v1/location/1", nil, nil); st != http.StatusOK {
		t.Errorf("after clearing faults: status %d", st)
	}

	if page := post("/console/controls/clock", url.Values{"advanceSeconds": {"-5"}}); !strings.Contains(page, "advanceSeconds: must be between 0 and") {
		t.Error("a negative advance does not report the admin API's reason")
	}
	post("/console/controls/clock", url.Values{"advanceSeconds": {"3600"}})
	if page := post("/console/controls/reset", url.Values{}); !strings.Contains(page, "Tick the box") {
		t.Error("a reset without confirmation is not refused")
	}
	var clock struct{ OffsetSeconds int64 }
	env.AdminDo(t, http.MethodGet, "/sandbox/clock", nil, &clock)
	if clock.OffsetSeconds != 3600 {
		t.Fatalf("clock offset %d, want 3600", clock.OffsetSeconds)
	}
	if page := post("/console/controls/reset", url.Values{"confirm": {"yes"}}); !strings.Contains(page, "Sandbox reset") {
		t.Error("the reset is not confirmed")
	}
	env.AdminDo(t, http.MethodGet, "/sandbox/clock", nil, &clock)
	if clock.OffsetSeconds != 0 {
		t.Errorf("after the reset the clock offset is %d", clock.OffsetSeconds)
	}

	l, _ := readJournal(t, env, "limit=1000")
	seen := map[string]bool{}
	for _, e := range l.Requests {
		if e.Credential == "admin" {
			seen[e.Method+" "+e.Route] = true
		}
	}
	for _, want := range []string{"POST /sandbox/faults", "DELETE /sandbox/faults", "POST /sandbox/clock", "POST /sandbox/reset"} {
		if !seen[want] {
			t.Errorf("the journal has no admin request %s from the console", want)
		}
	}
}

// The requests page filters the journal and shows refused requests with
// their error codes.
func TestConsoleRequestsPage(t *testing.T) {
	t.Parallel()
	env := refservertest.Start(t)
	f := env.Fixtures(t)
	_, okID := env.SendForID(t, "POST", "/v1/pos/push-pull/heartbeat/1?accessToken="+f.Locations[0].POSAccessToken, nil, nil)
	_, badID := env.SendForID(t, "POST", "/v1/pos/push-pull/heartbeat/2?accessToken="+f.Locations[0].POSAccessToken, nil, nil)
	a := loggedInAgent(t, env)

	all := a.mustPage("/console/requests")
	for _, want := range []string{okID, badID, "403001", "/v1/pos/push-pull/heartbeat/{locationId}", "pos <small>location 1</small>"} {
		if !strings.Contains(all, want) {
			t.Errorf("the requests page lacks %q", want)
		}
	}
	errorsOnly := a.mustPage("/console/live/requests?status=4xx")
	if !strings.Contains(errorsOnly, badID) || strings.Contains(errorsOnly, okID) {
		t.Error("status=4xx does not select the refused request only")
	}
	loc2 := a.mustPage("/console/live/requests?locationId=2")
	if !strings.Contains(loc2, badID) || strings.Contains(loc2, okID) {
		t.Error("locationId=2 does not select the request for location 2 only")
	}
	if bad := a.mustPage("/console/requests?limit=abc"); !strings.Contains(bad, "limit must be") {
		t.Error("a bad filter is not explained")
	}
	// The console's own pages are not journaled.
	l, _ := readJournal(t, env, "limit=1000")
	for _, e := range l.Requests {
		if strings.HasPrefix(e.Route, "/console") {
			t.Errorf("console request journaled: %+v", e)
		}
	}
}
