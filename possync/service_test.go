package possync

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/internal/sdktest"
	"github.com/jarcoal/httpmock"
)

const testToken = "pos-token-secret"

// newMockService returns a Service of a fresh mock service, with a POS
// token and fast retries.
func newMockService(t testing.TB, opts ...client.Option) (*Service, *sdktest.Mock) {
	t.Helper()
	m := sdktest.NewMock()
	base := []client.Option{
		client.WithBaseURL(sdktest.BaseURL),
		client.WithHTTPClient(m.HTTPClient),
		client.WithAccessToken(testToken),
		client.WithRetryPolicy(client.RetryPolicy{MaxRetries: 2, MinBackoff: time.Microsecond, MaxBackoff: time.Millisecond}),
	}
	c, err := client.New(append(base, opts...)...)
	if err != nil {
		t.Fatalf("client.New: %v", err)
	}
	return NewService(c), m
}

var requestInfoJSON = sdktest.RequestInfo(1)

var wantRequestInfo = client.RequestInfo{AccessTokenStatus: "authenticated", ServerTime: sdktest.ServerTime, APIVersion: 1}

func TestPushCheck(t *testing.T) {
	t.Parallel()
	s, m := newMockService(t)
	rec := m.Reply("POST", "v1/pos/push-pull/check", 200, `{"billId":"b-1","version":3,`+requestInfoJSON+`}`)

	check := loadCheck(t)
	res, err := s.PushCheck(context.Background(), check)
	if err != nil {
		t.Fatalf("PushCheck: %v", err)
	}
	want := PushResult{BillID: "b-1", Version: 3, RequestInfo: wantRequestInfo}
	if diff := cmp.Diff(want, res); diff != "" {
		t.Errorf("result (-want +got):\n%s", diff)
	}
	got := rec.Last(t)
	if got.Method != "POST" || got.Path != "/prefix/v1/pos/push-pull/check" {
		t.Errorf("request %s %s", got.Method, got.Path)
	}
	if got.Query.Get("accessToken") != testToken || got.Header.Get("Idempotency-Key") == "" || got.Header.Get("Content-Type") != "application/json" {
		t.Errorf("token %q, Idempotency-Key %q, Content-Type %q", got.Query.Get("accessToken"), got.Header.Get("Idempotency-Key"), got.Header.Get("Content-Type"))
	}
	if string(got.Body) != mustJSON(t, check) {
		t.Errorf("body:\n%s\nwant:\n%s", got.Body, mustJSON(t, check))
	}
}

func TestPushCheckNil(t *testing.T) {
	t.Parallel()
	s, m := newMockService(t)
	if _, err := s.PushCheck(context.Background(), nil); err == nil {
		t.Fatal("PushCheck(nil) succeeded")
	}
	if n := m.Calls(); n != 0 {
		t.Errorf("%d requests sent", n)
	}
}

func TestPushCheckValidationError(t *testing.T) {
	t.Parallel()
	s, m := newMockService(t)
	m.Handle("POST", "v1/pos/push-pull/check",
		httpmock.NewStringResponder(400, sdktest.ErrorBody(client.CodeValidation, `{"menuItems[0].quantity":"must not be negative"}`)))
	_, err := s.PushCheck(context.Background(), loadCheck(t))
	if !errors.Is(err, client.ErrValidation) {
		t.Fatalf("err = %v, want 400002", err)
	}
	var ae *client.APIError
	if !errors.As(err, &ae) {
		t.Fatalf("err %T is not *client.APIError", err)
	}
	if diff := cmp.Diff(map[string]string{"menuItems[0].quantity": "must not be negative"}, ae.FieldErrors()); diff != "" {
		t.Errorf("FieldErrors (-want +got):\n%s", diff)
	}
	if n := m.Calls(); n != 1 {
		t.Errorf("a 400 was retried: %d calls", n)
	}
}

func TestPushCheckRetriesWithSameKey(t *testing.T) {
	t.Parallel()
	s, m := newMockService(t)
	var keys []string
	m.Handle("POST", "v1/pos/push-pull/check", func(r *http.Request) (*http.Response, error) {
		keys = append(keys, r.Header.Get("Idempotency-Key"))
		if len(keys) == 1 {
			return httpmock.NewStringResponse(503, sdktest.ErrorBody(client.Code(503001), "")), nil
		}
		return httpmock.NewStringResponse(200, `{"billId":"b-1","version":1,`+requestInfoJSON+`}`), nil
	})
	if _, err := s.PushCheck(context.Background(), loadCheck(t)); err != nil {
		t.Fatalf("PushCheck: %v", err)
	}
	if len(keys) != 2 || keys[0] == "" || keys[0] != keys[1] {
		t.Errorf("Idempotency-Keys of the attempts: %q", keys)
	}
}

