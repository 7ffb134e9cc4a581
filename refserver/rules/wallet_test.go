package rules

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/refserver/internal/api"
	"github.com/hospo-dev/hospo-go/refserver/sim"
	"github.com/hospo-dev/hospo-go/refserver/store"
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

// "save" left out means a Live card; the SDK's type cannot say so, so
// CheckCardInsert does.
func TestCheckCardInsertSaveDefault(t *testing.T) {
	t.Parallel()
	for body, want := range map[string]bool{
		`{"save":true}`:  true,
		`{"save":false}`: false,
		`{"save":null}`:  true,
		`{}`:             true,
	} {
		var req wallet.InsertCardRequest
		if err := api.DecodeBytes([]byte(body), &req); err != nil {
			t.Fatal(err)
		}
		_ = CheckCardInsert([]byte(body), &req, testNow)
		if req.Save != want {
			t.Errorf("%s: Save = %v, want %v", body, req.Save, want)
		}
	}
}

func TestGetWallet(t *testing.T) {
	t.Parallel()
	s := newScene(t)
	u, err := run(t, s.db, func(tx *store.Tx) (wallet.User, error) { return GetWallet(tx, s.other) })
	if err != nil {
		t.Fatal(err)
	}
	// An empty wallet is [] on the wire, and no card is the default.
	if u.UserID != s.other || u.Wallet == nil || len(u.Wallet) != 0 || u.DefaultCardID != 0 {
		t.Errorf("empty wallet: %+v", u)
	}
	if _, err := run(t, s.db, func(tx *store.Tx) (wallet.User, error) { return GetWallet(tx, 99) }); !errors.Is(err, client.ErrNotFound) {
		t.Errorf("unknown user: err = %v, want 404001", err)
	}
}

