package wallet_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/refserver/refservertest"
	"github.com/hospo-dev/hospo-go/wallet"
)

func TestE2EProviderDKeys(t *testing.T) {
	t.Parallel()
	env := refservertest.Start(t)
	hc := env.HTTPSClient()

	t.Run("key descriptor", func(t *testing.T) {
		t.Parallel()
		u := env.NewDiner(t)
		k, err := u.Wallet.ProviderDKeys(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if k.TokenisationURI != env.TLSURL+"/sandbox/providerD/tokenise" {
			t.Errorf("tokenisationUri = %q", k.TokenisationURI)
		}
		if k.Key.KeyID == "" || k.Key.JWK.Kid != k.Key.KeyID || k.Key.JWK.Use != "enc" {
			t.Errorf("key = %+v", k.Key)
		}
		if _, err := k.Key.JWK.RSAPublicKey(); err != nil {
			t.Errorf("jwk: %v", err)
		}
	})

	t.Run("a key serves one token", func(t *testing.T) {
		t.Parallel()
		u := env.NewDiner(t)
		k, err := u.Wallet.ProviderDKeys(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		d := refservertest.Card(visaNumber)
		st, body := tokenise(t, hc, k.TokenisationURI, k.Key.KeyID, d)
		if st != 200 || body["token"] == "" {
			t.Fatalf("first tokenisation: %d %v", st, body)
		}
		st, body = tokenise(t, hc, k.TokenisationURI, k.Key.KeyID, d)
		if st != 400 || contextData(body)["keyId"] != "key already used" {
			t.Errorf("second tokenisation: %d %v", st, body)
		}
	})

	t.Run("a token is stored once", func(t *testing.T) {
		t.Parallel()
		u := env.NewDiner(t)
		d := refservertest.Card(visaNumber)
		tok, err := u.Wallet.TokeniseProviderD(t.Context(), d)
		if err != nil {
			t.Fatal(err)
		}
		ins := insertFor(d)
		ins.ProviderDToken = tok
		if _, err := u.Wallet.InsertCard(t.Context(), ins); err != nil {
			t.Fatalf("first insert: %v", err)
		}
		_, err = u.Wallet.InsertCard(t.Context(), ins)
		if d := cmp.Diff(map[string]string{"keyId": "key already used"}, fieldErrors(t, err)); d != "" {
			t.Errorf("second insert (-want +got):\n%s", d)
		}
		// Another user cannot use someone else's token either.
		other := env.NewDiner(t)
		tok2, err := u.Wallet.TokeniseProviderD(t.Context(), d)
		if err != nil {
			t.Fatal(err)
		}
		ins.ProviderDToken = tok2
		_, err = other.Wallet.InsertCard(t.Context(), ins)
		if fe := fieldErrors(t, err); fe["providerDToken"] == "" {
			t.Errorf("another user's token: %v", fe)
		}
	})

	t.Run("a failed insert does not consume the key", func(t *testing.T) {
		t.Parallel()
		u := env.NewDiner(t)
		d := refservertest.Card(visaNumber)
		tok, err := u.Wallet.TokeniseProviderD(t.Context(), d)
		if err != nil {
			t.Fatal(err)
		}
		ins := insertFor(d)
		ins.ProviderDToken = tok
		ins.Nickname = strings.Repeat("x", 60)
		if _, err := u.Wallet.InsertCard(t.Context(), ins); !errors.Is(err, client.ErrValidation) {
			t.Fatalf("err = %v", err)
		}
		ins.Nickname = "ok"
		if _, err := u.Wallet.InsertCard(t.Context(), ins); err != nil {
			t.Fatalf("corrected insert: %v", err)
		}
	})

	t.Run("the provider checks the card", func(t *testing.T) {
		t.Parallel()
		u := env.NewDiner(t)
		k, err := u.Wallet.ProviderDKeys(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		d := refservertest.Card(visaNumber)
		d.Number = "4111111111111112" // fails Luhn
		d.CVC = "12"
		st, body := tokenise(t, hc, k.TokenisationURI, k.Key.KeyID, d)
		want := map[string]string{"number": "fails the Luhn check", "cvc": "must be 3 or 4 digits"}
		if st != 400 || body["code"] != float64(client.CodeValidation) || !cmp.Equal(want, contextData(body)) {
			t.Errorf("tokenise: %d %v", st, body)
		}
		if strings.Contains(strings.ToLower(mustJSON(body)), "4111111111111112") {
			t.Error("error echoes the card number")
		}
		// The key was not spent on a refused card.
		if st, body := tokenise(t, hc, k.TokenisationURI, k.Key.KeyID, refservertest.Card(visaNumber)); st != 200 {
			t.Errorf("valid card after a refused one: %d %v", st, body)
		}
		if st, body := tokenise(t, hc, k.TokenisationURI, "pdk_unknown", refservertest.Card(visaNumber)); st != 400 || contextData(body)["keyId"] != "unknown key" {
			t.Errorf("unknown key: %d %v", st, body)
		}
	})

	t.Run("plain HTTP is refused", func(t *testing.T) {
		t.Parallel()
		u := env.NewDiner(t)
		k, err := u.Wallet.ProviderDKeys(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		st, body := tokenise(t, http.DefaultClient, env.URL+"/sandbox/providerD/tokenise", k.Key.KeyID, refservertest.Card(visaNumber))
		if st != 403 || body["code"] != float64(client.CodeForbidden) {
			t.Errorf("over http: %d %v", st, body)
		}
	})

	t.Run("without the sandbox CA the call fails", func(t *testing.T) {
		t.Parallel()
		_, tok := env.NewUser(t)
		w := wallet.NewService(env.Client(t, client.WithAccessToken(tok))) // system roots only
		if _, err := w.TokeniseProviderD(t.Context(), refservertest.Card(visaNumber)); err == nil {
			t.Fatal("tokenised against an untrusted certificate")
		}
	})
}

// Key expiry moves the virtual clock, so it has a server of its own.
func TestE2EProviderDKeyExpiry(t *testing.T) {
	t.Parallel()
	env := refservertest.Start(t)
	hc := env.HTTPSClient()
	u := env.NewDiner(t)
	d := refservertest.Card(visaNumber)

	// A key not used within 15 minutes is refused by the provider.
	k1, err := u.Wallet.ProviderDKeys(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	// A token made in time but inserted too late is refused at insert.
	tok, err := u.Wallet.TokeniseProviderD(t.Context(), d)
	if err != nil {
		t.Fatal(err)
	}
	env.AdvanceClock(t, 14*time.Minute)
	k2, err := u.Wallet.ProviderDKeys(t.Context()) // fresh: still good after the next advance
	if err != nil {
		t.Fatal(err)
	}
	env.AdvanceClock(t, 2*time.Minute)

	if st, body := tokenise(t, hc, k1.TokenisationURI, k1.Key.KeyID, d); st != 400 || contextData(body)["keyId"] != "key expired" {
		t.Errorf("expired key at the provider: %d %v", st, body)
	}
	ins := insertFor(d)
	ins.ProviderDToken = tok
	_, err = u.Wallet.InsertCard(t.Context(), ins)
	if diff := cmp.Diff(map[string]string{"keyId": "key expired"}, fieldErrors(t, err)); diff != "" {
		t.Errorf("expired key at insert (-want +got):\n%s", diff)
	}
	if st, body := tokenise(t, hc, k2.TokenisationURI, k2.Key.KeyID, d); st != 200 {
		t.Errorf("key two minutes old: %d %v", st, body)
	}
}

// An environment whose tokenisationUri is plain http: the SDK refuses to
// send the card there.
func TestE2EInsecureTokenisationURI(t *testing.T) {
	t.Parallel()
	env := refservertest.Start(t, func(cfg *refservertest.Options) {
		cfg.TLSURL = cfg.BaseURL // the plain listener
	})
	u := env.NewDiner(t)
	k, err := u.Wallet.ProviderDKeys(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(k.TokenisationURI, "http://") {
		t.Fatalf("tokenisationUri = %q, want an http URL for this test", k.TokenisationURI)
	}
	_, err = u.Wallet.TokeniseProviderD(t.Context(), refservertest.Card(visaNumber))
	if !errors.Is(err, wallet.ErrInsecureTokenisationURI) {
		t.Fatalf("err = %v, want ErrInsecureTokenisationURI", err)
	}
	_, err = u.Wallet.AddCard(t.Context(), wallet.AddCardRequest{Card: refservertest.Card(visaNumber), Providers: []wallet.Gateway{wallet.ProviderD}})
	if !errors.Is(err, wallet.ErrInsecureTokenisationURI) {
		t.Fatalf("AddCard err = %v", err)
	}
	usr, err := u.Wallet.GetWallet(t.Context())
	if err != nil || len(usr.Wallet) != 0 {
		t.Errorf("wallet after refusals: %v, %v", usr.Wallet, err)
	}
}