func TestPayments(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		body string
		want map[int64][]PaymentNotification
	}{
		{
			name: "two checks",
			body: `{"checks":{"40117":[{"paymentId":7,"paymentExTip":20.00,"tip":2.50},{"paymentId":9,"paymentExTip":0.10,"tip":0.00}],"12":[{"paymentId":8,"paymentExTip":5.05,"tip":0.95}]},` + requestInfoJSON + `}`,
			want: map[int64][]PaymentNotification{
				40117: {{PaymentID: 7, PaymentExTip: money("20.00"), Tip: money("2.50")}, {PaymentID: 9, PaymentExTip: money("0.10"), Tip: money("0")}},
				12:    {{PaymentID: 8, PaymentExTip: money("5.05"), Tip: money("0.95")}},
			},
		},
		{name: "none", body: `{"checks":{},` + requestInfoJSON + `}`, want: map[int64][]PaymentNotification{}},
		{name: "checks absent", body: `{` + requestInfoJSON + `}`, want: map[int64][]PaymentNotification{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, m := newMockService(t)
			rec := m.Reply("GET", "v1/pos/push-pull/payments/42", 200, tt.body)
			ps, err := s.Payments(context.Background(), 42)
			if err != nil {
				t.Fatalf("Payments: %v", err)
			}
			if ps == nil {
				t.Fatal("nil map")
			}
			if diff := cmp.Diff(tt.want, ps, cmp.AllowUnexported(client.Money{})); diff != "" {
				t.Errorf("payments (-want +got):\n%s", diff)
			}
			got := rec.Last(t)
			if got.Query.Get("accessToken") != testToken || got.Header.Get("Idempotency-Key") != "" || len(got.Body) != 0 {
				t.Errorf("token %q, Idempotency-Key %q, body %q", got.Query.Get("accessToken"), got.Header.Get("Idempotency-Key"), got.Body)
			}
		})
	}
}

func TestPaymentsForbidden(t *testing.T) {
	t.Parallel()
	s, m := newMockService(t)
	m.Handle("GET", "v1/pos/push-pull/payments/7",
		httpmock.NewStringResponder(403, sdktest.ErrorBody(client.CodeForbidden, "")))
	if _, err := s.Payments(context.Background(), 7); !errors.Is(err, client.ErrForbidden) {
		t.Fatalf("err = %v, want 403001", err)
	}
}

func TestAcceptPayment(t *testing.T) {
	t.Parallel()
	s, m := newMockService(t)
	rec := m.Reply("POST", "v1/pos/push-pull/accept-payment", 200, `{"paymentId":77,"status":"accepted",`+requestInfoJSON+`}`)
	res, err := s.AcceptPayment(context.Background(), 77)
	if err != nil {
		t.Fatalf("AcceptPayment: %v", err)
	}
	if diff := cmp.Diff(AcceptResult{PaymentID: 77, Status: "accepted", RequestInfo: wantRequestInfo}, res); diff != "" {
		t.Errorf("result (-want +got):\n%s", diff)
	}
	got := rec.Last(t)
	if string(got.Body) != `{"paymentId":77}` || got.Header.Get("Idempotency-Key") == "" {
		t.Errorf("body %s, Idempotency-Key %q", got.Body, got.Header.Get("Idempotency-Key"))
	}
}

func TestAcceptPaymentNotFound(t *testing.T) {
	t.Parallel()
	s, m := newMockService(t)
	m.Handle("POST", "v1/pos/push-pull/accept-payment",
		httpmock.NewStringResponder(404, sdktest.ErrorBody(client.CodeNotFound, "")))
	if _, err := s.AcceptPayment(context.Background(), 1); !errors.Is(err, client.ErrNotFound) {
		t.Fatalf("err = %v, want 404001", err)
	}
}

func TestHeartbeat(t *testing.T) {
	t.Parallel()
	s, m := newMockService(t)
	rec := m.Reply("POST", "v1/pos/push-pull/heartbeat/42", 200, `{"status":"ok",`+requestInfoJSON+`}`)
	res, err := s.Heartbeat(context.Background(), 42)
	if err != nil {
		t.Fatalf("Heartbeat: %v", err)
	}
	if diff := cmp.Diff(HeartbeatResult{Status: "ok", RequestInfo: wantRequestInfo}, res); diff != "" {
		t.Errorf("result (-want +got):\n%s", diff)
	}
	got := rec.Last(t)
	if len(got.Body) != 0 || got.Header.Get("Content-Type") != "" {
		t.Errorf("heartbeat sent a body %q (Content-Type %q)", got.Body, got.Header.Get("Content-Type"))
	}
}

func TestCallsNeedAToken(t *testing.T) {
	t.Parallel()
	s, m := newMockService(t, client.WithAccessToken(""))
	ctx := context.Background()
	calls := map[string]func() error{
		"PushCheck":     func() error { _, err := s.PushCheck(ctx, loadCheck(t)); return err },
		"Payments":      func() error { _, err := s.Payments(ctx, 1); return err },
		"AcceptPayment": func() error { _, err := s.AcceptPayment(ctx, 1); return err },
		"Heartbeat":     func() error { _, err := s.Heartbeat(ctx, 1); return err },
	}
	for name, call := range calls {
		if err := call(); !errors.Is(err, client.ErrNoCredential) {
			t.Errorf("%s: err = %v, want ErrNoCredential", name, err)
		}
	}
	if n := m.Calls(); n != 0 {
		t.Errorf("%d requests sent without a token", n)
	}
}

func TestPerCallToken(t *testing.T) {
	t.Parallel()
	s, m := newMockService(t)
	rec := m.Reply("POST", "v1/pos/push-pull/heartbeat/9", 200, `{"status":"ok",`+requestInfoJSON+`}`)
	if _, err := s.Heartbeat(context.Background(), 9, client.WithAccessToken("other-terminal")); err != nil {
		t.Fatal(err)
	}
	got := rec.Last(t)
	if got.Query.Get("accessToken") != "other-terminal" {
		t.Errorf("token %q, want the per-call one", got.Query.Get("accessToken"))
	}
}

func TestAcceptRequestValidate(t *testing.T) {
	t.Parallel()
	if err := (AcceptRequest{PaymentID: 7}).Validate(); err != nil {
		t.Fatalf("Validate = %v", err)
	}
	var ve *client.ValidationError
	if err := (AcceptRequest{}).Validate(); !errors.As(err, &ve) || ve.Fields["paymentId"] != "must be positive" {
		t.Errorf("Validate(0) = %v", err)
	}
}
