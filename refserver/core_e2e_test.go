package refserver_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/refserver/refservertest"
	"github.com/hospo-dev/hospo-go/refserver/sim"
	"github.com/hospo-dev/hospo-go/wallet"
)

func TestRestartKeepsData(t *testing.T) {
	t.Parallel()
	env := refservertest.Start(t)
	fixtures := env.Fixtures(t)
	c := env.Client(t, client.WithAdminKey(env.AdminKey))
	var created struct {
		UserID      int64  `json:"userId"`
		AccessToken string `json:"accessToken"`
	}
	req := &client.Request{Method: http.MethodPost, Path: "sandbox/users", Auth: client.AuthAdminKey}
	if _, err := c.Do(t.Context(), req, &created, client.WithIdempotencyKey("restart-1")); err != nil {
		t.Fatal(err)
	}
	ca := env.CAPEM

	env.Restart(t)

	if got := env.Fixtures(t); got.Users[0] != fixtures.Users[0] || len(got.Locations) != 2 {
		t.Errorf("fixture changed across restart: %+v", got)
	}
	// The idempotency record survived: the same key replays the same user.
	var replay struct {
		UserID      int64  `json:"userId"`
		AccessToken string `json:"accessToken"`
	}
	resp, err := c.Do(t.Context(), req, &replay, client.WithIdempotencyKey("restart-1"))
	if err != nil {
		t.Fatal(err)
	}
	if replay != created || resp.Header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("replay after restart = %+v (replayed %q), want %+v", replay, resp.Header.Get("Idempotent-Replayed"), created)
	}
	// The user row survived: the next user gets the next id.
	if id, _ := env.NewUser(t); id != created.UserID+1 {
		t.Errorf("next user id %d, want %d", id, created.UserID+1)
	}
	if !bytes.Equal(env.CAPEM, ca) {
		t.Error("the CA certificate changed across restart")
	}
}

func TestTLSListenerServesSameHandler(t *testing.T) {
	t.Parallel()
	env := refservertest.Start(t)
	resp, err := env.HTTPSClient().Get(env.TLSURL + "/sandbox/ca.pem")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	pem, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || !bytes.Equal(pem, env.CAPEM) || !strings.HasPrefix(string(pem), "-----BEGIN CERTIFICATE-----") {
		t.Errorf("GET https /sandbox/ca.pem: %d %q", resp.StatusCode, pem)
	}
	if resp.Header.Get("X-Request-Id") == "" {
		t.Error("no X-Request-Id over HTTPS")
	}
	// A client that does not trust the sandbox CA is refused.
	if _, err := http.Get(env.TLSURL + "/sandbox/ca.pem"); err == nil {
		t.Error("untrusted client reached the HTTPS listener")
	}
}

func TestSDKClientDecodesServerErrors(t *testing.T) {
	t.Parallel()
	env := refservertest.Start(t)
	c := env.Client(t)
	_, err := c.Do(t.Context(), &client.Request{Method: http.MethodGet, Path: "v1/no/such/thing"}, nil)
	var ae *client.APIError
	if !errors.As(err, &ae) || !errors.Is(err, client.ErrNotFound) || ae.HTTPStatus != 404 || ae.RequestID == "" {
		t.Fatalf("err = %#v, want a 404001 APIError with a request id", err)
	}
	if ae.RequestInfo.APIVersion != 0 || ae.RequestInfo.AccessTokenStatus != "missing" {
		t.Errorf("requestInfo = %+v", ae.RequestInfo)
	}
	_, err = c.Do(t.Context(), &client.Request{Method: http.MethodPost, Path: "sandbox/locations", Body: map[string]any{"gateway": "x"}, Auth: client.AuthAdminKey},
		nil, client.WithAdminKey(env.AdminKey))
	if !errors.Is(err, client.ErrValidation) {
		t.Fatalf("err = %v, want 400002", err)
	}
	errors.As(err, &ae)
	if fe := ae.FieldErrors(); fe["name"] != "required" || fe["gateway"] == "" {
		t.Errorf("FieldErrors = %v", fe)
	}
	_, err = c.Do(t.Context(), &client.Request{Method: http.MethodGet, Path: "sandbox/fixtures", Auth: client.AuthAdminKey}, nil, client.WithAdminKey("wrong"))
	if !errors.Is(err, client.ErrAdminKeyInvalid) {
		t.Errorf("err = %v, want 401005", err)
	}
}

