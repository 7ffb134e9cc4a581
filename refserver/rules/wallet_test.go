package rules

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hospo-dev/hospo-go/refserver/internal/api"
	"github.com/hospo-dev/hospo-go/wallet"
)

func TestCardTypeForBIN(t *testing.T) {
	t.Parallel()
	tests := map[string]wallet.CardType{
		"411111": wallet.CardTypeNetwork1, "400000": wallet.CardTypeNetwork1,
		"510000": wallet.CardTypeNetwork2, "555555": wallet.CardTypeNetwork2, "560000": wallet.CardTypeUnknown,
		"222100": wallet.CardTypeNetwork2, "272099": wallet.CardTypeNetwork2, "222099": wallet.CardTypeUnknown, "272100": wallet.CardTypeUnknown,
		"340000": wallet.CardTypeNetwork3, "370000": wallet.CardTypeNetwork3, "350000": wallet.CardTypeUnknown,
		"601111": wallet.CardTypeUnknown, "": wallet.CardTypeUnknown, "4a": wallet.CardTypeUnknown,
	}
	for bin, want := range tests {
		if got := cardTypeForBIN(bin); got != want {
			t.Errorf("cardTypeForBIN(%q) = %s, want %s", bin, got, want)
		}
	}
}

func TestCheckCardInsert(t *testing.T) {
	t.Parallel()
	now := time.Date(2030, time.June, 10, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name string
		body string
		want map[string]string
	}{
		{"good", `{"expiryMonth":6,"expiryYear":30,"first6Digits":"411111","last4Digits":"1111","providerDToken":"t"}`, nil},
		{"both tokens", `{"expiryMonth":6,"expiryYear":30,"first6Digits":"411111","last4Digits":"1111","providerBCse":"c","providerDToken":"t","nickname":"ok","save":false,"default":true}`, nil},
		{"missing", `{}`, map[string]string{
			"expiryMonth": "required", "expiryYear": "required", "first6Digits": "required", "last4Digits": "required",
			"providerBCse": "one of providerBCse and providerDToken is required", "providerDToken": "one of providerBCse and providerDToken is required"}},
		{"nulls", `{"expiryMonth":null,"expiryYear":30,"first6Digits":"411111","last4Digits":"1111","providerBCse":null,"providerDToken":""}`, map[string]string{
			"expiryMonth": "required", "providerDToken": "must not be empty"}},
		{"expired", `{"expiryMonth":5,"expiryYear":30,"first6Digits":"411111","last4Digits":"1111","providerBCse":"c"}`, map[string]string{
			"expiryYear": "the card has expired"}},
		{"ranges", `{"expiryMonth":0,"expiryYear":2030,"first6Digits":"4111111","last4Digits":"111","providerBCse":"c","nickname":"a\u0007b"}`, map[string]string{
			"expiryMonth": "must be 1 to 12", "expiryYear": "must be a two-digit year (0 to 99)",
			"first6Digits": "must be 6 digits", "last4Digits": "must be 4 digits", "nickname": "must not contain control characters"}},
		{"month only bad", `{"expiryMonth":13,"first6Digits":"411111","last4Digits":"1111","providerBCse":"c"}`, map[string]string{
			"expiryMonth": "must be 1 to 12", "expiryYear": "required"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var req wallet.InsertCardRequest
			if err := api.DecodeBytes([]byte(tt.body), &req); err != nil {
				t.Fatalf("decode: %v", err)
			}
			if d := cmp.Diff(tt.want, fieldErrors(t, CheckCardInsert([]byte(tt.body), &req, now))); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

// FuzzCardInsertBody feeds arbitrary bodies through the insert's decoding
// and validation: they must never panic, and every reported field must be
// one of the body's.
func FuzzCardInsertBody(f *testing.F) {
	f.Add(`{"expiryMonth":6,"expiryYear":30,"first6Digits":"411111","last4Digits":"1111","providerDToken":"t"}`)
	f.Add(`{"expiryMonth":-1,"expiryYear":1e9,"first6Digits":"","nickname":"\u0000"}`)
	f.Add(`[]`)
	f.Add(`{"save":null,"default":null}`)
	known := map[string]bool{"expiryMonth": true, "expiryYear": true, "first6Digits": true, "last4Digits": true,
		"nickname": true, "providerBCse": true, "providerDToken": true}
	now := time.Date(2030, time.June, 10, 0, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, body string) {
		var req wallet.InsertCardRequest
		if api.DecodeBytes([]byte(body), &req) != nil {
			return
		}
		for k := range fieldErrors(t, CheckCardInsert([]byte(body), &req, now)) {
			if !known[k] {
				t.Fatalf("unknown field %q reported", k)
			}
		}
	})
}
