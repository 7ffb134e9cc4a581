package journal_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/refserver"
	"github.com/hospo-dev/hospo-go/refserver/journal"
	"github.com/hospo-dev/hospo-go/refserver/refservertest"
	"github.com/hospo-dev/hospo-go/sandbox"
)

func id(n int64) *int64               { return &n }
func code(c client.Code) *client.Code { return &c }

// requests reads the journal of env through the SDK.
func requests(t *testing.T, env *refservertest.Env, q sandbox.JournalQuery) journal.Page {
	t.Helper()
	sb := sandbox.NewService(env.Client(t, client.WithAdminKey(env.AdminKey)))
	page, err := sb.Requests(context.Background(), q)
	if err != nil {
		t.Fatalf("Requests(%+v): %v", q, err)
	}
	return page
}

// Every request is journaled with its route pattern, outcome and caller.
func TestRecordsRequests(t *testing.T) {
	t.Parallel()
	env := refservertest.Start(t)
	f := env.Fixtures(t)
	user, loc1 := f.Users[0], f.Locations[0]
	key := f.APIKeys[0] // scoped to location 1
	admin := http.Header{client.HeaderAdminKey: {env.AdminKey}}

	type call struct {
		method, path string
		header       http.Header
		body         []byte
		want         journal.Entry
	}
	calls := []call{
		{"GET", "/v1/user/me?scope=wallet&accessToken=" + user.AccessToken, nil, nil,
			journal.Entry{Method: "GET", Route: "/v1/user/me", Status: 200, Credential: "user", UserID: id(user.UserID)}},
		{"POST", "/v1/pos/push-pull/heartbeat/1?accessToken=" + loc1.POSAccessToken, nil, nil,
			journal.Entry{Method: "POST", Route: "/v1/pos/push-pull/heartbeat/{locationId}", Status: 200, Credential: "pos",
				POSLocationID: id(loc1.LocationID), LocationID: id(1)}},
		{"POST", "/v1/pos/push-pull/heartbeat/2?accessToken=" + loc1.POSAccessToken, nil, nil,
			journal.Entry{Method: "POST", Route: "/v1/pos/push-pull/heartbeat/{locationId}", Status: 403, ErrorCode: code(client.CodeForbidden),
				Credential: "pos", POSLocationID: id(loc1.LocationID), LocationID: id(2)}},
		// A user token on a POS endpoint: recognised, then refused.
		{"POST", "/v1/pos/push-pull/heartbeat/1?accessToken=" + user.AccessToken, nil, nil,
			journal.Entry{Method: "POST", Route: "/v1/pos/push-pull/heartbeat/{locationId}", Status: 403, ErrorCode: code(client.CodeForbidden),
				Credential: "user", UserID: id(user.UserID), LocationID: id(1)}},
		{"GET", "/v3/location/1/bills/closed?from=2030-01-01T00:00:00Z&to=2030-01-02T00:00:00Z", http.Header{client.HeaderAPIKey: {key.APIKey}}, nil,
			journal.Entry{Method: "GET", Route: "/v3/location/{locationId}/bills/closed", Status: 200, Credential: "apikey",
				KeyID: id(1), LocationID: id(1)}},
		{"GET", "/v1/user/me?scope=wallet&accessToken=not-a-token", nil, nil,
			journal.Entry{Method: "GET", Route: "/v1/user/me", Status: 401, ErrorCode: code(client.CodeAccessTokenInvalid), Credential: "none"}},
		// The location of a payment is in its body.
		{"POST", "/payments/v1/payment?accessToken=" + user.AccessToken, nil, []byte(`{"locationId":2,"checkNumber":1,"cardId":99,"amount":1,"tip":0}`),
			journal.Entry{Method: "POST", Route: "/payments/v1/payment", Status: 404, ErrorCode: code(client.CodeNotFound), Credential: "user",
				UserID: id(user.UserID), LocationID: id(2)}},
		// A check names its location in the body too: its Write reports it
		// (api.Located), and the journal reads a refused one's body itself.
		{"POST", "/v1/pos/push-pull/check?accessToken=" + loc1.POSAccessToken, nil, []byte(`{"locationId":2,"checkNumber":1}`),
			journal.Entry{Method: "POST", Route: "/v1/pos/push-pull/check", Status: 403, ErrorCode: code(client.CodeForbidden), Credential: "pos",
				POSLocationID: id(loc1.LocationID), LocationID: id(2)}},
		{"POST", "/v1/pos/push-pull/check?accessToken=" + loc1.POSAccessToken, nil, []byte(`{"checkNumber":1}`),
			journal.Entry{Method: "POST", Route: "/v1/pos/push-pull/check", Status: 400, ErrorCode: code(client.CodeValidation), Credential: "pos",
				POSLocationID: id(loc1.LocationID), LocationID: id(loc1.LocationID)}},
		{"GET", "/v1/location/2", nil, nil,
			journal.Entry{Method: "GET", Route: "/v1/location/{locationId}", Status: 200, Credential: "none", LocationID: id(2)}},
		{"GET", "/no/such/route", nil, nil,
			journal.Entry{Method: "GET", Route: "-", Status: 404, ErrorCode: code(client.CodeNotFound), Credential: "none"}},
		{"GET", "/sandbox/fixtures", admin, nil,
			journal.Entry{Method: "GET", Route: "/sandbox/fixtures", Status: 200, Credential: "admin"}},
		{"POST", "/sandbox/users", http.Header{client.HeaderAdminKey: {"wrong"}}, nil,
			journal.Entry{Method: "POST", Route: "/sandbox/users", Status: 401, ErrorCode: code(client.CodeAdminKeyInvalid), Credential: "none"}},
	}
	ids := map[string]journal.Entry{}
	var order []string
	for _, c := range calls {
		status, reqID := env.SendForID(t, c.method, c.path, c.header, c.body)
		if status != c.want.Status {
			t.Fatalf("%s %s: status %d, want %d", c.method, c.path, status, c.want.Status)
		}
		c.want.RequestID = reqID
		ids[reqID] = c.want
		order = append(order, reqID)
	}

	l := requests(t, env, sandbox.JournalQuery{Limit: 1000})
	var got []journal.Entry
	for _, e := range l.Requests {
		if strings.HasPrefix(e.Route, journal.Path) {
			t.Errorf("reading the journal was journaled: %+v", e)
		}
		if _, ok := ids[e.RequestID]; ok {
			got = append(got, e)
		}
	}
	// Newest first.
	var want []journal.Entry
	for i := len(order) - 1; i >= 0; i-- {
		want = append(want, ids[order[i]])
	}
	ignore := cmpopts.IgnoreFields(journal.Entry{}, "Seq", "Time", "DurationMs")
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

func TestEndpoint(t *testing.T) {
	t.Parallel()
	env := refservertest.Start(t)
	f := env.Fixtures(t)
	pos := f.Locations[0]

	for _, key := range []string{"", "wrong"} {
		h := http.Header{}
		if key != "" {
			h.Set(client.HeaderAdminKey, key)
		}
		if st, _ := env.Send(t, "GET", journal.Path, h, nil); st != http.StatusUnauthorized {
			t.Errorf("admin key %q: status %d, want 401", key, st)
		}
	}
	for _, q := range []string{"limit=0", "limit=1001", "limit=x", "locationId=0", "status=600", "status=4x", "after=-1"} {
		var e struct{ Code int }
		if st := env.AdminDo(t, "GET", journal.Path+"?"+q, nil, &e); st != http.StatusBadRequest || e.Code != 400003 {
			t.Errorf("%s: status %d code %d, want 400 400003", q, st, e.Code)
		}
	}

	before := requests(t, env, sandbox.JournalQuery{Limit: 1})
	_, okID := env.SendForID(t, "POST", "/v1/pos/push-pull/heartbeat/1?accessToken="+pos.POSAccessToken, nil, nil)
	_, forbiddenID := env.SendForID(t, "POST", "/v1/pos/push-pull/heartbeat/2?accessToken="+pos.POSAccessToken, nil, nil)
	_, otherID := env.SendForID(t, "GET", "/v1/location/2", nil, nil)

	tests := []struct {
		name string
		q    sandbox.JournalQuery
		want []string // request ids among ours, newest first
	}{
		{"all", sandbox.JournalQuery{}, []string{otherID, forbiddenID, okID}},
		{"status=4xx", sandbox.JournalQuery{Status: "4xx"}, []string{forbiddenID}},
		{"status=200", sandbox.JournalQuery{Status: "200"}, []string{otherID, okID}},
		// Location 2: named in the path; location 1: the POS token's.
		{"locationId=2", sandbox.JournalQuery{LocationID: 2}, []string{otherID, forbiddenID}},
		{"locationId=1", sandbox.JournalQuery{LocationID: 1}, []string{forbiddenID, okID}},
		{"locationId=1&status=2xx", sandbox.JournalQuery{LocationID: 1, Status: "2xx"}, []string{okID}},
	}
	ours := map[string]bool{okID: true, forbiddenID: true, otherID: true}
	for _, tt := range tests {
		tt.q.After = before.LastSeq
		l := requests(t, env, tt.q)
		var got []string
		for _, e := range l.Requests {
			if ours[e.RequestID] {
				got = append(got, e.RequestID)
			}
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
	if l := requests(t, env, sandbox.JournalQuery{Limit: 2}); len(l.Requests) != 2 {
		t.Errorf("limit=2 gave %d entries", len(l.Requests))
	}
}

func TestSize(t *testing.T) {
	t.Parallel()
	small := refservertest.Start(t, func(c *refservertest.Options) { c.JournalSize = 2 })
	for range 4 {
		small.Send(t, "GET", "/v1/location/1", nil, nil)
	}
	l := requests(t, small, sandbox.JournalQuery{})
	if l.Capacity != 2 || len(l.Requests) != 2 || l.LastSeq < 4 {
		t.Errorf("JournalSize 2: capacity %d, %d entries, lastSeq %d", l.Capacity, len(l.Requests), l.LastSeq)
	}

	off := refservertest.Start(t, func(c *refservertest.Options) { c.JournalSize = -1 })
	off.Send(t, "GET", "/v1/location/1", nil, nil)
	l = requests(t, off, sandbox.JournalQuery{})
	if l.Capacity != 0 || len(l.Requests) != 0 {
		t.Errorf("JournalSize -1: capacity %d, %d entries", l.Capacity, len(l.Requests))
	}
}
