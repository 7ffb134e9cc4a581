package wallet

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/go-jose/go-jose/v4"
	"github.com/google/go-cmp/cmp"

	"github.com/hospo-dev/hospo-go/internal/sdktest"
)

func TestProviderBCSE(t *testing.T) {
	t.Parallel()
	priv, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	jwk, _ := json.Marshal(NewJWK(&priv.PublicKey, "pb-1", "enc"))
	s, m := newMockService(t)
	rec := m.Reply(http.MethodGet, "sandbox/providerB/public-key", 200, `{"jwk":`+string(jwk)+`}`)

	cse, err := s.ProviderBCSE(context.Background(), testCard)
	if err != nil {
		t.Fatalf("ProviderBCSE: %v", err)
	}
	c := rec.Last(t)
	sdktest.TestPath(t, c, http.MethodGet, "/prefix/sandbox/providerB/public-key")
	if len(c.Query) != 0 {
		t.Errorf("public key request carries a query: %v", c.Query)
	}
	if strings.Contains(cse, testNumber) || strings.Count(cse, ".") != 4 {
		t.Fatalf("not a JWE compact serialisation: %s", cse)
	}
	obj, err := jose.ParseEncrypted(cse, []jose.KeyAlgorithm{jose.RSA_OAEP_256}, []jose.ContentEncryption{jose.A256GCM})
	if err != nil {
		t.Fatalf("ParseEncrypted: %v", err)
	}
	if obj.Header.KeyID != "pb-1" {
		t.Errorf("kid = %q", obj.Header.KeyID)
	}
	plain, err := obj.Decrypt(priv)
	if err != nil {
		t.Fatalf("Decrypt: %v", err)
	}
	var got map[string]any
	if err := json.Unmarshal(plain, &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"number": testNumber, "expiryMonth": 4.0, "expiryYear": 31.0, "cvc": "987", "holderName": "A Diner"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("plaintext (-want +got):\n%s", d)
	}
}

func TestEncryptProviderBCSERefusesBadKey(t *testing.T) {
	t.Parallel()
	if _, err := EncryptProviderBCSE(JWK{Kty: "RSA", N: "AQAB", E: "AQAB"}, testCard); err == nil {
		t.Fatal("encrypted to a 17-bit key")
	}
}
