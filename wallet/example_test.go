package wallet_test

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/wallet"
)

// providerBKey is the fake's providerB key pair, made once.
var providerBKey = sync.OnceValue(func() *rsa.PrivateKey {
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		panic(err)
	}
	return k
})

// fakeAPI is a tiny in-memory stand-in for the service and the providerD
// sandbox, enough to run the examples without a server. Real programs talk
// to the service (or to the reference server, go run ./refserver/cmd/refserver).
type fakeAPI struct {
	mu    sync.Mutex
	srv   *httptest.Server
	cards []wallet.Card
}

func newFakeAPI() *fakeAPI {
	f := &fakeAPI{}
	mux := http.NewServeMux()
	info := client.RequestInfo{AccessTokenStatus: "authenticated", APIVersion: 1}
	reply := func(w http.ResponseWriter, status int, v any) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(v)
	}
	fail := func(w http.ResponseWriter, code client.Code) {
		reply(w, code.HTTPStatus(), map[string]any{"error": true, "code": code, "message": code.Message(),
			"contextData": nil, "displayString": nil, "requestInfo": client.RequestInfo{}})
	}
	mux.HandleFunc("GET /v2/payment/providerD/keys", func(w http.ResponseWriter, r *http.Request) {
		reply(w, 200, map[string]any{"key": wallet.ProviderDKeyInfo{KeyID: "key-1"},
			"tokenisationUri": f.srv.URL + "/tokenise", "requestInfo": info})
	})
	mux.HandleFunc("GET /sandbox/providerB/public-key", func(w http.ResponseWriter, r *http.Request) {
		reply(w, 200, wallet.ProviderBKeyResponse{JWK: wallet.NewJWK(&providerBKey().PublicKey, "providerB-1", "enc")})
	})
	mux.HandleFunc("POST /tokenise", func(w http.ResponseWriter, r *http.Request) {
		reply(w, 200, wallet.ProviderDTokenResponse{Token: "providerD-token"})
	})
	mux.HandleFunc("POST /v3/user/me/wallet/card/insert", func(w http.ResponseWriter, r *http.Request) {
		var in wallet.InsertCardRequest
		_ = json.NewDecoder(r.Body).Decode(&in)
		f.mu.Lock()
		defer f.mu.Unlock()
		c := wallet.Card{CardID: int64(len(f.cards) + 1), Last4Digits: in.Last4Digits, Nickname: in.Nickname,
			CardTypeID: wallet.CardTypeNetwork1, CardStatusID: wallet.CardStatusLive, Default: len(f.cards) == 0,
			ExpiryMonth: fmt.Sprintf("%02d", in.ExpiryMonth), ExpiryYear: fmt.Sprintf("%02d", in.ExpiryYear)}
		c.Gateways.ProviderB = in.ProviderBCse != ""
		c.Gateways.ProviderD = in.ProviderDToken != ""
		f.cards = append(f.cards, c)
		reply(w, 200, map[string]any{"wallet": f.cards, "requestInfo": info})
	})
	mux.HandleFunc("GET /v1/user/me", func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		defer f.mu.Unlock()
		reply(w, 200, map[string]any{"user": wallet.User{UserID: 1, UserStatus: 1, DefaultCardID: 1, Wallet: f.cards}, "requestInfo": info})
	})
	mux.HandleFunc("GET /v1/location/{id}", func(w http.ResponseWriter, r *http.Request) {
		gw := wallet.ProviderD
		if r.PathValue("id") == "1" {
			gw = wallet.ProviderB
		}
		reply(w, 200, map[string]any{"location": wallet.Location{LocationID: 2, Name: "Harbour Kitchen",
			LocationPaymentDetails: wallet.PaymentDetails{Gateway: gw}, POSStatus: wallet.POSStatusOnline}, "requestInfo": info})
	})
	mux.HandleFunc("POST /payments/v1/payment", func(w http.ResponseWriter, r *http.Request) {
		var in wallet.CreatePaymentRequest
		_ = json.NewDecoder(r.Body).Decode(&in)
		f.mu.Lock()
		defer f.mu.Unlock()
		gw := wallet.ProviderD
		if in.LocationID == 1 {
			gw = wallet.ProviderB
		}
		if in.CardID < 1 || int(in.CardID) > len(f.cards) {
			fail(w, client.CodeNotFound)
			return
		}
		if !f.cards[in.CardID-1].Gateways.Has(gw) {
			fail(w, client.CodeCardNotTokenised)
			return
		}
		reply(w, 201, map[string]any{"payment": wallet.Payment{PaymentID: 1, LocationID: in.LocationID, CheckNumber: in.CheckNumber,
			CardID: in.CardID, Amount: in.Amount, Tip: in.Tip, Status: wallet.PaymentPending}, "requestInfo": info})
	})
	f.srv = httptest.NewTLSServer(mux)
	return f
}

// service returns a wallet service talking to the fake over HTTPS, trusting
// its test certificate for both the service and the provider calls.
func (f *fakeAPI) service() *wallet.Service {
	c, err := client.New(
		client.WithBaseURL(f.srv.URL),
		client.WithHTTPClient(f.srv.Client()),
		client.WithAccessToken("user-access-token"),
	)
	if err != nil {
		log.Fatal(err)
	}
	return wallet.NewService(c, wallet.WithProviderHTTPClient(f.srv.Client()))
}

