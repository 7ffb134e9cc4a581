package sim_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hospo-dev/hospo-go/refserver/sim"
	"github.com/hospo-dev/hospo-go/refserver/store"
	"github.com/hospo-dev/hospo-go/wallet"
)

// visa is the card every exchange test tokenises, and claim what a card
// insert says of it.
var (
	visa  = sim.Card{Number: "4111111111111111", CVC: "123", ExpiryMonth: 6, ExpiryYear: 31}
	claim = sim.CardClaim{First6: "411111", Last4: "1111", ExpiryMonth: 6, ExpiryYear: 31}
)

type exchanged struct {
	token string
	bad   map[string]string
}

func TestExchangeProviderBCSE(t *testing.T) {
	t.Parallel()
	db, _ := openDB(t)
	ctx := context.Background()
	key, err := sim.EnsureProviderBKey(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	again, err := sim.EnsureProviderBKey(ctx, db)
	if err != nil || again.KeyID != key.KeyID {
		t.Fatalf("a second EnsureProviderBKey made another key: %v", err)
	}
	cse, err := wallet.EncryptProviderBCSE(wallet.NewJWK(&key.Private.PublicKey, key.KeyID, "enc"),
		wallet.CardDetails{Number: visa.Number, CVC: visa.CVC, ExpiryMonth: 6, ExpiryYear: 2031})
	if err != nil {
		t.Fatal(err)
	}
	exchange := func(key *sim.ProviderBKey, cse string, c sim.CardClaim) exchanged {
		var e exchanged
		write(t, db, func(tx *store.Tx) error {
			var err error
			e.token, e.bad, err = sim.ExchangeProviderBCSE(tx, key, cse, c)
			return err
		})
		return e
	}

	undecryptable := map[string]string{"providerBCse": "cannot be decrypted with providerB's key"}
	if e := exchange(nil, cse, claim); !cmp.Equal(e.bad, undecryptable) {
		t.Errorf("no key yet: %v", e.bad)
	}
	if e := exchange(key, "a.b.c.d.e", claim); !cmp.Equal(e.bad, undecryptable) {
		t.Errorf("garbage: %v", e.bad)
	}
	wrong := claim
	wrong.Last4, wrong.ExpiryYear = "4242", 32
	want := map[string]string{"last4Digits": "does not match the tokenised card", "expiryYear": "does not match the tokenised card"}
	if e := exchange(key, cse, wrong); !cmp.Equal(e.bad, want) {
		t.Errorf("wrong claim: %v", e.bad)
	}

	e := exchange(key, cse, claim)
	if e.bad != nil || e.token == "" {
		t.Fatalf("exchange = %+v", e)
	}
	err = db.Read(ctx, func(tx *store.Tx) error {
		pt, err := tx.GetProviderToken(e.token)
		if pt.Provider != sim.ProviderB || pt.First6 != "411111" || pt.Last4 != "1111" || pt.Decline {
			t.Errorf("provider record %+v", pt)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestProviderDTokeniseThenExchange(t *testing.T) {
	t.Parallel()
	db, clock := openDB(t)
	var user, stranger int64
	write(t, db, func(tx *store.Tx) error {
		var err error
		if user, err = tx.InsertUser(); err != nil {
			return err
		}
		stranger, err = tx.InsertUser()
		return err
	})
	newKey := func() string {
		priv, err := sim.NewRSAKey()
		if err != nil {
			t.Fatal(err)
		}
		kid := sim.NewProviderDKeyID()
		jwk, err := sim.MarshalPrivateJWK(priv, kid)
		if err != nil {
			t.Fatal(err)
		}
		write(t, db, func(tx *store.Tx) error { return sim.StoreProviderDKey(tx, user, kid, jwk) })
		return kid
	}
	tokenise := func(kid string) exchanged {
		var e exchanged
		// A refused tokenisation is rolled back, as the handler does.
		err := db.Write(context.Background(), func(tx *store.Tx) error {
			var err error
			e.token, e.bad, err = sim.TokeniseProviderD(tx, kid, visa, map[string]string{})
			if err == nil && len(e.bad) > 0 {
				err = errRolledBack
			}
			return err
		})
		if err != nil && !errors.Is(err, errRolledBack) {
			t.Fatal(err)
		}
		return e
	}
	exchange := func(userID int64, jwe string) exchanged {
		var e exchanged
		write(t, db, func(tx *store.Tx) error {
			var err error
			e.token, e.bad, err = sim.ExchangeProviderDToken(tx, userID, jwe, claim)
			return err
		})
		return e
	}

	kid := newKey()
	if e := exchange(user, "a.b.c.d.e"); e.bad["providerDToken"] == "" {
		t.Errorf("garbage token: %v", e.bad)
	}
	tok := tokenise(kid)
	if tok.bad != nil || tok.token == "" {
		t.Fatalf("tokenise = %+v", tok)
	}
	if e := tokenise(kid); !cmp.Equal(e.bad, map[string]string{"keyId": "key already used"}) {
		t.Errorf("second tokenise: %v", e.bad)
	}
	if e := tokenise("pdk_unknown"); !cmp.Equal(e.bad, map[string]string{"keyId": "unknown key"}) {
		t.Errorf("unknown key: %v", e.bad)
	}
	if e := exchange(stranger, tok.token); e.bad["providerDToken"] == "" {
		t.Errorf("another user's key: %v", e.bad)
	}
	got := exchange(user, tok.token)
	if got.bad != nil || got.token == "" {
		t.Fatalf("exchange = %+v", got)
	}
	if e := exchange(user, tok.token); !cmp.Equal(e.bad, map[string]string{"keyId": "key already used"}) {
		t.Errorf("second exchange: %v", e.bad)
	}

	late := newKey()
	clock.Advance(sim.ProviderDKeyLifetime + time.Second)
	if e := tokenise(late); !cmp.Equal(e.bad, map[string]string{"keyId": "key expired"}) {
		t.Errorf("expired key: %v", e.bad)
	}
}

var errRolledBack = errors.New("rolled back")
