package contract

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/wallet"
)

// cardShape is a wallet entry (interface 2.2).
var cardShape = shape{
	"cardId": "int", "last4Digits": "string", "nickname": "string", "cardTypeId": "string",
	"cardStatusId": "int", "default": "bool", "expiryMonth": "string", "expiryYear": "string",
	"gateways": "object", "gateways.providerA": "bool", "gateways.providerB": "bool",
	"gateways.providerC": "bool", "gateways.providerD": "bool", "gateways.providerE": "bool",
}

// userShape is the user of GET /v1/user/me?scope=wallet (interface 2.3).
var userShape = with(requestInfoShape, under("user", shape{
	"userId": "int", "userStatus": "int", "dateCreated": "int", "lastUpdated": "int", "defaultCardId": "int",
}), under("user.wallet[]", cardShape))

// locationShape is a location's details (contract section 5).
var locationShape = shape{
	"locationId": "int", "name": "string", "locationPaymentDetails": "object",
	"locationPaymentDetails.gateway": "string", "posStatus": "string", "lastHeartbeat": "int|null",
}

// Test cards of the sandbox (contract sections 6 and 9).
const (
	testCard     = "4111111111111111" // any Luhn-valid number tokenises
	declinedCard = "4000000000000002" // tokenises; every payment is 402001
)

// cardDetails is a test card that expires in three years.
func cardDetails(number string) wallet.CardDetails {
	return wallet.CardDetails{Number: number, CVC: "739", ExpiryMonth: 7,
		ExpiryYear: (time.Now().UTC().Year() + 3) % 100, HolderName: "Contract Check"}
}

// addCard tokenises a test card for gateways and adds it to a's wallet.
func (t *T) addCard(a *actor, number string, gateways ...wallet.Gateway) wallet.Card {
	c, err := a.Wallet.AddCard(t.ctx, wallet.AddCardRequest{Card: cardDetails(number), Providers: gateways, Nickname: "contract"})
	t.ok(err, fmt.Sprintf("add a card for %v", gateways))
	return c
}

// findCard returns the entry of cards with id, ending the check without one.
func (t *T) findCard(cards []wallet.Card, id int64) wallet.Card {
	for _, c := range cards {
		if c.CardID == id {
			return c
		}
	}
	t.Fatalf("wallet: no entry with cardId %d", id)
	return wallet.Card{}
}

// insertCheck is the shape of a card insert check: add a card for
// gateways to a new user's wallet and check the answer and the wallet.
func insertCheck(gateways ...wallet.Gateway) func(t *T) {
	return func(t *T) {
		a := t.newUser()
		card := t.addCard(a, testCard, gateways...)
		t.status(http.StatusOK)
		t.shape(with(requestInfoShape, under("wallet[]", cardShape)))
		t.requestInfo(3, "authenticated")
		for _, g := range []wallet.Gateway{wallet.ProviderA, wallet.ProviderB, wallet.ProviderC, wallet.ProviderD, wallet.ProviderE} {
			want := slices.Contains(gateways, g)
			t.equal("wallet[cardId="+fmt.Sprint(card.CardID)+"].gateways."+string(g), card.Gateways.Has(g), want)
		}
		t.equal("last4Digits", card.Last4Digits, testCard[len(testCard)-4:])
		t.equal("cardStatusId", card.CardStatusID, wallet.CardStatusLive)
		u, err := a.Wallet.GetWallet(t.ctx)
		t.ok(err, "get the wallet")
		t.equal("user.wallet entries", len(u.Wallet), 1)
		t.findCard(u.Wallet, card.CardID)
	}
}

