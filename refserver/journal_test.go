package refserver_test

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/hospo-dev/hospo-go/refserver"
	"github.com/hospo-dev/hospo-go/refserver/refservertest"
)

func journalID(n int64) *int64 { return &n }
func journalCode(n int) *int   { return &n }
func fmtID(n int64) string     { return strconv.FormatInt(n, 10) }

// Every request is journaled with its route pattern, outcome and caller.
func TestJournalRecordsRequests(t *testing.T) {
	t.Parallel()
	env := refservertest.Start(t)
	f := env.Fixtures(t)
	user, loc1 := f.Users[0], f.Locations[0]
	key := f.APIKeys[0] // scoped to location 1
	admin := http.Header{"X-Sandbox-Admin-Key": {env.AdminKey}}

	type call struct {
		method, path string
		header       http.Header
		body         string
		want         journalEntry
	}
	calls := []call{
		{"GET", "/v1/user/me?scope=wallet&accessToken=" + user.AccessToken, nil, "",
			journalEntry{Method: "GET", Route: "/v1/user/me", Status: 200, Credential: "user", UserID: journalID(user.UserID)}},
		{"POST", "/v1/pos/push-pull/heartbeat/1?accessToken=" + loc1.POSAccessToken, nil, "",
			journalEntry{Method: "POST", Route: "/v1/pos/push-pull/heartbeat/{locationId}", Status: 200, Credential: "pos",
				POSLocationID: journalID(loc1.LocationID), LocationID: journalID(1)}},
		{"POST", "/v1/pos/push-pull/heartbeat/2?accessToken=" + loc1.POSAccessToken, nil, "",
			journalEntry{Method: "POST", Route: "/v1/pos/push-pull/heartbeat/{locationId}", Status: 403, ErrorCode: journalCode(403001),
				Credential: "pos", POSLocationID: journalID(loc1.LocationID), LocationID: journalID(2)}},
		// A user token on a POS endpoint: recognised, then refused.
		{"POST", "/v1/pos/push-pull/heartbeat/1?accessToken=" + user.AccessToken, nil, "",
			journalEntry{Method: "POST", Route: "/v1/pos/push-pull/heartbeat/{locationId}", Status: 403, ErrorCode: journalCode(403001),
				Credential: "user", UserID: journalID(user.UserID), LocationID: journalID(1)}},
		{"GET", "/v3/location/1/bills/closed?from=2030-01-01T00:00:00Z&to=2030-01-02T00:00:00Z", http.Header{"X-Vendor-Api-Key": {key.APIKey}}, "",
			journalEntry{Method: "GET", Route: "/v3/location/{locationId}/bills/closed", Status: 200, Credential: "apikey",
				KeyID: journalID(1), LocationID: journalID(1)}},
		{"GET", "/v1/user/me?scope=wallet&accessToken=not-a-token", nil, "",
			journalEntry{Method: "GET", Route: "/v1/user/me", Status: 401, ErrorCode: journalCode(401002), Credential: "none"}},
		// The location of a payment is in its body.
		{"POST", "/payments/v1/payment?accessToken=" + user.AccessToken, nil, `{"locationId":2,"checkNumber":1,"cardId":99,"amount":1,"tip":0}`,
			journalEntry{Method: "POST", Route: "/payments/v1/payment", Status: 404, ErrorCode: journalCode(404001), Credential: "user",
				UserID: journalID(user.UserID), LocationID: journalID(2)}},
		// A check names its location in the body too; the handler reports it.
		{"POST", "/v1/pos/push-pull/check?accessToken=" + loc1.POSAccessToken, nil, `{"locationId":2,"checkNumber":1}`,
			journalEntry{Method: "POST", Route: "/v1/pos/push-pull/check", Status: 403, ErrorCode: journalCode(403001), Credential: "pos",
				POSLocationID: journalID(loc1.LocationID), LocationID: journalID(2)}},
		{"POST", "/v1/pos/push-pull/check?accessToken=" + loc1.POSAccessToken, nil, `{"checkNumber":1}`,
			journalEntry{Method: "POST", Route: "/v1/pos/push-pull/check", Status: 400, ErrorCode: journalCode(400002), Credential: "pos",
				POSLocationID: journalID(loc1.LocationID), LocationID: journalID(loc1.LocationID)}},
		{"GET", "/v1/location/2", nil, "",
			journalEntry{Method: "GET", Route: "/v1/location/{locationId}", Status: 200, Credential: "none", LocationID: journalID(2)}},
		{"GET", "/no/such/route", nil, "",
			journalEntry{Method: "GET", Route: "-", Status: 404, ErrorCode: journalCode(404001), Credential: "none"}},
		{"GET", "/sandbox/fixtures", admin, "",
			journalEntry{Method: "GET", Route: "/sandbox/fixtures", Status: 200, Credential: "admin"}},
		{"POST", "/sandbox/users", http.Header{"X-Sandbox-Admin-Key": {"wrong"}}, "",
			journalEntry{Method: "POST", Route: "/sandbox/users", Status: 401, ErrorCode: journalCode(401005), Credential: "none"}},
	}
	ids := map[string]journalEntry{}
	var order []string
	for _, c := range calls {
		status, id := rawRequest(t, c.method, env.URL+c.path, c.header, c.body)
		if status != c.want.Status {
			t.Fatalf("%s %s: status %d, want %d", c.method, c.path, status, c.want.Status)
		}
		c.want.RequestID = id
		ids[id] = c.want
		order = append(order, id)
	}

	l, _ := readJournal(t, env, "limit=1000")
	var got []journalEntry
	for _, e := range l.Requests {
		if strings.HasPrefix(e.Route, "/sandbox/requests") {
			t.Errorf("reading the journal was journaled: %+v", e)
		}
		if _, ok := ids[e.RequestID]; ok {
			got = append(got, e)
		}
	}
	// Newest first.
	var want []journalEntry
	for i := len(order) - 1; i >= 0; i-- {
		want = append(want, ids[order[i]])
	}
	ignore := cmpopts.IgnoreFields(journalEntry{}, "Seq", "Time", "DurationMs")
	if diff := cmp.Diff(want, got, ignore); diff != "" {
		t.Errorf("journal (-want +got):\n%s", diff)
	}
	for i := 1; i < len(got); i++ {
		if got[i].Seq >= got[i-1].Seq {
			t.Errorf("entries not newest first: seq %d after %d", got[i].Seq, got[i-1].Seq)
		}
	}
	if l.Capacity != refserver.DefaultJournalSize || l.LastSeq < got[0].Seq {
		t.Errorf("capacity %d, lastSeq %d; want %d and at least %d", l.Capacity, l.LastSeq, refserver.DefaultJournalSize, got[0].Seq)
	}
}

