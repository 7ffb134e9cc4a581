package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"testing"

	"github.com/hospo-dev/hospo-go/client"
)

func TestSetDemoPOS(t *testing.T) {
	t.Parallel()
	s, mt := newMockService(t)
	var rec recorder
	mt.RegisterResponder(http.MethodPut, testBase+"sandbox/locations/7/demo-pos", rec.json(200,
		`{"locationId":7,"mode":"fail-then-accept","failCount":2,"failuresLeft":2,"delayMs":0}`))

	tests := []struct {
		name string
		req  DemoPOSRequest
		body string
	}{
		{"fail then accept", DemoPOSRequest{Mode: DemoPOSFailThenAccept, FailCount: 2}, `{"mode":"fail-then-accept","failCount":2}`},
		{"slow", DemoPOSRequest{Mode: DemoPOSSlow, DelayMs: 1500}, `{"mode":"slow","delayMs":1500}`},
		{"mode only", DemoPOSRequest{Mode: DemoPOSOffline}, `{"mode":"offline"}`},
	}
	for _, tt := range tests {
		d, err := s.SetDemoPOS(context.Background(), 7, tt.req)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		c := rec.last(t)
		testAdminRequest(t, c, http.MethodPut, "/prefix/sandbox/locations/7/demo-pos")
		testBody(t, c, tt.body)
		want := DemoPOS{LocationID: 7, Mode: DemoPOSFailThenAccept, FailCount: 2, FailuresLeft: 2}
		if d != want {
			t.Errorf("%s: demo POS = %+v, want %+v", tt.name, d, want)
		}
	}
}

func TestSetDemoPOSValidation(t *testing.T) {
	t.Parallel()
	s, mt := newMockService(t)
	mt.RegisterResponder(http.MethodPut, testBase+"sandbox/locations/7/demo-pos",
		(&recorder{}).json(400, errorBody(client.CodeValidation, "", `{"mode":"must be one of accept, reject, fail-then-accept, slow, offline"}`)))
	_, err := s.SetDemoPOS(context.Background(), 7, DemoPOSRequest{Mode: "sleepy"})
	var ae *client.APIError
	if !errors.Is(err, client.ErrValidation) || !errors.As(err, &ae) || ae.FieldErrors()["mode"] == "" {
		t.Errorf("err = %v, want a 400002 naming mode", err)
	}
}

func TestDemoPOS(t *testing.T) {
	t.Parallel()
	s, mt := newMockService(t)
	var rec recorder
	mt.RegisterResponder(http.MethodGet, testBase+"sandbox/locations/7/demo-pos", rec.json(200,
		`{"locationId":7,"mode":"slow","failCount":0,"failuresLeft":0,"delayMs":250}`))
	d, err := s.DemoPOS(context.Background(), 7)
	if err != nil {
		t.Fatal(err)
	}
	testAdminRequest(t, rec.last(t), http.MethodGet, "/prefix/sandbox/locations/7/demo-pos")
	if want := (DemoPOS{LocationID: 7, Mode: DemoPOSSlow, DelayMs: 250}); d != want {
		t.Errorf("demo POS = %+v, want %+v", d, want)
	}
}

func TestDemoPOSMode(t *testing.T) {
	t.Parallel()
	for _, m := range []DemoPOSMode{DemoPOSAccept, DemoPOSReject, DemoPOSFailThenAccept, DemoPOSSlow, DemoPOSOffline} {
		if !m.Known() || m.String() != string(m) {
			t.Errorf("%q: Known %v String %q", m, m.Known(), m.String())
		}
	}
	// A mode this package does not know decodes and stays visible.
	var d DemoPOS
	if err := json.Unmarshal([]byte(`{"mode":"on-fire"}`), &d); err != nil || d.Mode.Known() || d.Mode.String() != "on-fire" {
		t.Errorf("unknown mode: %+v, %v", d, err)
	}
}
