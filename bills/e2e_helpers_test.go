package bills_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/hospo-dev/hospo-go/bills"
	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/possync"
	"github.com/hospo-dev/hospo-go/refserver/refservertest"
	"github.com/hospo-dev/hospo-go/wallet"
)

// venue is a location of a test server with its POS (possync calls with the
// location's POS token) and a bills service whose API key is scoped to it.
// refservertest checks every request and response against the OpenAPI
// document, so these tests check the bills endpoints' wire format too.
type venue struct {
	env     *refservertest.Env
	base    string // the server's base URL
	id      int64
	name    string
	gateway wallet.Gateway
	pos     *possync.Service
	apiKey  string
	client  *client.Client // the bills client, for CloseIdleConnections
	bills   *bills.Service
}

func newVenue(t testing.TB, env *refservertest.Env, name string, gateway wallet.Gateway, opts ...bills.Option) *venue {
	t.Helper()
	id, posToken := env.NewLocation(t, name, string(gateway))
	key := env.NewAPIKey(t, id)
	base := env.URL
	c := env.Client(t, client.WithAPIKey(key))
	return &venue{
		env: env, base: base, id: id, name: name, gateway: gateway,
		pos:    possync.NewService(env.Client(t, client.WithAccessToken(posToken))),
		apiKey: key, client: c, bills: bills.NewService(c, opts...),
	}
}

// heartbeat marks the venue's POS online, which payments need.
func (v *venue) heartbeat(t testing.TB) {
	t.Helper()
	if _, err := v.pos.Heartbeat(context.Background(), v.id); err != nil {
		t.Fatalf("heartbeat: %v", err)
	}
}

// push sends a check as the venue's POS and returns the bill id.
func (v *venue) push(t testing.TB, c possync.Check) string {
	t.Helper()
	c.LocationID = v.id
	res, err := v.pos.PushCheck(context.Background(), &c)
	if err != nil {
		t.Fatalf("push check %d: %v", c.CheckNumber, err)
	}
	return res.BillID
}

// acceptAll accepts every pending payment of the venue except those in
// keep, as a POS does after saving them to their checks.
func (v *venue) acceptAll(t testing.TB, keep ...int64) {
	t.Helper()
	pending, err := v.pos.Payments(context.Background(), v.id)
	if err != nil {
		t.Fatalf("payments poll: %v", err)
	}
	skip := map[int64]bool{}
	for _, id := range keep {
		skip[id] = true
	}
	for _, ps := range pending {
		for _, p := range ps {
			if skip[p.PaymentID] {
				continue
			}
			if _, err := v.pos.AcceptPayment(context.Background(), p.PaymentID); err != nil {
				t.Fatalf("accept payment %d: %v", p.PaymentID, err)
			}
		}
	}
}

// check returns a check of the venue with two items, a check discount and
// the amounts given. It is safe for concurrent use.
func (v *venue) check(n int64, status possync.CheckStatus, total, outstanding, tips string) possync.Check {
	parent := &possync.Category{Name: "Food"}
	return possync.Check{
		TableNumber: int(n%40) + 1, CheckNumber: n, LocationID: v.id, StaffID: "staff-" + v.name, Guests: 2,
		Status:              status,
		TotalAmount:         client.MustParseMoney(total),
		OutstandingAmount:   client.MustParseMoney(outstanding),
		ServiceChargeAmount: client.MustParseMoney("2.50"),
		TipsPaid:            client.MustParseMoney(tips),
		Discounts:           []possync.Discount{{Name: "Loyalty", Value: client.MustParseMoney("-1.00")}},
		MenuItems: []possync.MenuItem{
			{
				ID: 100 + n, Name: "Fish pie", Quantity: 1,
				Price: client.MustParseMoney("14.00"), PriceSold: client.MustParseMoney("12.60"),
				Modifiers: []possync.Modifier{{ID: 501, Name: "Extra peas", Price: client.MustParseMoney("0.80"),
					Modifiers: []possync.Modifier{{ID: 502, Name: "Minted", Price: client.MustParseMoney("0.10")}}}},
				Discount: &possync.Discount{Name: "Happy hour", Value: client.MustParseMoney("-1.40")},
				Category: possync.Category{Name: "Mains", Category: parent},
			},
			{
				ID: 900, Name: "Lemonade", Quantity: 2,
				Price: client.MustParseMoney("3.20"), PriceSold: client.MustParseMoney("3.20"),
				Category: possync.Category{Name: "Drinks"},
			},
		},
	}
}

// payer is a user with a wallet card tokenised for one provider.
type payer struct {
	id     int64
	token  string
	wallet *wallet.Service
	card   wallet.Card
}

func newPayer(t testing.TB, env *refservertest.Env, gateway wallet.Gateway, number string) *payer {
	t.Helper()
	id, token := env.NewUser(t)
	w := wallet.NewService(env.Client(t, client.WithAccessToken(token)), wallet.WithProviderRootCAs(env.RootCAs))
	card, err := w.AddCard(context.Background(), wallet.AddCardRequest{
		Card:      wallet.CardDetails{Number: number, CVC: "737", ExpiryMonth: 3, ExpiryYear: 2030, HolderName: "Test Payer"},
		Providers: []wallet.Gateway{gateway},
		Nickname:  "test card",
	})
	if err != nil {
		t.Fatalf("add card: %v", err)
	}
	return &payer{id: id, token: token, wallet: w, card: card}
}

func (p *payer) pay(t testing.TB, v *venue, checkNumber int64, amount, tip string) wallet.Payment {
	t.Helper()
	pay, err := p.wallet.CreatePayment(context.Background(), wallet.CreatePaymentRequest{
		LocationID: v.id, CheckNumber: checkNumber, CardID: p.card.CardID,
		Amount: client.MustParseMoney(amount), Tip: client.MustParseMoney(tip),
	})
	if err != nil {
		t.Fatalf("pay %s towards check %d: %v", amount, checkNumber, err)
	}
	return pay
}

// rawResponse is a response of rawGet: status and the decoded body.
type rawResponse struct {
	status int
	body   struct {
		Error       bool               `json:"error"`
		Code        client.Code        `json:"code"`
		Message     string             `json:"message"`
		RequestInfo client.RequestInfo `json:"requestInfo"`
	}
	raw []byte
}

// rawGet sends a GET with the exact path and query given (nothing is
// re-encoded) to base and, when key is not empty, the API key header.
func rawGet(t testing.TB, base, pathAndQuery, key string) rawResponse {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, base+pathAndQuery, nil)
	if err != nil {
		t.Fatal(err)
	}
	if key != "" {
		req.Header.Set(client.HeaderAPIKey, key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out rawResponse
	out.status = resp.StatusCode
	out.raw, err = io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(out.raw, &out.body); err != nil {
		t.Fatalf("GET %s: body %q: %v", pathAndQuery, out.raw, err)
	}
	return out
}

// wide returns a range around now that holds everything a test pushed
// without moving the clock far: a day either side.
func wide(v *venue, t testing.TB) (time.Time, time.Time) {
	t.Helper()
	now := serverNow(t, v)
	return now.Add(-24 * time.Hour), now.Add(24 * time.Hour)
}

// serverNow reads the server's virtual clock (requestInfo.serverTime of a
// heartbeat).
func serverNow(t testing.TB, v *venue) time.Time {
	t.Helper()
	res, err := v.pos.Heartbeat(context.Background(), v.id)
	if err != nil {
		t.Fatalf("heartbeat: %v", err)
	}
	return res.RequestInfo.Time()
}