// The journal holds no token, key, card number or CVC, whatever the
// requests carried, and neither does the console's view of it.
func TestJournalNeverHoldsSecrets(t *testing.T) {
	t.Parallel()
	env := refservertest.Start(t)
	f := env.Fixtures(t)
	_, token := env.NewUser(t)
	loc, posToken := env.NewLocation(t, "Secret Diner", "providerB")
	apiKey := env.NewAPIKey(t, loc)

	// The card goes in cleartext to the sandbox's providerD endpoint (over
	// HTTPS) and encrypted to providerB; both requests are journaled.
	_, cardID := addConsoleCard(t, env, token, "journal card")
	status, _ := rawRequest(t, "POST", env.URL+"/sandbox/providerD/tokenise", nil,
		`{"keyId":"unknown","number":"`+consoleTestCard.Number+`","expiryMonth":9,"expiryYear":39,"cvc":"`+consoleTestCard.CVC+`"}`)
	if status < 400 {
		t.Fatalf("tokenising with an unknown keyId: status %d, want an error", status)
	}
	rawRequest(t, "POST", env.URL+"/v1/pos/push-pull/heartbeat/"+fmtID(loc)+"?accessToken="+posToken, nil, "")
	rawRequest(t, "GET", env.URL+"/v3/location/"+fmtID(loc)+"/bills/closed?from=2030-01-01T00:00:00Z&to=2030-01-02T00:00:00Z",
		http.Header{"X-Vendor-Api-Key": {apiKey}}, "")
	rawRequest(t, "GET", env.URL+"/sandbox/fixtures", http.Header{"X-Sandbox-Admin-Key": {env.AdminKey}}, "")
	rawRequest(t, "GET", env.URL+"/v1/user/me?scope=wallet&accessToken="+token, http.Header{"Authorization": {"Bearer " + token}}, "")
	rawRequest(t, "POST", env.URL+"/sandbox/cards/"+fmtID(cardID)+"/status", http.Header{"X-Sandbox-Admin-Key": {env.AdminKey}}, `{"cardStatusId":1}`)

	secrets := map[string]string{
		"user token": token, "POS token": posToken, "API key": apiKey, "admin key": env.AdminKey,
		"demo user token": f.Users[0].AccessToken, "card number": consoleTestCard.Number,
	}
	l, raw := readJournal(t, env, "limit=1000")
	if len(l.Requests) < 8 {
		t.Fatalf("only %d requests journaled", len(l.Requests))
	}
	for name, s := range secrets {
		if strings.Contains(string(raw), s) {
			t.Errorf("the journal holds the %s", name)
		}
	}
	// The CVC is short enough to occur by chance in a random request id,
	// so look for it everywhere but there.
	for _, e := range l.Requests {
		e.RequestID = ""
		b, _ := json.Marshal(e)
		if strings.Contains(string(b), consoleTestCard.CVC) {
			t.Errorf("a journal entry holds the CVC: %s", b)
		}
	}

	a := newConsoleAgent(t, consoleURL(t, env), nil)
	a.login(env.AdminKey)
	for _, page := range []string{"/console/requests?limit=1000", "/console/live/requests?limit=1000", "/console/users", "/console/live/users"} {
		body := a.mustPage(page)
		for name, s := range secrets {
			if strings.Contains(body, s) {
				t.Errorf("%s shows the %s", page, name)
			}
		}
	}
	if body := a.mustPage("/console/users"); !strings.Contains(body, "424242******4242") {
		t.Errorf("the users page does not show the masked card 424242******4242")
	}
}

