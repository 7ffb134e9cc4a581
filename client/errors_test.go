package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/jarcoal/httpmock"

	"github.com/hospo-dev/hospo-go/internal/sdktest"
)

func ptr[T any](v T) *T { return &v }

func TestAPIErrorDecode(t *testing.T) {
	t.Parallel()
	c, m := newMockClient(t, WithAccessToken("user-token"))
	body := `{"error":true,"code":400002,"message":"Validation failed.",
		"contextData":{"menuItems[0].price":"required","amount":"more than 2 fraction digits"},
		"displayString":"Please check the card details.",
		"requestInfo":{"accessTokenStatus":"authenticated","serverTime":1700000000,"requestId":null,"apiVersion":0}}`
	m.Handle("POST", "v1/pos/push-pull/check", func(*http.Request) (*http.Response, error) {
		resp := httpmock.NewStringResponse(400, body)
		resp.Header.Set(HeaderRequestID, "rid-9")
		return resp, nil
	})
	_, err := c.Do(context.Background(), &Request{Method: "POST", Path: "v1/pos/push-pull/check", Auth: AuthAccessToken, Body: struct{}{}}, nil)
	var got *APIError
	if !errors.As(err, &got) {
		t.Fatalf("err = %v, want *APIError", err)
	}
	want := &APIError{
		HTTPStatus:    400,
		Code:          CodeValidation,
		Message:       "Validation failed.",
		DisplayString: ptr("Please check the card details."),
		ContextData:   json.RawMessage(`{"menuItems[0].price":"required","amount":"more than 2 fraction digits"}`),
		RequestInfo:   RequestInfo{AccessTokenStatus: "authenticated", ServerTime: 1700000000, APIVersion: 0},
		RequestID:     "rid-9",
		Method:        "POST",
		Path:          "/prefix/v1/pos/push-pull/check",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("APIError (-want +got):\n%s", diff)
	}
	wantFields := map[string]string{"menuItems[0].price": "required", "amount": "more than 2 fraction digits"}
	if diff := cmp.Diff(wantFields, got.FieldErrors()); diff != "" {
		t.Errorf("FieldErrors (-want +got):\n%s", diff)
	}
	if !errors.Is(err, ErrValidation) || errors.Is(err, ErrMalformedJSON) {
		t.Errorf("errors.Is mismatch for %v", err)
	}
	if got, want := err.Error(), "hospo: POST /prefix/v1/pos/push-pull/check: HTTP 400: 400002 Validation failed: amount: more than 2 fraction digits; menuItems[0].price: required (request id rid-9)"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

// TestErrorsIsEveryCode checks each code of the catalogue against each
// sentinel: exactly the matching one must match.
func TestErrorsIsEveryCode(t *testing.T) {
	t.Parallel()
	sentinels := map[Code]error{
		CodeMalformedJSON: ErrMalformedJSON, CodeValidation: ErrValidation, CodeInvalidQuery: ErrInvalidQuery,
		CodeAccessTokenMissing: ErrAccessTokenMissing, CodeAccessTokenInvalid: ErrAccessTokenInvalid,
		CodeAPIKeyMissing: ErrAPIKeyMissing, CodeAPIKeyInvalid: ErrAPIKeyInvalid, CodeAdminKeyInvalid: ErrAdminKeyInvalid,
		CodePaymentDeclined: ErrPaymentDeclined, CodeForbidden: ErrForbidden, CodeNotFound: ErrNotFound,
		CodeCardNotTokenised: ErrCardNotTokenised, CodeMethodNotAllowed: ErrMethodNotAllowed, CodeFulfillmentAlreadySet: ErrFulfillmentAlreadySet,
		CodeAmountExceedsOutstanding: ErrAmountExceedsOutstanding, CodeLocationOffline: ErrLocationOffline,
		CodeIdempotencyKeyReused: ErrIdempotencyKeyReused, CodeCardNotUsable: ErrCardNotUsable,
		CodeBodyTooLarge: ErrBodyTooLarge, CodeUnsupportedMediaType: ErrUnsupportedMediaType,
		CodeTooManyRequests: ErrTooManyRequests, CodeInternal: ErrInternal,
	}
	if len(sentinels) != len(Codes()) {
		t.Fatalf("%d sentinels for %d codes", len(sentinels), len(Codes()))
	}
	c, m := newMockClient(t, WithMaxRetries(0))
	for _, code := range Codes() {
		if !code.Known() || code.Message() == "" || code.HTTPStatus() != int(code)/1000 {
			t.Errorf("code %d: Known=%v Message=%q HTTPStatus=%d", code, code.Known(), code.Message(), code.HTTPStatus())
		}
		path := fmt.Sprintf("v1/code/%d", code)
		m.Handle("GET", path, sdktest.ErrorResponder(code))
		_, err := c.Do(context.Background(), &Request{Path: path}, nil)
		var apiErr *APIError
		if !errors.As(err, &apiErr) || apiErr.Code != code || apiErr.HTTPStatus != code.HTTPStatus() {
			t.Errorf("code %d: err = %#v", code, err)
			continue
		}
		for other, sentinel := range sentinels {
			if got, want := errors.Is(err, sentinel), other == code; got != want {
				t.Errorf("errors.Is(%d error, %v) = %v, want %v", code, sentinel, got, want)
			}
		}
	}
}

func TestNonJSONErrorBody(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 1000)
	tests := []struct {
		name       string
		status     int
		body       string
		wantSubstr string
		notSubstr  string
	}{
		{"HTML 502", 502, "<html><head><title>502 Bad Gateway</title></head>\n<body>\n<center>nginx</center></body></html>", "502 Bad Gateway", "\n"},
		{"empty", 503, "", "(empty body)", ""},
		{"JSON without code", 500, `{"message":"upstream"}`, `{"message":"upstream"}`, ""},
		{"long body truncated", 502, long, "xxx...", long},
		{"secret echoed by proxy", 502, "bad request GET /v1/user/me?accessToken=user-token-0123456789 from proxy", "accessToken=REDACTED", "user-token-0123456789"},
		{"invalid UTF-8", 502, "bad \xff\xfe body", "bad \uFFFD", "\xff"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, m := newMockClient(t, WithMaxRetries(0), WithAccessToken("user-token-0123456789"))
			m.Handle("GET", "v1/thing", httpmock.NewStringResponder(tt.status, tt.body))
			_, err := c.Do(context.Background(), &Request{Path: "v1/thing", Auth: AuthAccessToken}, nil)
			var apiErr *APIError
			if !errors.As(err, &apiErr) {
				t.Fatalf("err = %v, want *APIError", err)
			}
			if apiErr.HTTPStatus != tt.status || apiErr.Code != 0 {
				t.Errorf("status %d code %d", apiErr.HTTPStatus, apiErr.Code)
			}
			msg := err.Error()
			if !strings.Contains(msg, tt.wantSubstr) || (tt.notSubstr != "" && strings.Contains(msg, tt.notSubstr)) {
				t.Errorf("Error() = %q, want it to contain %q and not %q", msg, tt.wantSubstr, tt.notSubstr)
			}
			if len(msg) > 300 || !utf8.ValidString(msg) {
				t.Errorf("Error() is %d bytes, valid UTF-8 %v", len(msg), utf8.ValidString(msg))
			}
			for _, code := range Codes() {
				if errors.Is(err, code) {
					t.Errorf("a foreign body matched %v", code)
				}
			}
		})
	}
}