// A card is added for providerB, then paid with at a providerD location:
// the first payment fails with 404006, and PayWithRecovery tokenises the
// card for providerD and pays.
func Example() {
	api := newFakeAPI()
	defer api.srv.Close()
	w := api.service()
	ctx := context.Background()

	details := wallet.CardDetails{Number: "4111111111111111", CVC: "123", ExpiryMonth: 12, ExpiryYear: 30, HolderName: "A Diner"}
	card, err := w.AddCard(ctx, wallet.AddCardRequest{Card: details, Providers: []wallet.Gateway{wallet.ProviderD}, Nickname: "personal"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("added card", card.CardID, "ending", card.Last4Digits, "providerD:", card.Gateways.ProviderD)

	pay := wallet.CreatePaymentRequest{LocationID: 1, CheckNumber: 1042, CardID: card.CardID, Amount: client.MustParseMoney("24.50")}
	_, err = w.CreatePayment(ctx, pay)
	fmt.Println("card not tokenised for location 1:", errors.Is(err, client.ErrCardNotTokenised))

	p, err := w.PayWithRecovery(ctx, wallet.RecoveryRequest{
		Payment:        pay,
		IdempotencyKey: "check-1042-payment-1",
		CardDetails: func(ctx context.Context, gw wallet.Gateway) (wallet.CardDetails, error) {
			return details, nil // in an app: ask the user to enter the card again
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("paid", p.Amount, "with card", p.CardID, "status", p.Status)
	// Output:
	// added card 1 ending 1111 providerD: true
	// card not tokenised for location 1: true
	// paid 24.50 with card 2 status pending
}

func ExampleService_GetWallet() {
	api := newFakeAPI()
	defer api.srv.Close()
	w := api.service()
	ctx := context.Background()
	if _, err := w.AddCard(ctx, wallet.AddCardRequest{
		Card:      wallet.CardDetails{Number: "5555555555554444", CVC: "321", ExpiryMonth: 3, ExpiryYear: 29},
		Providers: []wallet.Gateway{wallet.ProviderD},
	}); err != nil {
		log.Fatal(err)
	}

	user, err := w.GetWallet(ctx)
	if err != nil {
		log.Fatal(err)
	}
	for _, c := range user.Wallet {
		fmt.Printf("card %d: %s ending %s, %s, expires %s/%s, default %v\n",
			c.CardID, c.CardTypeID, c.Last4Digits, c.CardStatusID, c.ExpiryMonth, c.ExpiryYear, c.Default)
	}
	// Output:
	// card 1: network-1 ending 4444, live, expires 03/29, default true
}

func ExampleService_GetLocation() {
	api := newFakeAPI()
	defer api.srv.Close()
	w := api.service()

	loc, err := w.GetLocation(context.Background(), 2)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(loc.Name, "pays through", loc.LocationPaymentDetails.Gateway, "and is", loc.POSStatus)
	// Output:
	// Harbour Kitchen pays through providerD and is online
}

func ExampleService_CreatePayment() {
	api := newFakeAPI()
	defer api.srv.Close()
	w := api.service()
	ctx := context.Background()
	card, err := w.AddCard(ctx, wallet.AddCardRequest{
		Card:      wallet.CardDetails{Number: "4111111111111111", CVC: "123", ExpiryMonth: 12, ExpiryYear: 30},
		Providers: []wallet.Gateway{wallet.ProviderD},
	})
	if err != nil {
		log.Fatal(err)
	}

	// The caller's own key makes a re-run of this program safe: the second
	// run gets the first payment back instead of paying again.
	p, err := w.CreatePayment(ctx, wallet.CreatePaymentRequest{
		LocationID: 2, CheckNumber: 1042, CardID: card.CardID,
		Amount: client.MustParseMoney("24.50"), Tip: client.MustParseMoney("2.45"),
	}, client.WithIdempotencyKey("check-1042-payment-1"))
	switch {
	case errors.Is(err, client.ErrCardNotTokenised):
		fmt.Println("tokenise the card for the location's provider first")
	case err != nil:
		log.Fatal(err)
	default:
		fmt.Println("payment", p.PaymentID, p.Status, p.Amount, "+ tip", p.Tip)
	}
	// Output:
	// payment 1 pending 24.50 + tip 2.45
}

func ExampleCardDetails() {
	d := wallet.CardDetails{Number: "4111111111111111", CVC: "123", ExpiryMonth: 12, ExpiryYear: 30, HolderName: "A Diner"}
	fmt.Println(d)
	fmt.Printf("%d\n", d)
	fmt.Println(strings.Contains(fmt.Sprintf("%#v", d), "123"))
	// Output:
	// CardDetails{Number:************1111 CVC:*** Expiry:12/30 HolderName:"A Diner"}
	// CardDetails{Number:************1111 CVC:*** Expiry:12/30 HolderName:"A Diner"}
	// false
}
