package contract_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/refserver/refservertest"
	"github.com/hospo-dev/hospo-go/sandbox"
)

// A refserver with injected faults fails the checks of the faulted
// endpoints, each by name, with the faulted answer as evidence.
func TestFailsWithInjectedFaults(t *testing.T) {
	t.Parallel()
	env := refservertest.Start(t)
	admin := sandbox.NewService(env.Client(t, client.WithAdminKey(env.AdminKey)))
	tests := []struct {
		fault sandbox.FaultRequest
		check string
		want  string
	}{
		{sandbox.FaultRequest{Method: "GET", PathPrefix: "/v1/user/me", Status: 503}, "wallet/get", "status: 503"},
		{sandbox.FaultRequest{Method: "POST", PathPrefix: "/payments/v1/payment", Status: 500}, "payments/create", "status: 500"},
		{sandbox.FaultRequest{Method: "POST", PathPrefix: "/v1/pos/push-pull/check", Status: 502, AfterCommit: true},
			"pos/push-check", "status: 502"},
		{sandbox.FaultRequest{Method: "GET", PathPrefix: "/v3/bill/", Status: 429}, "bills/get-scopes", "status: 429"},
	}
	for _, tt := range tests {
		if _, err := admin.AddFault(t.Context(), tt.fault); err != nil {
			t.Fatal(err)
		}
		rep := run(t, env, tt.check)
		out := text(t, rep)
		if rep.Passed() || !strings.Contains(out, "FAIL "+tt.check) || !strings.Contains(out, tt.want) {
			t.Errorf("with fault %+v: want FAIL %s showing %q:\n%s", tt.fault, tt.check, tt.want, out)
		}
		if err := admin.ClearFaults(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	// The faults gone, the same checks pass.
	var names []string
	for _, tt := range tests {
		names = append(names, tt.check)
	}
	if rep := run(t, env, names...); !rep.Passed() {
		t.Errorf("without faults:\n%s", text(t, rep))
	}
}

// deviation changes one kind of answer of the service.
type deviation struct {
	method, path string // the request it applies to: method and path prefix
	status       int    // a new status, when not 0
	header       func(h http.Header)
	edit         func(body map[string]any)
}

// deviatingProxy serves env through a proxy that applies d.
func deviatingProxy(t *testing.T, env *refservertest.Env, d deviation) string {
	t.Helper()
	target, err := url.Parse(env.URL)
	if err != nil {
		t.Fatal(err)
	}
	p := httputil.NewSingleHostReverseProxy(target)
	p.ModifyResponse = func(resp *http.Response) error {
		r := resp.Request
		if r.Method != d.method || !strings.HasPrefix(r.URL.Path, d.path) {
			return nil
		}
		if d.status != 0 {
			resp.StatusCode = d.status
		}
		if d.header != nil {
			d.header(resp.Header)
		}
		if d.edit == nil {
			return nil
		}
		data, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return err
		}
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			return err
		}
		d.edit(m)
		if data, err = json.Marshal(m); err != nil {
			return err
		}
		resp.Body = io.NopCloser(bytes.NewReader(data))
		resp.ContentLength = int64(len(data))
		resp.Header.Set("Content-Length", strconv.Itoa(len(data)))
		return nil
	}
	srv := httptest.NewServer(p)
	t.Cleanup(srv.Close)
	return srv.URL
}

// A service that differs from the contract in one field fails the check
// of that field, by name, saying which field differs and how.
func TestFailsAgainstDeviatingServer(t *testing.T) {
	t.Parallel()
	env := refservertest.Start(t)
	tests := []struct {
		name  string
		dev   deviation
		check string
		want  string
	}{
		{"apiVersion of the wallet", deviation{method: "GET", path: "/v1/user/me", edit: func(b map[string]any) {
			b["requestInfo"].(map[string]any)["apiVersion"] = 0
		}}, "wallet/get", "requestInfo.apiVersion: got 0, want 1"},
		{"billId dropped from a push", deviation{method: "POST", path: "/v1/pos/push-pull/check", edit: func(b map[string]any) {
			delete(b, "billId")
		}}, "pos/push-check", "billId: missing"},
		{"error code of no route", deviation{method: "GET", path: "/v9/", edit: func(b map[string]any) {
			b["code"] = 404002
		}}, "wire/no-such-route", "code: got 404002, want 404001"},
		{"Allow header without GET", deviation{method: "DELETE", path: "/v1/user/me", header: func(h http.Header) {
			h.Set("Allow", "POST")
		}}, "wire/method-not-allowed", `header Allow: got "POST", want GET listed and DELETE not`},
		{"no X-Request-Id", deviation{method: "GET", path: "/v2/payment/providerD/keys", header: func(h http.Header) {
			h.Del(client.HeaderRequestID)
		}}, "wallet/provider-d-key", "header X-Request-Id: missing"},
		{"payment answered 200", deviation{method: "POST", path: "/payments/v1/payment", status: http.StatusOK},
			"payments/create", "HTTP status: got 200, want 201"},
		{"gateway of a 404006", deviation{method: "POST", path: "/payments/v1/payment", edit: func(b map[string]any) {
			if cd, ok := b["contextData"].(map[string]any); ok {
				cd["gateway"] = "providerB"
			}
		}}, "payments/card-not-tokenised", `contextData.gateway: got "providerB", want "providerD"`},
		{"money with 3 decimals", deviation{method: "GET", path: "/v1/pos/push-pull/payments/", edit: func(b map[string]any) {
			for _, ps := range b["checks"].(map[string]any) {
				for _, p := range ps.([]any) {
					p.(map[string]any)["tip"] = json.Number("0.125")
				}
			}
		}}, "pos/payments-poll-pending", "money: more than 2 fraction digits"},
		{"secret without its prefix", deviation{method: "POST", path: "/v1/webhooks", edit: func(b map[string]any) {
			if s, ok := b["secret"].(string); ok {
				b["secret"] = strings.TrimPrefix(s, "whsec_")
			}
		}}, "webhooks/lifecycle", "secret: does not start with whsec_"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep := runURL(t, deviatingProxy(t, env, tt.dev), env.AdminKey, tt.check)
			out := text(t, rep)
			if rep.Passed() || !strings.Contains(out, "FAIL "+tt.check) || !strings.Contains(out, tt.want) {
				t.Errorf("want FAIL %s saying %q:\n%s", tt.check, tt.want, out)
			}
		})
	}
}
