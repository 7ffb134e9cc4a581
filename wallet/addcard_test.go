package wallet

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"errors"
	"net/http"
	"testing"

	"github.com/jarcoal/httpmock"

	"github.com/hospo-dev/hospo-go/client"
)

// mockProviders registers the providerB public key, providerD key and
// providerD tokenisation responders.
func mockProviders(t *testing.T, mt *httpmock.MockTransport, keys, prov, pubkey *recorder) {
	t.Helper()
	priv, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	jwk, _ := json.Marshal(NewJWK(&priv.PublicKey, "pb-1", "enc"))
	mt.RegisterResponder(http.MethodGet, testBase+"sandbox/providerB/public-key", pubkey.respond(t, 200, `{"jwk":`+string(jwk)+`}`))
	mt.RegisterResponder(http.MethodGet, testBase+"v2/payment/providerD/keys", keys.respond(t, 200, keyJSON(providerURL)))
	mt.RegisterResponder(http.MethodPost, providerURL, prov.respond(t, 200, `{"token":"pd-jwe"}`))
}

func TestAddCardBothProviders(t *testing.T) {
	t.Parallel()
	s, mt := newMockService(t)
	var keys, prov, pubkey, ins recorder
	mockProviders(t, mt, &keys, &prov, &pubkey)
	mt.RegisterResponder(http.MethodPost, testBase+"v3/user/me/wallet/card/insert", ins.respond(t, 200, `{"wallet":[
		{"cardId":4,"last4Digits":"1111","nickname":"n","cardTypeId":"1","cardStatusId":1,"default":false,"expiryMonth":"04","expiryYear":"31","gateways":{"providerB":true,"providerD":true}},
		{"cardId":3,"last4Digits":"1111","nickname":"n","cardTypeId":"1","cardStatusId":1,"default":true,"expiryMonth":"04","expiryYear":"31","gateways":{"providerB":true}},
		{"cardId":5,"last4Digits":"9999","nickname":"other","cardTypeId":"1","cardStatusId":1,"default":false,"expiryMonth":"04","expiryYear":"31","gateways":{"providerB":true,"providerD":true}}
	],`+requestInfoJSON+`}`))

	card, err := s.AddCard(context.Background(), AddCardRequest{
		Card: testCard, Providers: []Gateway{ProviderB, ProviderD, ProviderB}, Nickname: "n", Default: true,
	})
	if err != nil {
		t.Fatalf("AddCard: %v", err)
	}
	if card.CardID != 4 {
		t.Errorf("AddCard returned card %d, want 4 (the entry with this card and both flags)", card.CardID)
	}
	if len(ins.all()) != 1 || len(prov.all()) != 1 || len(pubkey.all()) != 1 {
		t.Fatalf("calls: insert %d, providerD %d, providerB key %d; want 1 each", len(ins.all()), len(prov.all()), len(pubkey.all()))
	}
	c := ins.last(t)
	if c.Body["providerDToken"] != "pd-jwe" || c.Body["providerBCse"] == nil || c.Body["save"] != true ||
		c.Body["default"] != true || c.Body["first6Digits"] != "411111" || c.Body["last4Digits"] != "1111" ||
		c.Body["expiryYear"] != 31.0 || c.Body["expiryMonth"] != 4.0 || c.Body["nickname"] != "n" {
		t.Errorf("insert body = %v", c.Body)
	}
	if _, ok := c.Body["number"]; ok {
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
			s, mt := newMockService(t)
			_, err := s.AddCard(context.Background(), tt.req)
			if err == nil || (tt.want != nil && !errors.Is(err, tt.want)) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
			if n := mt.GetTotalCallCount(); n != 0 {
				t.Errorf("%d requests sent", n)
			}
		})
	}
}
