package wallet_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"testing"

	"github.com/hospo-dev/hospo-go/client"
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

// testCVCs are the CVCs of the test cards (refservertest.Card); the secret
// scans look for them.
var testCVCs = []string{refservertest.Card(visaNumber).CVC, refservertest.Card(amexNumber).CVC}

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