func TestJournalEndpoint(t *testing.T) {
	t.Parallel()
	env := refservertest.Start(t)
	f := env.Fixtures(t)
	pos := f.Locations[0]

	for _, key := range []string{"", "wrong"} {
		h := http.Header{}
		if key != "" {
			h.Set("X-Sandbox-Admin-Key", key)
		}
		if st, _ := rawRequest(t, "GET", env.URL+"/sandbox/requests", h, ""); st != http.StatusUnauthorized {
			t.Errorf("admin key %q: status %d, want 401", key, st)
		}
	}
	for _, q := range []string{"limit=0", "limit=1001", "limit=x", "locationId=0", "status=600", "status=4x", "after=-1"} {
		var e struct{ Code int }
		if st := env.AdminDo(t, "GET", "/sandbox/requests?"+q, nil, &e); st != http.StatusBadRequest || e.Code != 400003 {
			t.Errorf("%s: status %d code %d, want 400 400003", q, st, e.Code)
		}
	}

	before, _ := readJournal(t, env, "limit=1")
	_, okID := rawRequest(t, "POST", env.URL+"/v1/pos/push-pull/heartbeat/1?accessToken="+pos.POSAccessToken, nil, "")
	_, forbiddenID := rawRequest(t, "POST", env.URL+"/v1/pos/push-pull/heartbeat/2?accessToken="+pos.POSAccessToken, nil, "")
	_, otherID := rawRequest(t, "GET", env.URL+"/v1/location/2", nil, "")

	tests := []struct {
		query string
		want  []string // request ids among ours, newest first
	}{
		{"", []string{otherID, forbiddenID, okID}},
		{"status=4xx", []string{forbiddenID}},
		{"status=200", []string{otherID, okID}},
		// Location 2: named in the path; location 1: the POS token's.
		{"locationId=2", []string{otherID, forbiddenID}},
		{"locationId=1", []string{forbiddenID, okID}},
		{"locationId=1&status=2xx", []string{okID}},
	}
	ours := map[string]bool{okID: true, forbiddenID: true, otherID: true}
	for _, tt := range tests {
		l, _ := readJournal(t, env, "after="+fmtID(before.LastSeq)+"&"+tt.query)
		var got []string
		for _, e := range l.Requests {
			if ours[e.RequestID] {
				got = append(got, e.RequestID)
			}
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%q (-want +got):\n%s", tt.query, diff)
		}
	}
	l, _ := readJournal(t, env, "limit=2")
	if len(l.Requests) != 2 {
		t.Errorf("limit=2 gave %d entries", len(l.Requests))
	}
}

func TestJournalSize(t *testing.T) {
	t.Parallel()
	small := refservertest.Start(t, func(c *refserver.Config) { c.JournalSize = 2 })
	for range 4 {
		rawRequest(t, "GET", small.URL+"/v1/location/1", nil, "")
	}
	l, _ := readJournal(t, small, "")
	if l.Capacity != 2 || len(l.Requests) != 2 || l.LastSeq < 4 {
		t.Errorf("JournalSize 2: capacity %d, %d entries, lastSeq %d", l.Capacity, len(l.Requests), l.LastSeq)
	}

	off := refservertest.Start(t, func(c *refserver.Config) { c.JournalSize = -1 })
	rawRequest(t, "GET", off.URL+"/v1/location/1", nil, "")
	l, _ = readJournal(t, off, "")
	if l.Capacity != 0 || len(l.Requests) != 0 {
		t.Errorf("JournalSize -1: capacity %d, %d entries", l.Capacity, len(l.Requests))
	}
}
