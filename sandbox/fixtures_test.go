package sandbox

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/wallet"
)

const fixturesJSON = `{
	"users":[{"userId":1,"accessToken":"usr_demo1_aa"},{"userId":2,"accessToken":"usr_demo2_bb"}],
	"locations":[
		{"locationId":1,"name":"Harbour Grill","gateway":"providerB","posAccessToken":"pos_demo1_cc"},
		{"locationId":2,"name":"Garden Cafe","gateway":"providerD","posAccessToken":"pos_demo2_dd"}],
	"apiKeys":[{"apiKey":"key_demo1_ee","locationIds":[1]},{"apiKey":"key_demo2_ff","locationIds":[1,2]}]}`

var wantFixtures = Fixtures{
	Users: []User{{UserID: 1, AccessToken: "usr_demo1_aa"}, {UserID: 2, AccessToken: "usr_demo2_bb"}},
	Locations: []Location{
		{LocationID: 1, Name: "Harbour Grill", Gateway: wallet.ProviderB, POSAccessToken: "pos_demo1_cc"},
		{LocationID: 2, Name: "Garden Cafe", Gateway: wallet.ProviderD, POSAccessToken: "pos_demo2_dd"},
	},
	APIKeys: []APIKey{{APIKey: "key_demo1_ee", LocationIDs: []int64{1}}, {APIKey: "key_demo2_ff", LocationIDs: []int64{1, 2}}},
}

func TestFixtures(t *testing.T) {
	t.Parallel()
	s, mt := newMockService(t)
	var rec recorder
	mt.RegisterResponder(http.MethodGet, testBase+"sandbox/fixtures", rec.json(200, fixturesJSON))

	f, err := s.Fixtures(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	c := rec.last(t)
	testAdminRequest(t, c, http.MethodGet, "/prefix/sandbox/fixtures")
	testBody(t, c, "")
	if d := cmp.Diff(wantFixtures, f); d != "" {
		t.Errorf("fixtures (-want +got):\n%s", d)
	}
	if l, ok := f.Location(wallet.ProviderD); !ok || l.LocationID != 2 {
		t.Errorf("Location(providerD) = %+v, %v; want location 2", l, ok)
	}
	if l, ok := f.Location(wallet.ProviderA); ok {
		t.Errorf("Location(providerA) = %+v, want none", l)
	}
}

func TestReset(t *testing.T) {
	t.Parallel()
	s, mt := newMockService(t)
	var rec recorder
	mt.RegisterResponder(http.MethodPost, testBase+"sandbox/reset", rec.json(200, fixturesJSON))

	f, err := s.Reset(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	c := rec.last(t)
	testAdminRequest(t, c, http.MethodPost, "/prefix/sandbox/reset")
	testBody(t, c, "")
	// A POST: the key makes a retry after a lost answer safe.
	if c.Header.Get(client.HeaderIdempotencyKey) == "" {
		t.Error("no Idempotency-Key")
	}
	if d := cmp.Diff(wantFixtures, f); d != "" {
		t.Errorf("fixtures (-want +got):\n%s", d)
	}
}

func TestCreateUser(t *testing.T) {
	t.Parallel()
	s, mt := newMockService(t)
	var rec recorder
	mt.RegisterResponder(http.MethodPost, testBase+"sandbox/users", rec.json(201, `{"userId":7,"accessToken":"usr_x"}`))

	u, err := s.CreateUser(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	testAdminRequest(t, rec.last(t), http.MethodPost, "/prefix/sandbox/users")
	if want := (User{UserID: 7, AccessToken: "usr_x"}); u != want {
		t.Errorf("user = %+v, want %+v", u, want)
	}
}

func TestCreateLocation(t *testing.T) {
	t.Parallel()
	s, mt := newMockService(t)
	var rec recorder
	mt.RegisterResponder(http.MethodPost, testBase+"sandbox/locations", rec.json(201, `{"locationId":9,"posAccessToken":"pos_x"}`))

	tests := []struct {
		name string
		req  CreateLocationRequest
		body string
	}{
		{"without a POS", CreateLocationRequest{Name: "Pier", Gateway: wallet.ProviderD},
			`{"name":"Pier","gateway":"providerD"}`},
		{"with a universal POS", CreateLocationRequest{Name: "Pier", Gateway: wallet.ProviderB, POSURL: "https://pos.test/", POSToken: "bearer"},
			`{"name":"Pier","gateway":"providerB","posUrl":"https://pos.test/","posToken":"bearer"}`},
	}
	for _, tt := range tests {
		l, err := s.CreateLocation(context.Background(), tt.req)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		c := rec.last(t)
		testAdminRequest(t, c, http.MethodPost, "/prefix/sandbox/locations")
		testBody(t, c, tt.body)
		want := Location{LocationID: 9, Name: "Pier", Gateway: tt.req.Gateway, POSAccessToken: "pos_x"}
		if l != want {
			t.Errorf("%s: location = %+v, want %+v", tt.name, l, want)
		}
	}
}

func TestCreateLocationValidation(t *testing.T) {
	t.Parallel()
	s, mt := newMockService(t)
	mt.RegisterResponder(http.MethodPost, testBase+"sandbox/locations", new(recorder).json(400,
		errorBody(client.CodeValidation, "", `{"name":"must not be empty","gateway":"must be one of providerA, providerB"}`)))

	_, err := s.CreateLocation(context.Background(), CreateLocationRequest{Gateway: "providerZ"})
	var apiErr *client.APIError
	if !errors.Is(err, client.ErrValidation) || !errors.As(err, &apiErr) {
		t.Fatalf("err = %v, want a 400002", err)
	}
	if got := apiErr.FieldErrors(); got["name"] == "" || got["gateway"] == "" {
		t.Errorf("FieldErrors = %v", got)
	}
}

func TestCreateAPIKey(t *testing.T) {
	t.Parallel()
	s, mt := newMockService(t)
	var rec recorder
	mt.RegisterResponder(http.MethodPost, testBase+"sandbox/api-keys", rec.json(201, `{"apiKey":"key_x","keyId":3,"locationIds":[1,2]}`))

	k, err := s.CreateAPIKey(context.Background(), []int64{2, 1, 2})
	if err != nil {
		t.Fatal(err)
	}
	c := rec.last(t)
	testAdminRequest(t, c, http.MethodPost, "/prefix/sandbox/api-keys")
	testBody(t, c, `{"locationIds":[2,1,2]}`)
	if d := cmp.Diff(APIKey{APIKey: "key_x", KeyID: 3, LocationIDs: []int64{1, 2}}, k); d != "" {
		t.Errorf("key (-want +got):\n%s", d)
	}

	// No locations is sent as an empty list, for the server to name.
	if _, err := s.CreateAPIKey(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	testBody(t, rec.last(t), `{"locationIds":[]}`)
}
