package events_test

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/events"
	"github.com/hospo-dev/hospo-go/fulfillment"
	"github.com/hospo-dev/hospo-go/wallet"
)

func ptr[T any](v T) *T { return &v }

func unix(sec int64) client.UnixTime { return client.UnixTime{Time: time.Unix(sec, 0).UTC()} }

func TestDecode(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		typ  events.Type
		data string
		want any
	}{
		{events.TypePaymentCreated,
			`{"paymentId":9,"locationId":3,"checkNumber":1042,"billId":"b-3-1042","cardId":2,"amount":12.30,"tip":0,"status":"pending","createdAt":1700000000}`,
			wallet.Payment{PaymentID: 9, LocationID: 3, CheckNumber: 1042, BillID: "b-3-1042", CardID: 2,
				Amount: client.MustParseMoney("12.30"), Status: wallet.PaymentPending, CreatedAt: unix(1700000000)}},
		{events.TypePaymentAccepted,
			`{"paymentId":9,"locationId":3,"checkNumber":1042,"billId":"b-3-1042","cardId":2,"amount":0.10,"tip":0.20,"status":"accepted","createdAt":1700000000}`,
			wallet.Payment{PaymentID: 9, LocationID: 3, CheckNumber: 1042, BillID: "b-3-1042", CardID: 2,
				Amount: client.MustParseMoney("0.10"), Tip: client.MustParseMoney("0.20"), Status: wallet.PaymentAccepted, CreatedAt: unix(1700000000)}},
		{events.TypeBillClosed,
			`{"billId":"b-3-1042","locationId":3,"checkNumber":1042,"totalAmount":24.50,"lastUpdated":"2023-11-14 22:13:20"}`,
			events.BillClosed{BillID: "b-3-1042", LocationID: 3, CheckNumber: 1042, TotalAmount: client.MustParseMoney("24.50"),
				LastUpdated: client.BillTime{Time: time.Unix(1700000000, 0).UTC()}}},
		{events.TypeOrderStatusChanged,
			`{"orderId":"o-1","locationId":3,"status":"accepted_by_pos","previousStatus":"sent_to_pos","posOrderId":"pos-7","reason":null}`,
			events.OrderStatusChanged{OrderID: "o-1", LocationID: 3, Status: fulfillment.StatusAcceptedByPOS,
				PreviousStatus: fulfillment.StatusSentToPOS, POSOrderID: ptr("pos-7")}},
		{events.TypeOrderStatusChanged,
			`{"orderId":"o-2","locationId":3,"status":"failed","previousStatus":"sent_to_pos","posOrderId":null,"reason":"POS answered 422"}`,
			events.OrderStatusChanged{OrderID: "o-2", LocationID: 3, Status: fulfillment.StatusFailed,
				PreviousStatus: fulfillment.StatusSentToPOS, Reason: ptr("POS answered 422")}},
		{events.TypeLocationOnline, `{"locationId":3,"lastHeartbeat":1700000000}`,
			events.LocationStatus{LocationID: 3, LastHeartbeat: ptr(unix(1700000000))}},
		{events.TypeLocationOffline, `{"locationId":3,"lastHeartbeat":null}`,
			events.LocationStatus{LocationID: 3}},
		{events.TypePOSHealthChanged, `{"locationId":3,"status":"FAILED","message":"printer jammed"}`,
			events.POSHealthChanged{LocationID: 3, Status: wallet.POSHealthFailed, Message: ptr("printer jammed")}},
		{events.TypePOSHealthChanged, `{"locationId":3,"status":"OK","message":null}`,
			events.POSHealthChanged{LocationID: 3, Status: wallet.POSHealthOK}},
		{events.TypePing, `{"webhookId":"wh_1"}`, events.Ping{WebhookID: "wh_1"}},
	} {
		t.Run(string(tc.typ), func(t *testing.T) {
			t.Parallel()
			var ev events.Event
			body := `{"id":"evt_1","type":"` + string(tc.typ) + `","createdAt":1700000000,"locationId":null,"data":` + tc.data + `}`
			if err := json.Unmarshal([]byte(body), &ev); err != nil {
				t.Fatal(err)
			}
			got, err := ev.Decode()
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, got, cmp.AllowUnexported(client.Money{})); d != "" {
				t.Errorf("Decode (-want +got):\n%s", d)
			}
		})
	}
}

func TestEnvelope(t *testing.T) {
	t.Parallel()
	var ev events.Event
	body := `{"id":"evt_1","type":"bill.closed","createdAt":1700000000,"locationId":3,"data":{"billId":"b"},"cursor":"c1"}`
	if err := json.Unmarshal([]byte(body), &ev); err != nil {
		t.Fatal(err)
	}
	want := events.Event{ID: "evt_1", Type: events.TypeBillClosed, CreatedAt: unix(1700000000), LocationID: ptr[int64](3),
		Data: json.RawMessage(`{"billId":"b"}`), Cursor: "c1"}
	if d := cmp.Diff(want, ev); d != "" {
		t.Errorf("event (-want +got):\n%s", d)
	}
}

func TestAccessorErrors(t *testing.T) {
	t.Parallel()
	ev := events.Event{ID: "evt_1", Type: events.TypeBillClosed, Data: json.RawMessage(`{"billId":"b"}`)}
	if _, err := ev.Payment(); !errors.Is(err, events.ErrTypeMismatch) {
		t.Errorf("Payment on a bill.closed event = %v", err)
	}
	if _, err := ev.BillClosed(); err != nil {
		t.Errorf("BillClosed = %v", err)
	}
	ev.Data = json.RawMessage(`{"billId":7}`)
	if _, err := ev.BillClosed(); err == nil || errors.Is(err, events.ErrTypeMismatch) {
		t.Errorf("BillClosed of bad data = %v", err)
	}
	future := events.Event{ID: "evt_2", Type: "table.seated", Data: json.RawMessage(`{}`)}
	if v, err := future.Decode(); !errors.Is(err, events.ErrUnknownType) || v != nil {
		t.Errorf("Decode of an unknown type = %v, %v", v, err)
	}
}

func TestTypes(t *testing.T) {
	t.Parallel()
	seen := map[events.Type]bool{}
	for _, typ := range events.Types() {
		if !typ.Known() || seen[typ] {
			t.Errorf("%s: known %v, repeated %v", typ, typ.Known(), seen[typ])
		}
		seen[typ] = true
		// Every known type decodes to something.
		if _, err := (events.Event{Type: typ, Data: json.RawMessage(`{}`)}).Decode(); err != nil {
			t.Errorf("%s: Decode: %v", typ, err)
		}
	}
	if len(seen) != 8 || events.AllTypes.Known() || events.Type("payment").Known() {
		t.Errorf("types %v", seen)
	}
}