// cardInsert is a card insert of the Visa test card with a providerB CSE
// encrypted to the store's providerB key (made on first use).
func cardInsert(t *testing.T, db *store.DB, number string) wallet.InsertCardRequest {
	t.Helper()
	k, err := sim.EnsureProviderBKey(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	jwk := wallet.NewJWK(&k.Private.PublicKey, k.KeyID, "enc")
	cse, err := wallet.EncryptProviderBCSE(jwk, wallet.CardDetails{Number: number, CVC: "739", ExpiryMonth: 7, ExpiryYear: 33, HolderName: "A Diner"})
	if err != nil {
		t.Fatal(err)
	}
	return wallet.InsertCardRequest{ExpiryMonth: 7, ExpiryYear: 33, First6Digits: number[:6], Last4Digits: number[len(number)-4:],
		Save: true, ProviderBCse: cse}
}

// insertCard runs CheckCardInsert's checks that need no body, then
// InsertCard as the card insert endpoint does.
func insertCard(t *testing.T, db *store.DB, userID int64, req wallet.InsertCardRequest) ([]wallet.Card, error) {
	t.Helper()
	var key *sim.ProviderBKey
	if err := db.Read(context.Background(), func(tx *store.Tx) (err error) {
		key, err = ProviderBKey(tx, &req)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return run(t, db, func(tx *store.Tx) ([]wallet.Card, error) { return InsertCard(tx, userID, req, key) })
}

func TestInsertCard(t *testing.T) {
	t.Parallel()
	s := newScene(t)
	first, err := insertCard(t, s.db, s.other, cardInsert(t, s.db, "4111111111111111"))
	if err != nil {
		t.Fatal(err)
	}
	want := []wallet.Card{{CardID: first[0].CardID, Last4Digits: "1111", CardTypeID: wallet.CardTypeNetwork1,
		CardStatusID: wallet.CardStatusLive, Default: true, ExpiryMonth: "07", ExpiryYear: "33"}}
	want[0].Gateways.Set(wallet.ProviderB)
	if diff := cmp.Diff(want, first); diff != "" {
		t.Errorf("the first card, the default (-want +got):\n%s", diff)
	}

	// A second card, not saved and not asked to be the default: a
	// Temporary card, and the default stays.
	req := cardInsert(t, s.db, "5555555555554444")
	req.Save, req.Nickname = false, "Work"
	second, err := insertCard(t, s.db, s.other, req)
	if err != nil {
		t.Fatal(err)
	}
	want = append(want, wallet.Card{CardID: second[1].CardID, Last4Digits: "4444", Nickname: "Work", CardTypeID: wallet.CardTypeNetwork2,
		CardStatusID: wallet.CardStatusTemporary, ExpiryMonth: "07", ExpiryYear: "33"})
	want[1].Gateways.Set(wallet.ProviderB)
	if diff := cmp.Diff(want, second); diff != "" {
		t.Errorf("a second card (-want +got):\n%s", diff)
	}

	// The same card again, asked to be the default: a new entry that takes
	// the default over.
	req = cardInsert(t, s.db, "4111111111111111")
	req.Default = true
	third, err := insertCard(t, s.db, s.other, req)
	if err != nil {
		t.Fatal(err)
	}
	if len(third) != 3 || third[0].Default || third[1].Default || !third[2].Default || third[2].CardID == first[0].CardID {
		t.Errorf("after a third card with default: %+v", third)
	}
	u, err := run(t, s.db, func(tx *store.Tx) (wallet.User, error) { return GetWallet(tx, s.other) })
	if err != nil || u.DefaultCardID != third[2].CardID || len(u.Wallet) != 3 {
		t.Errorf("GetWallet = %+v, %v; want 3 cards, the third the default", u, err)
	}
}

func TestInsertCardRefused(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		req  func(t *testing.T, db *store.DB) wallet.InsertCardRequest
		want map[string]string
	}{
		{"another card than claimed", func(t *testing.T, db *store.DB) wallet.InsertCardRequest {
			req := cardInsert(t, db, "4111111111111111")
			req.First6Digits, req.ExpiryMonth = "555555", 8
			return req
		}, map[string]string{"first6Digits": "does not match the tokenised card", "expiryMonth": "does not match the tokenised card"}},
		{"no providerB key handed out yet", func(*testing.T, *store.DB) wallet.InsertCardRequest {
			return wallet.InsertCardRequest{ExpiryMonth: 7, ExpiryYear: 33, First6Digits: "411111", Last4Digits: "1111", ProviderBCse: "x.y.z"}
		}, map[string]string{"providerBCse": "cannot be decrypted with providerB's key"}},
		{"a CSE that is not one", func(t *testing.T, db *store.DB) wallet.InsertCardRequest {
			req := cardInsert(t, db, "4111111111111111")
			req.ProviderBCse = "x.y.z"
			return req
		}, map[string]string{"providerBCse": "cannot be decrypted with providerB's key"}},
		{"both tokens bad", func(t *testing.T, db *store.DB) wallet.InsertCardRequest {
			req := cardInsert(t, db, "4111111111111111")
			req.ProviderBCse, req.ProviderDToken = "x.y.z", "not-a-jwe"
			return req
		}, map[string]string{"providerBCse": "cannot be decrypted with providerB's key",
			"providerDToken": "is not a token issued for one of your providerD keys"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newScene(t)
			_, err := insertCard(t, s.db, s.other, tt.req(t, s.db))
			if diff := cmp.Diff(tt.want, fieldErrors(t, err)); diff != "" {
				t.Errorf("fields (-want +got):\n%s", diff)
			}
			// Nothing was kept: no entry, and no token issued.
			u, err := run(t, s.db, func(tx *store.Tx) (wallet.User, error) { return GetWallet(tx, s.other) })
			if err != nil || len(u.Wallet) != 0 {
				t.Errorf("wallet after a refused insert: %+v, %v", u.Wallet, err)
			}
			var tokens int64
			if err := s.db.Read(context.Background(), func(tx *store.Tx) (err error) {
				tokens, err = tx.CountRows("provider_tokens")
				return err
			}); err != nil || tokens != 1 { // the scene's own card's
				t.Errorf("%d provider tokens, %v; want the scene's 1", tokens, err)
			}
		})
	}
}

func TestSetCardStatus(t *testing.T) {
	t.Parallel()
	tests := []struct {
		body string
		want map[string]string
	}{
		{`{"cardStatusId":2}`, nil},
		{`{}`, map[string]string{"cardStatusId": "required"}},
		{`{"cardStatusId":null}`, map[string]string{"cardStatusId": "required"}},
		{`{"cardStatusId":6}`, map[string]string{"cardStatusId": "must be 1, 2, 3, 4 or 5"}},
	}
	for _, tt := range tests {
		var req CardStatusRequest
		if err := api.DecodeBytes([]byte(tt.body), &req); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.want, fieldErrors(t, CheckCardStatus([]byte(tt.body), &req))); diff != "" {
			t.Errorf("%s: fields (-want +got):\n%s", tt.body, diff)
		}
	}

	s := newScene(t)
	set := func(card int64) error {
		_, err := run(t, s.db, func(tx *store.Tx) (struct{}, error) {
			return struct{}{}, SetCardStatus(tx, card, CardStatusRequest{CardStatusID: int(wallet.CardStatusUserCancelled)})
		})
		return err
	}
	if err := set(s.card); err != nil {
		t.Fatal(err)
	}
	u, err := run(t, s.db, func(tx *store.Tx) (wallet.User, error) { return GetWallet(tx, s.user) })
	if err != nil || u.Wallet[0].CardStatusID != wallet.CardStatusUserCancelled {
		t.Errorf("after SetCardStatus: %+v, %v", u.Wallet, err)
	}
	if err := set(s.card + 100); !notFoundAs(err, "Card not found.") {
		t.Errorf("unknown card: err = %v, want 404001 Card not found.", err)
	}
}