func TestFieldErrorsEdgeCases(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		e    APIError
		want map[string]string
	}{
		{"not a validation error", APIError{Code: CodeNotFound, ContextData: json.RawMessage(`{"a":"b"}`)}, nil},
		{"no context", APIError{Code: CodeValidation}, nil},
		{"array context", APIError{Code: CodeValidation, ContextData: json.RawMessage(`["a"]`)}, nil},
		{"non-string reason kept", APIError{Code: CodeValidation, ContextData: json.RawMessage(`{"a":{"min":1},"b":"required"}`)}, map[string]string{"a": `{"min":1}`, "b": "required"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tt.want, tt.e.FieldErrors()); diff != "" {
				t.Errorf("FieldErrors (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDecodeAPIErrorFields(t *testing.T) {
	t.Parallel()
	noRedact := func(s string) string { return s }
	h := http.Header{"Retry-After": {"12"}, HeaderRequestID: {"r"}}
	got := decodeAPIError(429, h, []byte(`{"error":true,"code":429001,"message":"Too many requests.","contextData":null,"displayString":{"en":"Slow down"},"requestInfo":{"apiVersion":0}}`), noRedact)
	want := &APIError{HTTPStatus: 429, Code: CodeTooManyRequests, Message: "Too many requests.", DisplayString: ptr(`{"en":"Slow down"}`), RequestID: "r", RetryAfter: 12 * time.Second}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// A 405 keeps the methods its Allow header lists.
func TestDecodeAPIErrorKeepsAllow(t *testing.T) {
	t.Parallel()
	h := http.Header{"Allow": {"GET, HEAD", "OPTIONS"}}
	got := decodeAPIError(405, h, []byte(`{"error":true,"code":405001,"message":"Method not allowed."}`), func(s string) string { return s })
	if diff := cmp.Diff([]string{"GET", "HEAD", "OPTIONS"}, got.Allow); diff != "" {
		t.Errorf("Allow (-want +got):\n%s", diff)
	}
}

func TestParseRetryAfter(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	tests := []struct {
		in   string
		want time.Duration
	}{
		{"", 0}, {"0", 0}, {"-3", 0}, {"5", 5 * time.Second}, {" 5 ", 5 * time.Second}, {"soon", 0},
		{now.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second},
		{now.Add(-time.Hour).Format(http.TimeFormat), 0},
		{"99999999999999999", 24 * time.Hour},
	}
	for _, tt := range tests {
		if got := parseRetryAfter(tt.in, now); got != tt.want {
			t.Errorf("parseRetryAfter(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

// FuzzDecodeError feeds arbitrary bodies to the error decoder: it must not
// panic, must keep the status, and must keep its text short, valid UTF-8 and
// free of the credential.
func FuzzDecodeError(f *testing.F) {
	for _, code := range Codes() {
		f.Add(code.HTTPStatus(), []byte(sdktest.ErrorBody(code, "")))
	}
	f.Add(502, []byte("<html>502 Bad Gateway</html>"))
	f.Add(400, []byte(`{"code":400002,"contextData":{"a":1},"displayString":[1]}`))
	f.Add(400, []byte(`{"code":"400002"}`))
	f.Add(500, []byte(`{"code":1e400}`))
	f.Add(500, []byte("accessToken=fuzz-secret-token-0001"))
	f.Add(0, []byte{})
	const secret = "fuzz-secret-token-0001"
	red := redactor{secrets: [3]string{secret}}
	f.Fuzz(func(t *testing.T, status int, body []byte) {
		e := decodeAPIError(status, http.Header{}, body, red.string)
		if e.HTTPStatus != status {
			t.Fatalf("status %d, want %d", e.HTTPStatus, status)
		}
		msg := e.Error()
		if e.Code == 0 && len(e.Message) > maxSnippet+len("non-JSON error body: ...") {
			t.Fatalf("snippet of %d bytes", len(e.Message))
		}
		if e.Code == 0 && !utf8.ValidString(msg) {
			t.Fatalf("invalid UTF-8: %q", msg)
		}
		if strings.Contains(msg, secret) {
			t.Fatalf("secret in %q", msg)
		}
		_ = e.FieldErrors()
		_ = errors.Is(e, ErrValidation)
	})
}

func TestCodeText(t *testing.T) {
	t.Parallel()
	tests := []struct {
		c    Code
		want string
	}{
		{CodeCardNotTokenised, "404006 Payment card not tokenised."},
		{Code(418001), "error code 418001"},
	}
	for _, tt := range tests {
		if got := tt.c.Error(); got != tt.want {
			t.Errorf("Code(%d).Error() = %q, want %q", tt.c, got, tt.want)
		}
	}
	if Code(418001).Known() || Code(418001).Message() != "" {
		t.Error("unknown code reported as known")
	}
	codes := Codes()
	for i := 1; i < len(codes); i++ {
		if codes[i] <= codes[i-1] {
			t.Errorf("Codes not ascending at %d: %d after %d", i, codes[i], codes[i-1])
		}
	}
}

// TestAPIErrorString checks what Error says for each code whose contextData
// tells the caller what to do.
func TestAPIErrorString(t *testing.T) {
	t.Parallel()
	many := map[string]string{}
	for i := range 12 {
		many[fmt.Sprintf("menuItems[%02d].price", i)] = "required"
	}
	manyJSON, _ := json.Marshal(many)
	tests := []struct {
		name string
		err  APIError
		want string
	}{
		{"plain", APIError{HTTPStatus: 401, Code: CodeAccessTokenInvalid, Message: "Access token invalid.", Method: "GET", Path: "/v1/user/me"},
			"hospo: GET /v1/user/me: HTTP 401: 401002 Access token invalid."},
		{"no call known", APIError{HTTPStatus: 502, Message: "non-JSON error body: <html>"},
			"hospo: HTTP 502: non-JSON error body: <html>"},
		{"validation, capped", APIError{HTTPStatus: 400, Code: CodeValidation, Message: "Validation failed.", ContextData: manyJSON, Method: "POST", Path: "/v1/pos/push-pull/check", RequestID: "r1"},
			"hospo: POST /v1/pos/push-pull/check: HTTP 400: 400002 Validation failed: menuItems[00].price: required; menuItems[01].price: required; menuItems[02].price: required; menuItems[03].price: required; menuItems[04].price: required; menuItems[05].price: required; menuItems[06].price: required; menuItems[07].price: required; menuItems[08].price: required; menuItems[09].price: required; and 2 more (see FieldErrors) (request id r1)"},
		{"card not tokenised", APIError{HTTPStatus: 404, Code: CodeCardNotTokenised, Message: "Payment card not tokenised.", ContextData: json.RawMessage(`{"gateway":"providerD"}`), Method: "POST", Path: "/payments/v1/payment"},
			"hospo: POST /payments/v1/payment: HTTP 404: 404006 Payment card not tokenised: the card has no providerD token; add one for providerD (wallet.Service.AddCard) or pay with wallet.Service.PayWithRecovery"},
		{"location offline", APIError{HTTPStatus: 409, Code: CodeLocationOffline, Message: "Location offline.", ContextData: json.RawMessage(`{"lastHeartbeat":1700000000,"offlineAfterSeconds":360}`), Method: "POST", Path: "/payments/v1/payment"},
			"hospo: POST /payments/v1/payment: HTTP 409: 409003 Location offline: last heartbeat 2023-11-14T22:13:20Z; the location's POS must send a heartbeat in the last 6m0s (possync.Service.Heartbeat, or a running possync.Agent) before it takes payments"},
		{"location never online", APIError{HTTPStatus: 409, Code: CodeLocationOffline, Message: "Location offline.", ContextData: json.RawMessage(`{"lastHeartbeat":null,"offlineAfterSeconds":360}`)},
			"hospo: HTTP 409: 409003 Location offline: last heartbeat never; the location's POS must send a heartbeat in the last 6m0s (possync.Service.Heartbeat, or a running possync.Agent) before it takes payments"},
		{"no such route", APIError{HTTPStatus: 404, Code: CodeNotFound, Message: "No such route.", ContextData: json.RawMessage(`{"route":"GET /api/v1/user/me"}`), Method: "GET", Path: "/api/v1/user/me"},
			"hospo: GET /api/v1/user/me: HTTP 404: 404001 No such route: no route GET /api/v1/user/me; check the client's base URL and its path"},
		{"not found, no route", APIError{HTTPStatus: 404, Code: CodeNotFound, Message: "Card not found.", Method: "GET", Path: "/v1/card/9"},
			"hospo: GET /v1/card/9: HTTP 404: 404001 Card not found."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.err.Error(); got != tt.want {
				t.Errorf("Error() =\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}
