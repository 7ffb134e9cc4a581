package sim_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hospo-dev/hospo-go/refserver/sim"
	"github.com/hospo-dev/hospo-go/wallet"
)

var june2030 = time.Date(2030, time.June, 15, 12, 0, 0, 0, time.UTC)

func TestCardProblems(t *testing.T) {
	t.Parallel()
	good := sim.Card{Number: "4111111111111111", CVC: "123", ExpiryMonth: 6, ExpiryYear: 30}
	tests := []struct {
		name string
		mod  func(*sim.Card)
		want map[string]string
	}{
		{"good, expiring this month", func(*sim.Card) {}, nil},
		{"decline card is valid", func(c *sim.Card) { c.Number = sim.DeclineCardNumber }, nil},
		{"luhn", func(c *sim.Card) { c.Number = "4111111111111112" }, map[string]string{"number": "fails the Luhn check"}},
		{"letters", func(c *sim.Card) { c.Number = "4111-1111-1111-1111" }, map[string]string{"number": "must be 12 to 19 digits"}},
		{"short", func(c *sim.Card) { c.Number = "42" }, map[string]string{"number": "must be 12 to 19 digits"}},
		{"cvc", func(c *sim.Card) { c.CVC = "12" }, map[string]string{"cvc": "must be 3 or 4 digits"}},
		{"expired last month", func(c *sim.Card) { c.ExpiryMonth = 5 }, map[string]string{"expiryYear": "the card has expired"}},
		{"expired last year", func(c *sim.Card) { c.ExpiryMonth, c.ExpiryYear = 12, 29 }, map[string]string{"expiryYear": "the card has expired"}},
		{"month and year", func(c *sim.Card) { c.ExpiryMonth, c.ExpiryYear = 13, 2031 }, map[string]string{
			"expiryMonth": "must be 1 to 12", "expiryYear": "must be a two-digit year (0 to 99)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := good
			tt.mod(&c)
			if d := cmp.Diff(tt.want, c.Problems(june2030)); d != "" {
				t.Errorf("Problems (-want +got):\n%s", d)
			}
		})
	}
}

func TestCardFormatMasks(t *testing.T) {
	t.Parallel()
	c := sim.Card{Number: "4111111111111111", CVC: "987", ExpiryMonth: 6, ExpiryYear: 30}
	out := fmt.Sprintf("%v %+v %#v %s %d %x", c, c, c, c, c, c)
	if strings.Contains(out, "4111111111111111") || strings.Contains(out, "987") {
		t.Errorf("card data in %q", out)
	}
}

func TestProviderBRoundTrip(t *testing.T) {
	t.Parallel()
	priv, err := sim.NewRSAKey()
	if err != nil {
		t.Fatal(err)
	}
	jwk, err := sim.MarshalPrivateJWK(priv, "pb-1")
	if err != nil {
		t.Fatal(err)
	}
	back, kid, err := sim.ParsePrivateJWK(jwk)
	if err != nil || kid != "pb-1" || !back.Equal(priv) {
		t.Fatalf("ParsePrivateJWK: %v, kid %q", err, kid)
	}

	// What the SDK encrypts, the sandbox decrypts.
	details := wallet.CardDetails{Number: "5555555555554444", CVC: "321", ExpiryMonth: 3, ExpiryYear: 2031, HolderName: "A Diner"}
	cse, err := wallet.EncryptProviderBCSE(wallet.NewJWK(&priv.PublicKey, "pb-1", "enc"), details)
	if err != nil {
		t.Fatal(err)
	}
	if kid, err := sim.JWEKeyID(cse); err != nil || kid != "pb-1" {
		t.Errorf("JWEKeyID = %q, %v", kid, err)
	}
	card, err := sim.DecryptCard(back, cse)
	if err != nil {
		t.Fatalf("DecryptCard: %v", err)
	}
	want := sim.Card{Number: "5555555555554444", CVC: "321", ExpiryMonth: 3, ExpiryYear: 31, HolderName: "A Diner"}
	if card != want {
		t.Error("decrypted card differs from the one encrypted")
	}

	other, _ := sim.NewRSAKey()
	for name, bad := range map[string]string{
		"other key": "", "garbage": "a.b.c.d.e", "empty": "", "not compact": "{}",
	} {
		key := priv
		in := bad
		if name == "other key" {
			key, in = other, cse
		}
		if _, err := sim.DecryptCard(key, in); !errors.Is(err, sim.ErrBadJWE) {
			t.Errorf("%s: err = %v, want ErrBadJWE", name, err)
		}
	}
}

func TestJWERoundTrip(t *testing.T) {
	t.Parallel()
	priv, err := sim.NewRSAKey()
	if err != nil {
		t.Fatal(err)
	}
	jwe, err := sim.EncryptJWE(&priv.PublicKey, "k", []byte("providerD_tok_x"))
	if err != nil {
		t.Fatal(err)
	}
	plain, err := sim.DecryptJWE(priv, jwe)
	if err != nil || string(plain) != "providerD_tok_x" {
		t.Fatalf("DecryptJWE = %q, %v", plain, err)
	}
}

func TestTokensAndIDs(t *testing.T) {
	t.Parallel()
	a, b := sim.NewProviderToken(sim.ProviderB), sim.NewProviderToken(sim.ProviderB)
	if a == b || !strings.HasPrefix(a, "providerB_tok_") {
		t.Errorf("tokens %q %q", a, b)
	}
	if k := sim.NewProviderDKeyID(); !strings.HasPrefix(k, "pdk_") || len(k) != 36 {
		t.Errorf("key id %q", k)
	}
}
