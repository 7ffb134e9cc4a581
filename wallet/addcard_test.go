package wallet

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"errors"
	"net/http"
	"testing"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/internal/sdktest"
)

// mockProviders registers the providerB public key, providerD key and
// providerD tokenisation responders and returns their records.
func mockProviders(t *testing.T, m *sdktest.Mock) (keys, prov, pubkey *sdktest.Recorder) {
	t.Helper()
	priv, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	jwk, _ := json.Marshal(NewJWK(&priv.PublicKey, "pb-1", "enc"))
	pubkey = m.Reply(http.MethodGet, "sandbox/providerB/public-key", 200, `{"jwk":`+string(jwk)+`}`)
	keys = m.Reply(http.MethodGet, "v2/payment/providerD/keys", 200, keyJSON(providerURL))
	prov = m.Reply(http.MethodPost, providerURL, 200, `{"token":"pd-jwe"}`)
	return keys, prov, pubkey
}

func TestAddCardBothProviders(t *testing.T) {
	t.Parallel()
	s, m := newMockService(t)
	_, prov, pubkey := mockProviders(t, m)
	ins := m.Reply(http.MethodPost, "v3/user/me/wallet/card/insert", 200, `{"wallet":[
		{"cardId":4,"last4Digits":"1111","nickname":"n","cardTypeId":"1","cardStatusId":1,"default":false,"expiryMonth":"04","expiryYear":"31","gateways":{"providerB":true,"providerD":true}},
		{"cardId":3,"last4Digits":"1111","nickname":"n","cardTypeId":"1","cardStatusId":1,"default":true,"expiryMonth":"04","expiryYear":"31","gateways":{"providerB":true}},
		{"cardId":5,"last4Digits":"9999","nickname":"other","cardTypeId":"1","cardStatusId":1,"default":false,"expiryMonth":"04","expiryYear":"31","gateways":{"providerB":true,"providerD":true}}
	],`+requestInfoJSON+`}`)

	card, err := s.AddCard(context.Background(), AddCardRequest{
		Card: testCard, Providers: []Gateway{ProviderB, ProviderD, ProviderB}, Nickname: "n", Default: true,
	})
	if err != nil {
		t.Fatalf("AddCard: %v", err)
	}
	if card.CardID != 4 {
		t.Errorf("AddCard returned card %d, want 4 (the entry with this card and both flags)", card.CardID)
	}
	if ins.Count() != 1 || prov.Count() != 1 || pubkey.Count() != 1 {
		t.Fatalf("calls: insert %d, providerD %d, providerB key %d; want 1 each", ins.Count(), prov.Count(), pubkey.Count())
	}
	body := ins.Last(t).Object(t)
	if body["providerDToken"] != "pd-jwe" || body["providerBCse"] == nil || body["save"] != true ||
		body["default"] != true || body["first6Digits"] != "411111" || body["last4Digits"] != "1111" ||
		body["expiryYear"] != 31.0 || body["expiryMonth"] != 4.0 || body["nickname"] != "n" {
		t.Errorf("insert body = %v", body)
	}
	if _, ok := body["number"]; ok {
		t.Error("card number sent to the service")
	}
}

func TestAddCardErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		req  AddCardRequest
		want error
	}{
		{"no provider", AddCardRequest{Card: testCard}, nil},
		{"unsupported", AddCardRequest{Card: testCard, Providers: []Gateway{ProviderB, ProviderA}}, ErrUnsupportedGateway},
		{"invalid card", AddCardRequest{Card: CardDetails{Number: "1"}, Providers: []Gateway{ProviderB}}, client.ErrValidation},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, m := newMockService(t)
			_, err := s.AddCard(context.Background(), tt.req)
			if err == nil || (tt.want != nil && !errors.Is(err, tt.want)) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
			if n := m.Calls(); n != 0 {
				t.Errorf("%d requests sent", n)
			}
		})
	}
}