func TestInjectedFaultsAreRetriedBySDK(t *testing.T) {
	t.Parallel()
	env := refservertest.Start(t)
	if st := env.AdminDo(t, "POST", "/sandbox/faults", map[string]any{"method": "GET", "pathPrefix": "/v1/unknown", "status": 503, "count": 2}, nil); st != http.StatusCreated {
		t.Fatalf("add fault: %d", st)
	}
	c := env.Client(t)
	_, err := c.Do(context.Background(), &client.Request{Method: http.MethodGet, Path: "v1/unknown"}, nil)
	// Two 503s are retried away; the third attempt reaches the router: 404.
	if !errors.Is(err, client.ErrNotFound) {
		t.Errorf("err = %v, want 404001 after the faults were retried", err)
	}
}

// TestNoSecretsInDatabase scans the database file and its WAL for every
// credential the test used or created: none may be stored in the clear.
func TestNoSecretsInDatabase(t *testing.T) {
	t.Parallel()
	env := refservertest.Start(t)
	f := env.Fixtures(t)
	userToken := env.NewDiner(t).AccessToken
	venue := env.NewVenue(t, refservertest.VenueConfig{Name: "Scan Bistro", Gateway: wallet.ProviderE})
	posToken := venue.POSToken
	apiKey := env.NewAPIKey(t, venue.ID, f.Locations[0].LocationID)
	// Keyed POSTs store their (sealed) responses, which hold secrets.
	c := env.Client(t, client.WithAdminKey(env.AdminKey))
	var keyed struct{ AccessToken string }
	if _, err := c.Do(t.Context(), &client.Request{Method: "POST", Path: "sandbox/users", Auth: client.AuthAdminKey}, &keyed, client.WithIdempotencyKey("scan")); err != nil {
		t.Fatal(err)
	}
	var keyedLoc struct{ POSAccessToken string }
	if _, err := c.Do(t.Context(), &client.Request{Method: "POST", Path: "sandbox/locations", Auth: client.AuthAdminKey,
		Body: map[string]any{"name": "Keyed", "gateway": "providerA"}}, &keyedLoc, client.WithIdempotencyKey("scan-loc")); err != nil {
		t.Fatal(err)
	}
	// Use the credentials so they pass through the request path too.
	for _, tok := range []string{userToken, posToken, f.Users[0].AccessToken} {
		http.Get(env.URL + "/v1/anything?accessToken=" + tok)
	}

	secrets := map[string]string{
		"admin key":          env.AdminKey,
		"created user token": userToken,
		"created POS token":  posToken,
		"created API key":    apiKey,
		"keyed user token":   keyed.AccessToken,
		"keyed POS token":    keyedLoc.POSAccessToken,
	}
	for i, u := range f.Users {
		secrets["demo user token "+string(rune('1'+i))] = u.AccessToken
	}
	for i, l := range f.Locations {
		secrets["demo POS token "+string(rune('1'+i))] = l.POSAccessToken
	}
	for i, k := range f.APIKeys {
		secrets["demo API key "+string(rune('1'+i))] = k.APIKey
	}
	check := func(when string) {
		db := env.DBBytes(t)
		if len(db) == 0 {
			t.Fatal("empty database")
		}
		for name, s := range secrets {
			if s == "" {
				t.Errorf("%s is empty", name)
				continue
			}
			if bytes.Contains(db, []byte(s)) {
				t.Errorf("%s: the database holds the %s in the clear", when, name)
			}
		}
		// The universal POS bearer token is the one secret kept usable.
		if !bytes.Contains(db, []byte(sim.DemoPOSToken(env.AdminKey))) {
			t.Logf("%s: demo POS bearer token not found (fine, just unexpected)", when)
		}
	}
	check("while running")
	env.Restart(t) // checkpoints the WAL into the main file
	check("after restart")
}

func TestDocumentsServedAndValidationSkipsAdmin(t *testing.T) {
	t.Parallel()
	env := refservertest.Start(t, func(c *refservertest.Options) { c.ValidateRequests = true })
	for _, p := range []string{"/openapi.json", "/universal-pos/openapi.json"} {
		resp, err := http.Get(env.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !bytes.Contains(body, []byte(`"openapi"`)) {
			t.Errorf("GET %s: %d %.60s", p, resp.StatusCode, body)
		}
	}
	if id, tok := env.NewUser(t); id == 0 || tok == "" {
		t.Error("admin endpoint refused with validation on")
	}
}
