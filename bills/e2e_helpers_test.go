package bills_test

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/hospo-dev/hospo-go/bills"
	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/possync"
	"github.com/hospo-dev/hospo-go/refserver/refservertest"
	"github.com/hospo-dev/hospo-go/wallet"
)

// venue is a refservertest venue with a bills service whose API key is
// scoped to it. refservertest checks every request and response against
// the OpenAPI document, so these tests check the bills endpoints' wire
// format too.
type venue struct {
	*refservertest.Venue
	env    *refservertest.Env
	apiKey string
	client *client.Client // the bills client, for CloseIdleConnections
	bills  *bills.Service
}

func newVenue(t testing.TB, env *refservertest.Env, name string, gateway wallet.Gateway, opts ...bills.Option) *venue {
	t.Helper()
	v := env.NewVenue(t, refservertest.VenueConfig{Name: name, Gateway: gateway})
	key := v.NewAPIKey(t)
	c := env.Client(t, client.WithAPIKey(key))
	return &venue{Venue: v, env: env, apiKey: key, client: c, bills: bills.NewService(c, opts...)}
}

// check returns a check of the venue with two items, a check discount and
// the amounts given. It is safe for concurrent use.
func (v *venue) check(n int64, status possync.CheckStatus, total, outstanding, tips string) possync.Check {
	parent := &possync.Category{Name: "Food"}
	return possync.Check{
		TableNumber: int(n%40) + 1, CheckNumber: n, LocationID: v.ID, StaffID: "staff-" + v.Name, Guests: 2,
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

// newPayer returns a diner with a card of number tokenised for gateway.
func newPayer(t testing.TB, env *refservertest.Env, gateway wallet.Gateway, number string) *refservertest.Diner {
	t.Helper()
	d := env.NewDiner(t)
	d.AddCard(t, number, gateway)
	return d
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
// re-encoded) and, when key is not empty, the API key header.
func rawGet(t testing.TB, env *refservertest.Env, pathAndQuery, key string) rawResponse {
	t.Helper()
	var h http.Header
	if key != "" {
		h = http.Header{client.HeaderAPIKey: {key}}
	}
	var out rawResponse
	out.status, out.raw = env.Send(t, http.MethodGet, pathAndQuery, h, nil)
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
	return v.Heartbeat(t).RequestInfo.Time()
}