// walletChecks cover interface 4.1 to 4.3.
var walletChecks = []Check{
	{
		Name: "wallet/get", Endpoint: "GET /v1/user/me",
		Rule:  "scope=wallet answers { user, requestInfo } with every member of interface 2.3, apiVersion 1 and accessTokenStatus authenticated",
		Needs: NeedsUser,
		Run: func(t *T) {
			_, err := t.user().Wallet.GetWallet(t.ctx)
			t.ok(err, "get the wallet")
			t.status(http.StatusOK)
			t.shape(userShape)
			t.requestInfo(1, "authenticated")
		},
	},
	{
		Name: "wallet/provider-d-key", Endpoint: "GET /v2/payment/providerD/keys",
		Rule:  "the key descriptor has key.keyId, a JWK with string kty, use, kid, n and e, an https tokenisationUri, and apiVersion 2",
		Needs: NeedsUser,
		Run: func(t *T) {
			k, err := t.user().Wallet.ProviderDKeys(t.ctx)
			t.ok(err, "get a providerD key")
			t.shape(with(requestInfoShape, shape{
				"key.keyId": "string", "key.jwk": "object", "key.jwk.kty": "string", "key.jwk.use": "string",
				"key.jwk.kid": "string", "key.jwk.n": "string", "key.jwk.e": "string", "tokenisationUri": "string",
			}))
			t.requestInfo(2, "authenticated")
			if !strings.HasPrefix(k.TokenisationURI, "https://") {
				t.Errorf("tokenisationUri: got %q, want an https URL", k.TokenisationURI)
			}
		},
	},
	{
		Name: "wallet/insert-provider-b", Endpoint: "POST /v3/user/me/wallet/card/insert",
		Rule:  "a providerB CSE insert answers 200 { wallet, requestInfo } (apiVersion 3) with the new card, its providerB flag true",
		Needs: NeedsSandbox | WritesData,
		Run:   insertCheck(wallet.ProviderB),
	},
	{
		Name: "wallet/insert-provider-d", Endpoint: "GET /v2/payment/providerD/keys, POST /v3/user/me/wallet/card/insert",
		Rule:  "a providerD token from the key's tokenisationUri inserts the card with its providerD flag true",
		Needs: NeedsSandbox | WritesData,
		Run:   insertCheck(wallet.ProviderD),
	},
	{
		Name: "wallet/insert-both", Endpoint: "POST /v3/user/me/wallet/card/insert",
		Rule:  "both tokens in one insert make one entry with both flags true",
		Needs: NeedsSandbox | WritesData,
		Run:   insertCheck(wallet.ProviderB, wallet.ProviderD),
	},
	{
		Name: "wallet/entry-per-tokenisation", Endpoint: "POST /v3/user/me/wallet/card/insert",
		Rule:  "the same card tokenised for two providers at different times is two wallet entries",
		Needs: NeedsSandbox | WritesData,
		Run: func(t *T) {
			a := t.newUser()
			b := t.addCard(a, testCard, wallet.ProviderB)
			d := t.addCard(a, testCard, wallet.ProviderD)
			u, err := a.Wallet.GetWallet(t.ctx)
			t.ok(err, "get the wallet")
			t.equal("user.wallet entries", len(u.Wallet), 2)
			t.equal("providerB entry's gateways.providerD", t.findCard(u.Wallet, b.CardID).Gateways.ProviderD, false)
			t.equal("providerD entry's gateways.providerB", t.findCard(u.Wallet, d.CardID).Gateways.ProviderB, false)
			t.equal("user.defaultCardId", u.DefaultCardID, b.CardID)
		},
	},
	{
		Name: "wallet/insert-validation", Endpoint: "POST /v3/user/me/wallet/card/insert",
		Rule:  "an insert with a bad expiryMonth and no token is 400002 naming each failing field",
		Needs: NeedsSandbox | WritesData,
		Run: func(t *T) {
			a := t.newUser()
			t.rawFields(rawRequest{Method: http.MethodPost, Path: "/v3/user/me/wallet/card/insert", AccessToken: a.Token,
				Body: []byte(`{"expiryMonth":13,"expiryYear":29,"first6Digits":"411111","last4Digits":"1111","nickname":"","save":true,"default":false}`)},
				"expiryMonth")
		},
	},
	{
		Name: "wallet/provider-d-token-single-use", Endpoint: "POST /v3/user/me/wallet/card/insert",
		Rule:  "a providerD token already consumed by an insert is 400002 naming keyId",
		Needs: NeedsSandbox | WritesData,
		Run: func(t *T) {
			a := t.newUser()
			card := cardDetails(testCard)
			tok, err := a.Wallet.TokeniseProviderD(t.ctx, card)
			t.ok(err, "tokenise at providerD")
			req := wallet.InsertCardRequest{ExpiryMonth: card.ExpiryMonth, ExpiryYear: card.ExpiryYear,
				First6Digits: testCard[:6], Last4Digits: testCard[12:], Save: true, ProviderDToken: tok}
			_, err = a.Wallet.InsertCard(t.ctx, req)
			t.ok(err, "insert the card")
			_, err = a.Wallet.InsertCard(t.ctx, req)
			t.wantFields(err, "keyId")
		},
	},
}

// locationChecks cover interface 4.4 and the kiosk menu.
var locationChecks = []Check{
	{
		Name: "location/details", Endpoint: "GET /v1/location/{id}",
		Rule:  "a location's details name its gateway in locationPaymentDetails, its posStatus and lastHeartbeat, with apiVersion 1",
		Needs: NeedsLocation,
		Run: func(t *T) {
			v := t.venue()
			loc, err := wallet.NewService(t.sdk()).GetLocation(t.ctx, v.ID)
			t.ok(err, "get the location")
			t.shape(with(requestInfoShape, under("location", locationShape)))
			t.requestInfo(1, "")
			t.equal("location.locationId", loc.LocationID, v.ID)
			if v.Gateway != "" {
				t.equal("location.locationPaymentDetails.gateway", loc.LocationPaymentDetails.Gateway, v.Gateway)
				t.equal("location.posStatus", loc.POSStatus, wallet.POSStatusOnline)
			}
		},
	},
	{
		Name: "location/unknown", Endpoint: "GET /v1/location/{id}",
		Rule: "an unknown location is 404001",
		Run: func(t *T) {
			_, err := wallet.NewService(t.sdk()).GetLocation(t.ctx, unknownID)
			t.wantError(err, client.CodeNotFound)
		},
	},
	{
		Name: "location/menu", Endpoint: "GET /v2/location/{id}/menu",
		Rule:  "a location's menu answers { menus, syncedAt, requestInfo } in the universal format, apiVersion 2",
		Needs: NeedsLocation,
		Run: func(t *T) {
			id := t.venue().ID
			if !t.w.mode.careful {
				id = t.demoLocation()
			}
			_, err := t.menus().Menu(t.ctx, id)
			t.ok(err, "get the menu")
			t.shape(with(requestInfoShape, shape{"menus": "array", "syncedAt": "int|null"},
				under("menus[]", shape{"reference": "string", "name": "string", "type": "string", "categories": "array", "deals": "array"}),
				under("menus[].categories[]", shape{"reference": "string", "name": "string", "items": "array"}),
				under("menus[].categories[].items[]", shape{"plu": "string", "name": "string", "price": "money",
					"available": "bool", "modifiers": "array"})))
			t.requestInfo(2, "")
		},
	},
}

// unknownID is an id no test service has handed out.
const unknownID = 987654321
