package openapi_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/hospo-dev/hospo-go/refserver/openapi"
)

// collector is a Reporter that keeps what it is told.
type collector struct {
	mu   sync.Mutex
	msgs []string
}

func (c *collector) Errorf(format string, args ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.msgs = append(c.msgs, fmt.Sprintf(format, args...))
}

func (c *collector) all() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return strings.Join(c.msgs, "\n")
}

const requestInfo = `"requestInfo": {"accessTokenStatus": "authenticated", "serverTime": 1700000000, "requestId": null, "apiVersion": 1}`

// serve answers every request with status and body, with the X-Request-Id
// header unless noRequestID.
func serve(status int, body string, noRequestID bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !noRequestID {
			w.Header().Set("X-Request-Id", "req-1")
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		fmt.Fprint(w, body)
	})
}

func TestValidatingHandler(t *testing.T) {
	t.Parallel()
	heartbeatOK := `{"status": "ok", ` + requestInfo + `}`
	tests := []struct {
		name        string
		method      string
		target      string
		body        string
		handler     http.Handler
		opts        []openapi.CheckOption
		clientGone  bool     // the request's context has ended before it is served
		wantReports []string // substrings; none means no report
	}{
		{
			name: "conforming exchange", method: "POST", target: "/v1/pos/push-pull/heartbeat/7?accessToken=secret",
			handler: serve(200, heartbeatOK, false),
		},
		{
			name: "string where the document says integer", method: "GET", target: "/v1/location/7",
			handler: serve(200, `{"location": {"locationId": "7", "name": "A", "locationPaymentDetails": {"gateway": "providerB"},
				"posStatus": "online", "lastHeartbeat": null}, `+requestInfo+`}`, false),
			wantReports: []string{"GET /v1/location/7 -> 200: response", "location.locationId: value must be an integer"},
		},
		{
			name: "undocumented member", method: "POST", target: "/v1/pos/push-pull/heartbeat/7",
			handler:     serve(200, `{"status": "ok", "online": true, `+requestInfo+`}`, false),
			wantReports: []string{"online: unknown member"},
		},
		{
			name: "missing X-Request-Id", method: "POST", target: "/v1/pos/push-pull/heartbeat/7",
			handler:     serve(200, heartbeatOK, true),
			wantReports: []string{`response header "X-Request-Id" missing`},
		},
		{
			name: "undocumented status", method: "GET", target: "/v1/location/7",
			handler:     serve(409, `{}`, false),
			wantReports: []string{"-> 409: response", "status is not supported"},
		},
		{
			name: "error body with a code of another status", method: "GET", target: "/v1/location/7",
			handler: serve(404, `{"error": true, "code": 404006, "message": "m", "contextData": null, "displayString": null,
				"requestInfo": {"accessTokenStatus": "missing", "serverTime": 1, "requestId": null, "apiVersion": 0}}`, false),
			wantReports: []string{"code: must be one of 404001"},
		},
		{
			name: "invalid request the server accepted", method: "POST", target: "/v1/pos/push-pull/accept-payment",
			body: `{"paymentId": -1}`, handler: serve(200, `{"paymentId": 1, "status": "accepted", `+requestInfo+`}`, false),
			wantReports: []string{"request body: paymentId: number must be at least 1"},
		},
		{
			name: "invalid request the server rejected is a negative test", method: "POST",
			target: "/v1/pos/push-pull/accept-payment", body: `{}`,
			handler: serve(400, `{"error": true, "code": 400002, "message": "Validation failed.", "contextData": {"paymentId": "required"},
				"displayString": null, "requestInfo": {"accessTokenStatus": "authenticated", "serverTime": 1, "requestId": null, "apiVersion": 0}}`, false),
		},
		{
			name: "request checks off", method: "POST", target: "/v1/pos/push-pull/accept-payment",
			body: `{"paymentId": -1}`, handler: serve(200, `{"paymentId": 1, "status": "accepted", `+requestInfo+`}`, false),
			opts: []openapi.CheckOption{openapi.WithoutRequestChecks()},
		},
		{
			name: "undocumented route", method: "GET", target: "/v1/secret-route",
			handler: serve(200, `{}`, false), wantReports: []string{"GET /v1/secret-route -> 200: route: not in the document"},
		},
		{
			name: "unknown route answered 404", method: "GET", target: "/v1/nothing",
			handler: serve(404, `{}`, false),
		},
		{
			name: "unknown route failing with an injected fault", method: "GET", target: "/v1/nothing",
			handler: serve(503, `{}`, false),
		},
		{
			name: "no answer to a client that went away", method: "POST", target: "/v1/pos/push-pull/heartbeat/7",
			handler: http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}), clientGone: true,
		},
		{
			name: "no answer to a client still waiting", method: "POST", target: "/v1/pos/push-pull/heartbeat/7",
			handler:     http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}),
			wantReports: []string{"POST /v1/pos/push-pull/heartbeat/7 -> 200: response"},
		},
		{
			name: "an answer to a client that went away is still checked", method: "POST", target: "/v1/pos/push-pull/heartbeat/7",
			handler: serve(200, heartbeatOK, true), clientGone: true,
			wantReports: []string{`response header "X-Request-Id" missing`},
		},
		{
			name: "ignored prefix", method: "GET", target: "/console/",
			handler: serve(200, `<html>`, false), opts: []openapi.CheckOption{openapi.IgnorePathPrefix("/console/")},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var c collector
			h := openapi.ValidatingHandler(&c, tt.handler, tt.opts...)
			var req *http.Request
			if tt.body != "" {
				req = httptest.NewRequest(tt.method, tt.target, strings.NewReader(tt.body))
				req.Header.Set("Content-Type", "application/json")
			} else {
				req = httptest.NewRequest(tt.method, tt.target, nil)
			}
			if tt.clientGone {
				ctx, cancel := context.WithCancel(req.Context())
				cancel()
				req = req.WithContext(ctx)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)

			got := c.all()
			if len(tt.wantReports) == 0 && got != "" {
				t.Errorf("unexpected report:\n%s", got)
			}
			for _, want := range tt.wantReports {
				if !strings.Contains(got, want) {
					t.Errorf("report %q lacks %q", got, want)
				}
			}
			if strings.Contains(got, "secret") && !strings.Contains(tt.target, "secret-route") {
				t.Errorf("report leaks the query: %s", got)
			}
		})
	}
}

// The handler passes the response through untouched while it checks it.
func TestValidatingHandlerPassesThrough(t *testing.T) {
	t.Parallel()
	body := `{"status": "ok", ` + requestInfo + `}`
	h := openapi.ValidatingHandler(t, serve(200, body, false))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("POST", "/v1/pos/push-pull/heartbeat/1", nil))
	if rec.Code != 200 || rec.Body.String() != body || rec.Header().Get("X-Request-Id") != "req-1" {
		t.Errorf("got %d %q %v", rec.Code, rec.Body, rec.Header())
	}
}
