package possync

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/hospo-dev/hospo-go/client"
	"github.com/jarcoal/httpmock"
)

// testBase is under a path prefix, so that a request built with an
// absolute path would miss every responder.
const testBase = "https://pos.test/prefix/"

const testToken = "pos-token-secret"

// newMockService returns a Service whose client sends to a fresh httpmock
// transport with a POS token and fast retries.
func newMockService(t testing.TB, opts ...client.Option) (*Service, *httpmock.MockTransport) {
	t.Helper()
	mt := httpmock.NewMockTransport()
	base := []client.Option{
		client.WithBaseURL(testBase),
		client.WithHTTPClient(&http.Client{Transport: mt}),
		client.WithAccessToken(testToken),
		client.WithRetryPolicy(client.RetryPolicy{MaxRetries: 2, MinBackoff: time.Microsecond, MaxBackoff: time.Millisecond}),
	}
	c, err := client.New(append(base, opts...)...)
	if err != nil {
		t.Fatalf("client.New: %v", err)
	}
	return NewService(c), mt
}

const requestInfoJSON = `"requestInfo":{"accessTokenStatus":"authenticated","serverTime":1700000000,"requestId":null,"apiVersion":1}`

var wantRequestInfo = client.RequestInfo{AccessTokenStatus: "authenticated", ServerTime: 1700000000, APIVersion: 1}

// captured is what a responder saw of a request.
type captured struct {
	method, path, token, idemKey, contentType string
	body                                      []byte
}

// capture answers with status and body and records the request in *got.
func capture(got *captured, status int, body string) httpmock.Responder {
	return func(r *http.Request) (*http.Response, error) {
		got.method, got.path = r.Method, r.URL.Path
		got.token = r.URL.Query().Get("accessToken")
		got.idemKey = r.Header.Get("Idempotency-Key")
		got.contentType = r.Header.Get("Content-Type")
		if r.Body != nil {
			got.body, _ = io.ReadAll(r.Body)
		}
		resp := httpmock.NewStringResponse(status, body)
		resp.Header.Set("Content-Type", "application/json")
		return resp, nil
	}
}

func errorBody(code client.Code, contextData string) string {
	return `{"error":true,"code":` + itoa(int64(code)) + `,"message":"` + code.Message() +
		`","contextData":` + contextData + `,"displayString":null,"requestInfo":{"accessTokenStatus":"authenticated","serverTime":1700000000,"requestId":null,"apiVersion":0}}`
}

func itoa(n int64) string { b, _ := json.Marshal(n); return string(b) }

func TestPushCheck(t *testing.T) {
	t.Parallel()
	s, mt := newMockService(t)
	var got captured
	mt.RegisterResponder("POST", testBase+"v1/pos/push-pull/check",
		capture(&got, 200, `{"billId":"b-1","version":3,`+requestInfoJSON+`}`))

	check := loadCheck(t)
	res, err := s.PushCheck(context.Background(), check)
	if err != nil {
		t.Fatalf("PushCheck: %v", err)
	}
	want := PushResult{BillID: "b-1", Version: 3, RequestInfo: wantRequestInfo}
	if diff := cmp.Diff(want, res); diff != "" {
		t.Errorf("result (-want +got):\n%s", diff)
	}
	if got.method != "POST" || got.path != "/prefix/v1/pos/push-pull/check" {
		t.Errorf("request %s %s", got.method, got.path)
	}
	if got.token != testToken || got.idemKey == "" || got.contentType != "application/json" {
		t.Errorf("token %q, Idempotency-Key %q, Content-Type %q", got.token, got.idemKey, got.contentType)
	}
	if string(got.body) != mustJSON(t, check) {
		t.Errorf("body:\n%s\nwant:\n%s", got.body, mustJSON(t, check))
	}
}

func TestPushCheckNil(t *testing.T) {
	t.Parallel()
	s, mt := newMockService(t)
	if _, err := s.PushCheck(context.Background(), nil); err == nil {
		t.Fatal("PushCheck(nil) succeeded")
	}
	if n := mt.GetTotalCallCount(); n != 0 {
		t.Errorf("%d requests sent", n)
	}
}

func TestPushCheckValidationError(t *testing.T) {
	t.Parallel()
	s, mt := newMockService(t)
	mt.RegisterResponder("POST", testBase+"v1/pos/push-pull/check",
		httpmock.NewStringResponder(400, errorBody(client.CodeValidation, `{"menuItems[0].quantity":"must not be negative"}`)))
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
	if n := mt.GetTotalCallCount(); n != 1 {
		t.Errorf("a 400 was retried: %d calls", n)
	}
}

