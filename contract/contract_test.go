package contract_test

import (
	"bytes"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/contract"
	"github.com/hospo-dev/hospo-go/possync"
	"github.com/hospo-dev/hospo-go/refserver/refservertest"
)

// run runs the checks named (all when none) against env in sandbox mode.
func run(t *testing.T, env *refservertest.Env, only ...string) *contract.Report {
	t.Helper()
	return runURL(t, env.URL, env.AdminKey, only...)
}

// runURL runs the checks named (all when none) against the sandbox at
// baseURL.
func runURL(t *testing.T, baseURL, adminKey string, only ...string) *contract.Report {
	t.Helper()
	rep, err := contract.Run(t.Context(), contract.Config{BaseURL: baseURL, AdminKey: adminKey, Only: only})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// text is the report as the command prints it.
func text(t *testing.T, rep *contract.Report) string {
	t.Helper()
	var b bytes.Buffer
	if err := rep.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// Every check passes against a fresh reference server, and the run leaves
// every row it found as it was: it only adds its own.
func TestPassesAgainstRefserver(t *testing.T) {
	t.Parallel()
	env := refservertest.Start(t)
	env.Fixtures(t) // the demo fixture exists before the first dump
	before := env.Rows(t)
	rep := run(t, env)
	if !rep.Passed() || rep.Summary.Skipped != 0 || rep.Summary.Total != len(contract.Checks()) {
		t.Errorf("against a fresh refserver:\n%s", text(t, rep))
	}
	after := env.Rows(t)
	for table, rows := range before {
		for _, row := range rows {
			if !slices.Contains(after[table], row) {
				t.Errorf("%s: the run changed or removed the row %s", table, row)
			}
		}
	}
}

// With real credentials (the demo fixture's, here) the run is careful:
// it skips, saying why, every check whose metadata says it needs a
// sandbox, moves money or writes data, runs and passes all the others,
// and adds nothing to the database but what reading and its own webhooks
// leave (providerD keys handed out, ping events, deliveries, idempotency
// records).
func TestCarefulModeAgainstRefserver(t *testing.T) {
	t.Parallel()
	env := refservertest.Start(t)
	fx := env.Fixtures(t)
	loc := fx.Locations[0]
	key := ""
	for _, k := range fx.APIKeys {
		if slices.Equal(k.LocationIDs, []int64{loc.LocationID}) {
			key = k.APIKey
		}
	}
	// A closed bill to read, as a real location has.
	pos := possync.NewService(env.Client(t, client.WithAccessToken(loc.POSAccessToken)))
	if _, err := pos.PushCheck(t.Context(), &possync.Check{CheckNumber: 1, LocationID: loc.LocationID, StaffID: "s",
		Status: possync.CheckClosed, Discounts: []possync.Discount{}, MenuItems: []possync.MenuItem{}}); err != nil {
		t.Fatal(err)
	}
	before := env.Rows(t)
	sent := &sentRequests{base: http.DefaultTransport}
	rep, err := contract.Run(t.Context(), contract.Config{BaseURL: env.URL, AccessToken: fx.Users[0].AccessToken,
		POSToken: loc.POSAccessToken, LocationID: loc.LocationID, APIKey: key, HTTPClient: &http.Client{Transport: sent}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Mode != "careful" || !rep.Passed() {
		t.Errorf("careful run:\n%s", text(t, rep))
	}
	// The only writes it sends with a credential are to its own webhook
	// subscriptions.
	for _, r := range sent.list {
		if r.Method != http.MethodGet && r.credential && !strings.HasPrefix(r.Path, "/v1/webhooks") {
			t.Errorf("careful mode sent %s %s with a credential", r.Method, r.Path)
		}
	}
	for _, c := range contract.Checks() {
		res, ok := rep.Result(c.Name)
		if !ok {
			t.Fatalf("no result for %s", c.Name)
		}
		risky := c.Needs&(contract.NeedsSandbox|contract.MovesMoney|contract.WritesData) != 0
		if risky != (res.Verdict == contract.Skip) {
			t.Errorf("%s (needs %v): verdict %s", c.Name, c.Needs, res.Verdict)
		}
		if res.Verdict == contract.Skip && res.SkipReason == "" {
			t.Errorf("%s: skipped without a reason", c.Name)
		}
	}
	if rep.Summary.Passed < 25 {
		t.Errorf("careful mode ran %d checks; want at least 25", rep.Summary.Passed)
	}

	after := env.Rows(t)
	mayGrow := []string{"providerd_keys", "webhook_deliveries", "idempotency_keys", "events"}
	for table, rows := range after {
		if slices.Contains(mayGrow, table) {
			continue
		}
		if !slices.Equal(rows, before[table]) {
			t.Errorf("%s changed in careful mode:\nbefore %q\nafter  %q", table, before[table], rows)
		}
	}
	if madeEvents(before) == 0 {
		t.Fatal("the set-up's closed check made no event to count")
	}
	if n, was := madeEvents(after), madeEvents(before); n != was {
		t.Errorf("careful mode made %d events other than pings", n-was)
	}
}

// Real credentials name what each check lacks: a run with only an access
// token skips the checks that need a POS token or an API key, saying so.
func TestCarefulModeSaysWhatIsMissing(t *testing.T) {
	t.Parallel()
	env := refservertest.Start(t)
	rep, err := contract.Run(t.Context(), contract.Config{BaseURL: env.URL, AccessToken: env.Fixtures(t).Users[0].AccessToken,
		Only: []string{"wallet/get", "pos/payments-poll", "bills/get-unknown", "payments/create"}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"wallet/get":        "",
		"pos/payments-poll": "needs -pos-token and -location",
		"bills/get-unknown": "needs -location and -api-key",
		"payments/create":   "needs a sandbox (-admin-key)",
	}
	for name, reason := range want {
		res, _ := rep.Result(name)
		if res.SkipReason != reason || (reason == "") != (res.Verdict == contract.Pass) {
			t.Errorf("%s: %s %q, want skip reason %q", name, res.Verdict, res.SkipReason, reason)
		}
	}
}

// Config errors are errors, not reports.
func TestRunRefusesBadConfig(t *testing.T) {
	t.Parallel()
	for _, cfg := range []contract.Config{
		{BaseURL: "http://127.0.0.1:1"},
		{BaseURL: "127.0.0.1:1", AdminKey: "k"},
		{BaseURL: "http://127.0.0.1:1", AdminKey: "k", AccessToken: "t"},
		{BaseURL: "http://127.0.0.1:1", POSToken: "p"},
		{BaseURL: "http://127.0.0.1:1", AdminKey: "k", Only: []string{"no/such-check"}},
	} {
		if _, err := contract.Run(t.Context(), cfg); err == nil {
			t.Errorf("Run(%+v) = nil error", cfg)
		}
	}
}

// The registry: names unique and well formed, every check described, and
// every endpoint of the API reference covered by at least one check.
func TestRegistry(t *testing.T) {
	t.Parallel()
	all := contract.Checks()
	if len(all) < 40 {
		t.Errorf("%d checks, want at least 40", len(all))
	}
	seen := map[string]bool{}
	endpoints := ""
	for _, c := range all {
		if seen[c.Name] {
			t.Errorf("two checks named %s", c.Name)
		}
		seen[c.Name] = true
		if strings.Count(c.Name, "/") != 1 || strings.ToLower(c.Name) != c.Name {
			t.Errorf("check name %q is not area/rule in lower case", c.Name)
		}
		if c.Endpoint == "" || c.Rule == "" || c.Run == nil {
			t.Errorf("check %s lacks its endpoint, rule or function", c.Name)
		}
		endpoints += c.Endpoint + ", "
	}
	for _, ep := range []string{
		"POST /v3/user/me/wallet/card/insert", "GET /v2/payment/providerD/keys", "GET /v1/user/me",
		"GET /v1/location/{id}", "POST /payments/v1/payment", "GET /v3/location/{locationId}/bills/closed",
		"GET /v3/bill/{billId}", "POST /v1/pos/push-pull/check", "GET /v1/pos/push-pull/payments/{locationId}",
		"POST /v1/pos/push-pull/accept-payment", "POST /v1/pos/push-pull/heartbeat/{locationId}",
		"/fulfillment-type/delivery-by-operator", "/fulfillment-type/delivery-by-delivery-partner",
		"/fulfillment-type/collection-by-customer", "/fulfillment-type/order-at-table",
		"POST /ordering/v3/order", "GET /ordering/v3/order/{orderId}", "GET /payments/v1/payment/{paymentId}",
		"GET /v2/location/{id}/menu", "POST /v1/webhooks", "GET /v1/webhooks", "DELETE /v1/webhooks/{webhookId}",
		"POST /v1/webhooks/{webhookId}/ping", "GET /v1/webhooks/{webhookId}/deliveries",
		"/deliveries/{deliveryId}/redeliver", "GET /v1/events",
	} {
		if !strings.Contains(endpoints, ep) {
			t.Errorf("no check covers %s", ep)
		}
	}
}

// madeEvents counts the events in rows that requests make, pings aside:
// the server's own monitors make pos.health_changed and location.offline
// whatever a run does.
func madeEvents(rows map[string][]string) int {
	n := 0
	for _, r := range rows["events"] {
		if !strings.Contains(r, " type=ping ") && !strings.Contains(r, " type=pos.health_changed ") &&
			!strings.Contains(r, " type=location.offline ") {
			n++
		}
	}
	return n
}

// sentRequests is a transport that notes each request's method and path
// and whether it carried a credential.
type sentRequests struct {
	base http.RoundTripper
	mu   sync.Mutex
	list []sentRequest
}

type sentRequest struct {
	Method, Path string
	credential   bool
}

func (s *sentRequests) RoundTrip(r *http.Request) (*http.Response, error) {
	s.mu.Lock()
	s.list = append(s.list, sentRequest{r.Method, r.URL.Path,
		r.URL.Query().Has(client.QueryAccessToken) || r.Header.Get(client.HeaderAPIKey) != ""})
	s.mu.Unlock()
	return s.base.RoundTrip(r)
}
