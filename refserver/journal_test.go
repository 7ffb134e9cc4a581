package refserver_test

import (
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/hospo-dev/hospo-go/refserver/refservertest"
)

func fmtID(n int64) string { return strconv.FormatInt(n, 10) }

// The journal holds no token, key, card number or CVC, whatever the
// requests carried, and neither does the console's view of it.
func TestJournalNeverHoldsSecrets(t *testing.T) {
	t.Parallel()
	env := refservertest.Start(t)
	f := env.Fixtures(t)
	diner := env.NewDiner(t)
	venue := env.NewVenue(t, refservertest.VenueConfig{Name: "Secret Diner"})
	token, loc, posToken := diner.AccessToken, venue.ID, venue.POSToken
	apiKey := venue.NewAPIKey(t)

	// The card goes in cleartext to the sandbox's providerD endpoint (over
	// HTTPS) and encrypted to providerB; both requests are journaled.
	cardID := addConsoleCard(t, diner, "journal card")
	status, _ := env.Send(t, "POST", "/sandbox/providerD/tokenise", nil,
		[]byte(`{"keyId":"unknown","number":"`+consoleTestCard.Number+`","expiryMonth":9,"expiryYear":39,"cvc":"`+consoleTestCard.CVC+`"}`))
	if status < 400 {
		t.Fatalf("tokenising with an unknown keyId: status %d, want an error", status)
	}
	env.Send(t, "POST", "/v1/pos/push-pull/heartbeat/"+fmtID(loc)+"?accessToken="+posToken, nil, nil)
	env.Send(t, "GET", "/v3/location/"+fmtID(loc)+"/bills/closed?from=2030-01-01T00:00:00Z&to=2030-01-02T00:00:00Z",
		http.Header{"X-Vendor-Api-Key": {apiKey}}, nil)
	env.Send(t, "GET", "/sandbox/fixtures", http.Header{"X-Sandbox-Admin-Key": {env.AdminKey}}, nil)
	env.Send(t, "GET", "/v1/user/me?scope=wallet&accessToken="+token, http.Header{"Authorization": {"Bearer " + token}}, nil)
	env.Send(t, "POST", "/sandbox/cards/"+fmtID(cardID)+"/status", http.Header{"X-Sandbox-Admin-Key": {env.AdminKey}}, []byte(`{"cardStatusId":1}`))

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
	// The CVC is four digits, which occur by chance in what the server
	// makes itself (a request id, the nanoseconds of a time, a duration):
	// look for it in the text an entry takes from the request.
	for _, e := range l.Requests {
		if text := e.Method + " " + e.Route + " " + e.Credential; strings.Contains(text, consoleTestCard.CVC) {
			t.Errorf("a journal entry holds the CVC: %s", text)
		}
	}

	a := loggedInAgent(t, env)
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
