package wallet_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/possync"
	"github.com/hospo-dev/hospo-go/refserver/refservertest"
	"github.com/hospo-dev/hospo-go/wallet"
)

// Test cards: Luhn-valid numbers of each network, and the sandbox's
// decline card.
const (
	visaNumber    = "4111111111111111"
	mcNumber      = "5555555555554444"
	mc2Number     = "2223000048400011"
	amexNumber    = "378282246310005"
	otherNumber   = "6011111111111117"
	declineNumber = "4000000000000002"
)

// testCVCs are the CVCs used end to end; the secret scans look for them.
var testCVCs = []string{"739", "8264"}

// card returns test card details expiring in three years.
func card(number string) wallet.CardDetails {
	cvc := testCVCs[0]
	if len(number) == 15 {
		cvc = testCVCs[1] // the third network's cards have 4-digit codes
	}
	return wallet.CardDetails{
		Number: number, CVC: cvc, ExpiryMonth: 7,
		ExpiryYear: (time.Now().UTC().Year() + 3) % 100, HolderName: "E2E Diner",
	}
}

// user is a fresh sandbox user with a wallet service trusting the
// sandbox CA for the provider calls.
type user struct {
	id    int64
	token string
	c     *client.Client
	w     *wallet.Service
}

func newUser(t *testing.T, env *refservertest.Env) user {
	t.Helper()
	id, tok := env.NewUser(t)
	c := env.Client(t, client.WithAccessToken(tok))
	return user{id: id, token: tok, c: c, w: wallet.NewService(c, wallet.WithProviderRootCAs(env.RootCAs))}
}

// location is a sandbox location and its POS's push-pull service.
type location struct {
	id  int64
	gw  wallet.Gateway
	pos *possync.Service
}

func newLocation(t *testing.T, env *refservertest.Env, name string, gw wallet.Gateway) location {
	t.Helper()
	id, posToken := env.NewLocation(t, name, string(gw))
	return location{id: id, gw: gw, pos: possync.NewService(env.Client(t, client.WithAccessToken(posToken)))}
}

// heartbeat marks the location online.
func (l location) heartbeat(t *testing.T) {
	t.Helper()
	if _, err := l.pos.Heartbeat(t.Context(), l.id); err != nil {
		t.Fatalf("heartbeat: %v", err)
	}
}

// pushCheck pushes an open check with the given outstanding amount.
func (l location) pushCheck(t *testing.T, checkNumber int64, outstanding string) {
	t.Helper()
	amt := client.MustParseMoney(outstanding)
	_, err := l.pos.PushCheck(t.Context(), &possync.Check{
		TableNumber: 4, CheckNumber: checkNumber, LocationID: l.id, StaffID: "s1", Guests: 2,
		Status: possync.CheckOpen, TotalAmount: amt, OutstandingAmount: amt,
		MenuItems: []possync.MenuItem{{ID: 1, Name: "Stew", Quantity: 1, Price: amt, PriceSold: amt,
			Category: possync.Category{Name: "Mains"}}},
	})
	if err != nil {
		t.Fatalf("push check: %v", err)
	}
}

// tokenise posts card data to providerD's endpoint at url by hand, the way
// TokeniseProviderD does but with any keyId, and returns the status and
// the body.
func tokenise(t *testing.T, hc *http.Client, url, keyID string, d wallet.CardDetails) (int, map[string]any) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{
		"keyId": keyID, "number": d.Number, "expiryMonth": d.ExpiryMonth, "expiryYear": d.ExpiryYear % 100, "cvc": d.CVC,
	})
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatalf("tokenise: %v", err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("tokenise: response %q: %v", raw, err)
	}
	return resp.StatusCode, out
}

// contextData returns the contextData of an error body as a string map.
func contextData(body map[string]any) map[string]string {
	m, _ := body["contextData"].(map[string]any)
	out := map[string]string{}
	for k, v := range m {
		s, _ := v.(string)
		out[k] = s
	}
	return out
}

// fieldErrors returns the 400002 field errors of err, failing the test when
// err is not a validation error.
func fieldErrors(t *testing.T, err error) map[string]string {
	t.Helper()
	var apiErr *client.APIError
	if !errors.As(err, &apiErr) || apiErr.Code != client.CodeValidation {
		t.Fatalf("err = %v, want a 400002", err)
	}
	return apiErr.FieldErrors()
}

// insertFor builds the insert body matching d.
func insertFor(d wallet.CardDetails) wallet.InsertCardRequest {
	return wallet.InsertCardRequest{
		ExpiryMonth: d.ExpiryMonth, ExpiryYear: d.ExpiryYear % 100,
		First6Digits: d.Number[:6], Last4Digits: d.Number[len(d.Number)-4:], Save: true,
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
