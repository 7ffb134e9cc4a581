package sandbox

import (
	"context"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestAddFault(t *testing.T) {
	t.Parallel()
	s, mt := newMockService(t)
	var rec recorder
	mt.RegisterResponder(http.MethodPost, testBase+"sandbox/faults", rec.json(201,
		`{"id":4,"method":"POST","pathPrefix":"/v2/payment/","status":503,"count":2,"latencyMs":0,"afterCommit":true,"remaining":2}`))

	tests := []struct {
		name string
		req  FaultRequest
		body string
	}{
		{"every field", FaultRequest{Method: "post", PathPrefix: "/v2/payment/", Status: 503, Count: 2, LatencyMs: 10, AfterCommit: true},
			`{"method":"post","pathPrefix":"/v2/payment/","status":503,"count":2,"latencyMs":10,"afterCommit":true}`},
		// Zero fields are left out, so the server's defaults apply (count 1, any method).
		{"defaults", FaultRequest{PathPrefix: "/v1/", Status: 500}, `{"pathPrefix":"/v1/","status":500}`},
	}
	for _, tt := range tests {
		f, err := s.AddFault(context.Background(), tt.req)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		c := rec.last(t)
		testAdminRequest(t, c, http.MethodPost, "/prefix/sandbox/faults")
		testBody(t, c, tt.body)
		want := Fault{ID: 4, Method: "POST", PathPrefix: "/v2/payment/", Status: 503, Count: 2, AfterCommit: true, Remaining: 2}
		if f != want {
			t.Errorf("%s: fault = %+v, want %+v", tt.name, f, want)
		}
	}
}

func TestFaults(t *testing.T) {
	t.Parallel()
	s, mt := newMockService(t)
	var rec recorder
	mt.RegisterResponder(http.MethodGet, testBase+"sandbox/faults", rec.json(200,
		`{"faults":[{"id":1,"method":"","pathPrefix":"/v1/","status":0,"count":1,"latencyMs":250,"afterCommit":false,"remaining":1}]}`))

	fs, err := s.Faults(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	testAdminRequest(t, rec.last(t), http.MethodGet, "/prefix/sandbox/faults")
	want := []Fault{{ID: 1, PathPrefix: "/v1/", Count: 1, LatencyMs: 250, Remaining: 1}}
	if d := cmp.Diff(want, fs); d != "" {
		t.Errorf("faults (-want +got):\n%s", d)
	}
}

func TestClearFaults(t *testing.T) {
	t.Parallel()
	s, mt := newMockService(t)
	var rec recorder
	mt.RegisterResponder(http.MethodDelete, testBase+"sandbox/faults", rec.respond(204, "", ""))

	if err := s.ClearFaults(context.Background()); err != nil {
		t.Fatal(err)
	}
	c := rec.last(t)
	testAdminRequest(t, c, http.MethodDelete, "/prefix/sandbox/faults")
	testBody(t, c, "")
}