func TestPushCheckRetriesWithSameKey(t *testing.T) {
	t.Parallel()
	s, mt := newMockService(t)
	var keys []string
	mt.RegisterResponder("POST", testBase+"v1/pos/push-pull/check", func(r *http.Request) (*http.Response, error) {
		keys = append(keys, r.Header.Get("Idempotency-Key"))
		if len(keys) == 1 {
			return httpmock.NewStringResponse(503, errorBody(503001, "null")), nil
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
			s, mt := newMockService(t)
			var got captured
			mt.RegisterResponder("GET", testBase+"v1/pos/push-pull/payments/42", capture(&got, 200, tt.body))
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
			if got.token != testToken || got.idemKey != "" || len(got.body) != 0 {
				t.Errorf("token %q, Idempotency-Key %q, body %q", got.token, got.idemKey, got.body)
			}
		})
	}
}

func TestPaymentsForbidden(t *testing.T) {
	t.Parallel()
	s, mt := newMockService(t)
	mt.RegisterResponder("GET", testBase+"v1/pos/push-pull/payments/7",
		httpmock.NewStringResponder(403, errorBody(client.CodeForbidden, "null")))
	if _, err := s.Payments(context.Background(), 7); !errors.Is(err, client.ErrForbidden) {
		t.Fatalf("err = %v, want 403001", err)
	}
}

func TestAcceptPayment(t *testing.T) {
	t.Parallel()
	s, mt := newMockService(t)
	var got captured
	mt.RegisterResponder("POST", testBase+"v1/pos/push-pull/accept-payment",
		capture(&got, 200, `{"paymentId":77,"status":"accepted",`+requestInfoJSON+`}`))
	res, err := s.AcceptPayment(context.Background(), 77)
	if err != nil {
		t.Fatalf("AcceptPayment: %v", err)
	}
	if diff := cmp.Diff(AcceptResult{PaymentID: 77, Status: "accepted", RequestInfo: wantRequestInfo}, res); diff != "" {
		t.Errorf("result (-want +got):\n%s", diff)
	}
	if string(got.body) != `{"paymentId":77}` || got.idemKey == "" {
		t.Errorf("body %s, Idempotency-Key %q", got.body, got.idemKey)
	}
}

func TestAcceptPaymentNotFound(t *testing.T) {
	t.Parallel()
	s, mt := newMockService(t)
	mt.RegisterResponder("POST", testBase+"v1/pos/push-pull/accept-payment",
		httpmock.NewStringResponder(404, errorBody(client.CodeNotFound, "null")))
	if _, err := s.AcceptPayment(context.Background(), 1); !errors.Is(err, client.ErrNotFound) {
		t.Fatalf("err = %v, want 404001", err)
	}
}

func TestHeartbeat(t *testing.T) {
	t.Parallel()
	s, mt := newMockService(t)
	var got captured
	mt.RegisterResponder("POST", testBase+"v1/pos/push-pull/heartbeat/42",
		capture(&got, 200, `{"status":"ok",`+requestInfoJSON+`}`))
	res, err := s.Heartbeat(context.Background(), 42)
	if err != nil {
		t.Fatalf("Heartbeat: %v", err)
	}
	if diff := cmp.Diff(HeartbeatResult{Status: "ok", RequestInfo: wantRequestInfo}, res); diff != "" {
		t.Errorf("result (-want +got):\n%s", diff)
	}
	if len(got.body) != 0 || got.contentType != "" {
		t.Errorf("heartbeat sent a body %q (Content-Type %q)", got.body, got.contentType)
	}
}

func TestCallsNeedAToken(t *testing.T) {
	t.Parallel()
	s, mt := newMockService(t, client.WithAccessToken(""))
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
	if n := mt.GetTotalCallCount(); n != 0 {
		t.Errorf("%d requests sent without a token", n)
	}
}

func TestPerCallToken(t *testing.T) {
	t.Parallel()
	s, mt := newMockService(t)
	var got captured
	mt.RegisterResponder("POST", testBase+"v1/pos/push-pull/heartbeat/9",
		capture(&got, 200, `{"status":"ok",`+requestInfoJSON+`}`))
	if _, err := s.Heartbeat(context.Background(), 9, client.WithAccessToken("other-terminal")); err != nil {
		t.Fatal(err)
	}
	if got.token != "other-terminal" {
		t.Errorf("token %q, want the per-call one", got.token)
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
