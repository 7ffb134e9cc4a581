package sandbox

import (
	"context"
	"net/http"

	"github.com/hospo-dev/hospo-go/client"
)

// Fault is an injected failure as the sandbox holds it: the next Count
// requests whose method and path match wait LatencyMs, then fail with
// Status and the error code Status*1000+1. The admin endpoints are never
// faulted, so a test can always clear what it set.
type Fault struct {
	// ID numbers the faults in the order they were added.
	ID int64 `json:"id"`
	// Method is the HTTP method matched, in upper case; "" or "*" match
	// any method.
	Method string `json:"method"`
	// PathPrefix is matched against the start of the URL path.
	PathPrefix string `json:"pathPrefix"`
	// Status is the HTTP status of the failure, 400-599; 0 only delays the
	// request, which then proceeds.
	Status int `json:"status"`
	// Count is how many matching requests the fault was added for.
	Count int `json:"count"`
	// LatencyMs is how long each matching request waits first, in
	// milliseconds.
	LatencyMs int `json:"latencyMs"`
	// AfterCommit carries the request out and commits it, and replaces
	// only its response: a response lost on the way back, the case that
	// idempotency keys exist for.
	AfterCommit bool `json:"afterCommit"`
	// Remaining is how many matches are left; the fault is gone at 0.
	Remaining int `json:"remaining"`
}

// FaultRequest is the body of POST /sandbox/faults. A fault needs a Status,
// a LatencyMs or both.
type FaultRequest struct {
	// Method is the HTTP method to match; "" or "*" match any.
	Method string `json:"method,omitempty"`
	// PathPrefix is the start of the URL paths to match, such as
	// "/v2/payment/"; required. It must not name an admin endpoint.
	PathPrefix string `json:"pathPrefix"`
	// Status is the HTTP status to fail with, 400-599; 0 for latency only.
	Status int `json:"status,omitempty"`
	// Count is how many matching requests fail, 1 to 1000; 0 means 1.
	Count int `json:"count,omitempty"`
	// LatencyMs delays each matching request, up to 60000 milliseconds.
	LatencyMs int `json:"latencyMs,omitempty"`
	// AfterCommit carries each matching request out before replacing its
	// response (see Fault.AfterCommit).
	AfterCommit bool `json:"afterCommit,omitempty"`
}

// FaultList is the body of GET /sandbox/faults.
type FaultList struct {
	Faults []Fault `json:"faults"`
}

// Faults returns the active faults in the order they were added.
//
// GET /sandbox/faults
func (s *Service) Faults(ctx context.Context, opts ...client.Option) ([]Fault, error) {
	var out FaultList
	_, err := s.c.Do(ctx, &client.Request{
		Method: http.MethodGet,
		Route:  "/sandbox/faults",
		Auth:   client.AuthAdminKey,
	}, &out, opts...)
	if err != nil {
		return nil, err
	}
	return out.Faults, nil
}

// AddFault makes the next matching requests fail or wait, to test retries,
// timeouts and idempotency against the sandbox. It returns the fault as
// registered. A bad request is a 400002 naming each failing field.
//
// POST /sandbox/faults
func (s *Service) AddFault(ctx context.Context, req FaultRequest, opts ...client.Option) (Fault, error) {
	var out Fault
	_, err := s.c.Do(ctx, &client.Request{
		Method: http.MethodPost,
		Route:  "/sandbox/faults",
		Body:   req,
		Auth:   client.AuthAdminKey,
	}, &out, opts...)
	if err != nil {
		return Fault{}, err
	}
	return out, nil
}

// ClearFaults removes every fault.
//
// DELETE /sandbox/faults
func (s *Service) ClearFaults(ctx context.Context, opts ...client.Option) error {
	_, err := s.c.Do(ctx, &client.Request{
		Method: http.MethodDelete,
		Route:  "/sandbox/faults",
		Auth:   client.AuthAdminKey,
	}, nil, opts...)
	return err
}
