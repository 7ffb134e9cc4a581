package wallet

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/internal/sdktest"
)

func paymentJSON(id, cardID int64, status string) string {
	return `{"payment":{"paymentId":` + strconv.Itoa(int(id)) + `,"locationId":3,"checkNumber":1042,"billId":"b-3-1042","cardId":` + strconv.Itoa(int(cardID)) +
		`,"amount":12.30,"tip":1.50,"status":"` + status + `","createdAt":1700000000},` + requestInfoJSON + `}`
}

func TestCreatePayment(t *testing.T) {
	t.Parallel()
	s, m := newMockService(t)
	rec := m.Reply(http.MethodPost, "payments/v1/payment", 201, paymentJSON(9, 2, "pending"))

	p, err := s.CreatePayment(context.Background(), CreatePaymentRequest{
		LocationID: 3, CheckNumber: 1042, CardID: 2,
		Amount: client.MustParseMoney("12.30"), Tip: client.MustParseMoney("1.5"),
	}, client.WithIdempotencyKey("pay-1"))
	if err != nil {
		t.Fatal(err)
	}
	c := rec.Last(t)
	sdktest.TestPath(t, c, http.MethodPost, "/prefix/payments/v1/payment")
	if c.Header.Get("Idempotency-Key") != "pay-1" {
		t.Errorf("Idempotency-Key = %q", c.Header.Get("Idempotency-Key"))
	}
	// Money goes out as JSON numbers with two decimals.
	if want := `{"locationId":3,"checkNumber":1042,"cardId":2,"amount":12.30,"tip":1.50}`; string(c.Body) != want {
		t.Errorf("body = %s, want %s", string(c.Body), want)
	}
	want := Payment{PaymentID: 9, LocationID: 3, CheckNumber: 1042, BillID: "b-3-1042", CardID: 2,
		Amount: client.MustParseMoney("12.30"), Tip: client.MustParseMoney("1.50"), Status: PaymentPending,
		CreatedAt: client.UnixTime{Time: time.Unix(1700000000, 0).UTC()}}
	if d := cmp.Diff(want, p, cmp.AllowUnexported(client.Money{})); d != "" {
		t.Errorf("payment (-want +got):\n%s", d)
	}
}

func TestCreatePaymentErrors(t *testing.T) {
	t.Parallel()
	for _, code := range []client.Code{
		client.CodeCardNotTokenised, client.CodeNotFound, client.CodeAmountExceedsOutstanding,
		client.CodeLocationOffline, client.CodeCardNotUsable, client.CodePaymentDeclined, client.CodeValidation,
	} {
		t.Run(code.Message(), func(t *testing.T) {
			t.Parallel()
			s, m := newMockService(t)
			m.Reply(http.MethodPost, "payments/v1/payment", code.HTTPStatus(), sdktest.ErrorBody(code, ""))
			_, err := s.CreatePayment(context.Background(), CreatePaymentRequest{LocationID: 1, CheckNumber: 1, CardID: 1, Amount: client.MoneyFromCents(1)})
			if !errors.Is(err, code) {
				t.Fatalf("err = %v, want code %d", err, code)
			}
		})
	}
}

func TestGetPayment(t *testing.T) {
	t.Parallel()
	s, m := newMockService(t)
	rec := m.Reply(http.MethodGet, "payments/v1/payment/9", 200, paymentJSON(9, 2, "accepted"))
	p, err := s.GetPayment(context.Background(), 9)
	if err != nil {
		t.Fatal(err)
	}
	sdktest.TestPath(t, rec.Last(t), http.MethodGet, "/prefix/payments/v1/payment/9")
	if p.Status != PaymentAccepted || p.Amount.String() != "12.30" {
		t.Errorf("payment = %+v", p)
	}
}

func TestCreatePaymentRequestValidate(t *testing.T) {
	t.Parallel()
	money := client.MustParseMoney
	tests := []struct {
		amount, tip string
		want        map[string]string
	}{
		{"12.30", "0", nil},
		{"0.01", "1000000.00", nil},
		{"0", "0", map[string]string{"amount": "must be greater than 0"}},
		{"-1", "-0.01", map[string]string{"amount": "must be greater than 0", "tip": "must not be negative"}},
		{"1", "1000000.01", map[string]string{"tip": "must be at most 1000000.00"}},
	}
	for _, tt := range tests {
		err := CreatePaymentRequest{LocationID: 3, CheckNumber: 1, CardID: 1, Amount: money(tt.amount), Tip: money(tt.tip)}.Validate()
		var got map[string]string
		var ve *client.ValidationError
		if errors.As(err, &ve) {
			got = ve.Fields
		} else if err != nil {
			t.Fatalf("Validate = %v", err)
		}
		if d := cmp.Diff(tt.want, got); d != "" {
			t.Errorf("amount %s tip %s (-want +got):\n%s", tt.amount, tt.tip, d)
		}
	}
}
