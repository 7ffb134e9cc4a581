package wallet_test

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/refserver/refservertest"
	"github.com/hospo-dev/hospo-go/wallet"
)

func TestE2EAddCard(t *testing.T) {
	t.Parallel()
	env := refservertest.Start(t)
	yy := strconv.Itoa((time.Now().UTC().Year() + 3) % 100)

	tests := []struct {
		name      string
		providers []wallet.Gateway
		want      wallet.Gateways
	}{
		{"providerB", []wallet.Gateway{wallet.ProviderB}, wallet.Gateways{ProviderB: true}},
		{"providerD", []wallet.Gateway{wallet.ProviderD}, wallet.Gateways{ProviderD: true}},
		{"both at once", []wallet.Gateway{wallet.ProviderB, wallet.ProviderD}, wallet.Gateways{ProviderB: true, ProviderD: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			u := env.NewDiner(t)
			got, err := u.Wallet.AddCard(t.Context(), wallet.AddCardRequest{Card: refservertest.Card(visaNumber), Providers: tt.providers, Nickname: "work"})
			if err != nil {
				t.Fatalf("AddCard: %v", err)
			}
			want := wallet.Card{CardID: got.CardID, Last4Digits: "1111", Nickname: "work", CardTypeID: wallet.CardTypeNetwork1,
				CardStatusID: wallet.CardStatusLive, Default: true, ExpiryMonth: "07", ExpiryYear: yy, Gateways: tt.want}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("card (-want +got):\n%s", d)
			}
			usr, err := u.Wallet.GetWallet(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			// Both tokens in one insert make one entry.
			if len(usr.Wallet) != 1 || usr.DefaultCardID != got.CardID || usr.UserID != u.UserID {
				t.Errorf("wallet = %+v, want the one card as default", usr)
			}
		})
	}

	t.Run("one entry per tokenisation event", func(t *testing.T) {
		t.Parallel()
		u := env.NewDiner(t)
		d := refservertest.Card(visaNumber)
		b, err := u.Wallet.AddCard(t.Context(), wallet.AddCardRequest{Card: d, Providers: []wallet.Gateway{wallet.ProviderB}})
		if err != nil {
			t.Fatal(err)
		}
		dc, err := u.Wallet.AddCard(t.Context(), wallet.AddCardRequest{Card: d, Providers: []wallet.Gateway{wallet.ProviderD}, Default: true})
		if err != nil {
			t.Fatal(err)
		}
		usr, err := u.Wallet.GetWallet(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if len(usr.Wallet) != 2 || b.CardID == dc.CardID {
			t.Fatalf("wallet has %d entries, want 2 (one per tokenisation)", len(usr.Wallet))
		}
		byID := map[int64]wallet.Card{}
		for _, c := range usr.Wallet {
			byID[c.CardID] = c
		}
		if g := byID[b.CardID].Gateways; g != (wallet.Gateways{ProviderB: true}) {
			t.Errorf("first entry flags %+v", g)
		}
		if g := byID[dc.CardID].Gateways; g != (wallet.Gateways{ProviderD: true}) {
			t.Errorf("second entry flags %+v", g)
		}
		// default: true moved the default to the second entry.
		if usr.DefaultCardID != dc.CardID || byID[b.CardID].Default || !byID[dc.CardID].Default {
			t.Errorf("default = %d, want %d", usr.DefaultCardID, dc.CardID)
		}
		// A third card without default: true leaves the default alone.
		third, err := u.Wallet.AddCard(t.Context(), wallet.AddCardRequest{Card: refservertest.Card(mcNumber), Providers: []wallet.Gateway{wallet.ProviderB}})
		if err != nil {
			t.Fatal(err)
		}
		if third.Default {
			t.Error("third card became default without asking")
		}
	})

	t.Run("temporary card", func(t *testing.T) {
		t.Parallel()
		u := env.NewDiner(t)
		c, err := u.Wallet.AddCard(t.Context(), wallet.AddCardRequest{Card: refservertest.Card(visaNumber), Providers: []wallet.Gateway{wallet.ProviderD}, Temporary: true})
		if err != nil {
			t.Fatal(err)
		}
		if c.CardStatusID != wallet.CardStatusTemporary {
			t.Errorf("status = %s, want temporary", c.CardStatusID)
		}
	})

	t.Run("card types from the BIN", func(t *testing.T) {
		t.Parallel()
		u := env.NewDiner(t)
		for number, want := range map[string]wallet.CardType{
			visaNumber: wallet.CardTypeNetwork1, mcNumber: wallet.CardTypeNetwork2, mc2Number: wallet.CardTypeNetwork2,
			amexNumber: wallet.CardTypeNetwork3, otherNumber: wallet.CardTypeUnknown,
		} {
			c, err := u.Wallet.AddCard(t.Context(), wallet.AddCardRequest{Card: refservertest.Card(number), Providers: []wallet.Gateway{wallet.ProviderB}})
			if err != nil {
				t.Fatalf("%s: %v", number[:6], err)
			}
			if c.CardTypeID != want {
				t.Errorf("BIN %s: type %s, want %s", number[:6], c.CardTypeID, want)
			}
		}
	})

	t.Run("validation names every failing field", func(t *testing.T) {
		t.Parallel()
		u := env.NewDiner(t)
		_, err := u.Wallet.InsertCard(t.Context(), wallet.InsertCardRequest{
			ExpiryMonth: 13, ExpiryYear: 30, First6Digits: "41111", Last4Digits: "11a1",
			Nickname: strings.Repeat("n", 51), Save: true,
		})
		want := map[string]string{
			"expiryMonth":    "must be 1 to 12",
			"first6Digits":   "must be 6 digits",
			"last4Digits":    "must be 4 digits",
			"nickname":       "must be at most 50 characters",
			"providerBCse":   "one of providerBCse and providerDToken is required",
			"providerDToken": "one of providerBCse and providerDToken is required",
		}
		if d := cmp.Diff(want, fieldErrors(t, err)); d != "" {
			t.Errorf("field errors (-want +got):\n%s", d)
		}

		// Missing fields are named too.
		var apiErr *client.APIError
		_, err = u.Client.Do(t.Context(), &client.Request{Method: http.MethodPost, Path: "v3/user/me/wallet/card/insert",
			Body: map[string]any{"providerDToken": "x"}, Auth: client.AuthAccessToken}, nil)
		if !errors.As(err, &apiErr) {
			t.Fatal(err)
		}
		for _, f := range []string{"expiryMonth", "expiryYear", "first6Digits", "last4Digits"} {
			if apiErr.FieldErrors()[f] != "required" {
				t.Errorf("%s not reported missing: %v", f, apiErr.FieldErrors())
			}
		}
	})

	t.Run("expired card", func(t *testing.T) {
		t.Parallel()
		u := env.NewDiner(t)
		d := refservertest.Card(visaNumber)
		d.ExpiryYear = (time.Now().UTC().Year() - 1) % 100
		_, err := u.Wallet.TokeniseProviderD(t.Context(), d)
		if fe := fieldErrors(t, err); fe["expiryYear"] != "the card has expired" {
			t.Errorf("provider field errors = %v", fe)
		}
		ins := insertFor(d)
		ins.ProviderDToken = "x"
		_, err = u.Wallet.InsertCard(t.Context(), ins)
		if fe := fieldErrors(t, err); fe["expiryYear"] != "the card has expired" {
			t.Errorf("insert field errors = %v", fe)
		}
	})

	t.Run("body must match the tokenised card", func(t *testing.T) {
		t.Parallel()
		u := env.NewDiner(t)
		d := refservertest.Card(visaNumber)
		cse, err := u.Wallet.ProviderBCSE(t.Context(), d)
		if err != nil {
			t.Fatal(err)
		}
		ins := insertFor(d)
		ins.ProviderBCse = cse
		ins.First6Digits, ins.Last4Digits = "555555", "4444"
		_, err = u.Wallet.InsertCard(t.Context(), ins)
		want := map[string]string{"first6Digits": "does not match the tokenised card", "last4Digits": "does not match the tokenised card"}
		if d := cmp.Diff(want, fieldErrors(t, err)); d != "" {
			t.Errorf("(-want +got):\n%s", d)
		}
		ins = insertFor(d)
		ins.ProviderBCse = "not.a.jwe.at.all"
		_, err = u.Wallet.InsertCard(t.Context(), ins)
		if fe := fieldErrors(t, err); fe["providerBCse"] != "cannot be decrypted with providerB's key" {
			t.Errorf("bad CSE: %v", fe)
		}
	})

	t.Run("card status admin", func(t *testing.T) {
		t.Parallel()
		u := env.NewDiner(t)
		c, err := u.Wallet.AddCard(t.Context(), wallet.AddCardRequest{Card: refservertest.Card(visaNumber), Providers: []wallet.Gateway{wallet.ProviderB}})
		if err != nil {
			t.Fatal(err)
		}
		path := "/sandbox/cards/" + strconv.FormatInt(c.CardID, 10) + "/status"
		var out map[string]any
		if st := env.AdminDo(t, http.MethodPost, path, map[string]any{"cardStatusId": 5}, &out); st != 200 || len(out) != 0 {
			t.Fatalf("set status: %d %v", st, out)
		}
		usr, _ := u.Wallet.GetWallet(t.Context())
		if usr.Wallet[0].CardStatusID != wallet.CardStatusBlockedFraud {
			t.Errorf("status = %s", usr.Wallet[0].CardStatusID)
		}
		if st := env.AdminDo(t, http.MethodPost, path, map[string]any{"cardStatusId": 6}, &out); st != 400 {
			t.Errorf("status 6: HTTP %d", st)
		}
		if st := env.AdminDo(t, http.MethodPost, "/sandbox/cards/999999/status", map[string]any{"cardStatusId": 1}, &out); st != 404 {
			t.Errorf("unknown card: HTTP %d", st)
		}
		resp, err := http.Post(env.URL+path, "application/json", strings.NewReader(`{"cardStatusId":1}`))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 401 {
			t.Errorf("without admin key: HTTP %d", resp.StatusCode)
		}
	})
}
