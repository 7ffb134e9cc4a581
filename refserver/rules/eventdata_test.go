package rules

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/events"
)

// TestEventDataMatchesEncodingJSON holds the hand-written bill.closed data
// to what encoding/json writes for the SDK's type, and the other types to
// encoding/json itself.
func TestEventDataMatchesEncodingJSON(t *testing.T) {
	t.Parallel()
	at := time.Date(2031, time.February, 3, 4, 5, 6, 0, time.FixedZone("x", 3600))
	cases := []any{
		events.BillClosed{BillID: "0190f7c2-3a4b-7c5d-8e9f-0123456789ab", LocationID: 1, CheckNumber: 42,
			TotalAmount: client.MustParseMoney("54.20"), LastUpdated: client.BillTime{Time: at}},
		events.BillClosed{BillID: "b", LocationID: 9_007_199_254_740_993, CheckNumber: -1,
			TotalAmount: client.MustParseMoney("-0.05"), LastUpdated: client.BillTime{Time: at.Add(-time.Hour)}},
		events.BillClosed{},
		events.BillClosed{BillID: "needs \"escaping\" <&>\u2028", TotalAmount: client.MaxMoney},
		events.Ping{WebhookID: "wh_1"},
	}
	for _, data := range cases {
		want, err := json.Marshal(data)
		if err != nil {
			t.Fatal(err)
		}
		got, err := eventData(data)
		if err != nil || string(got) != string(want) {
			t.Errorf("eventData(%+v) = %s, %v\nwant %s", data, got, err, want)
		}
	}
}
