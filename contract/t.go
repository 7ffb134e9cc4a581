package contract

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"strconv"
	"strings"

	"github.com/hospo-dev/hospo-go/client"
)

// T is what a check reports through, like testing.T: Errorf records a
// failure and goes on, Fatalf records one and ends the check, Skipf ends
// it as skipped. Every failure carries the latest request the check sent
// as its evidence.
type T struct {
	ctx      context.Context
	w        *world
	failures []Failure
	skip     string
	cleanups []func()
}

// Failure is one thing a check found wrong.
type Failure struct {
	// Message says what differs and how ("requestInfo.apiVersion: got 0,
	// want 1").
	Message string `json:"message"`
	// Exchange is the request the check had sent last, and its answer.
	Exchange *Exchange `json:"exchange,omitempty"`
}

// stopCheck is what Fatalf and Skipf panic with to end a check; the
// runner recovers it.
type stopCheck struct{}

// Context is the run's context: every call of a check takes it.
func (t *T) Context() context.Context { return t.ctx }

// Errorf records a failure and lets the check go on.
func (t *T) Errorf(format string, args ...any) {
	f := Failure{Message: fmt.Sprintf(format, args...)}
	if ex, ok := t.w.rec.last(); ok {
		f.Exchange = &ex
	}
	t.failures = append(t.failures, f)
}

// Fatalf records a failure and ends the check.
func (t *T) Fatalf(format string, args ...any) {
	t.Errorf(format, args...)
	panic(stopCheck{})
}

// Skipf ends the check as skipped, saying why.
func (t *T) Skipf(format string, args ...any) {
	t.skip = fmt.Sprintf(format, args...)
	panic(stopCheck{})
}

// Cleanup registers fn to run when the check ends, whatever its outcome,
// to remove what the check made (last registered, first run).
func (t *T) Cleanup(fn func()) { t.cleanups = append(t.cleanups, fn) }

// Failed reports whether the check has failed so far.
func (t *T) Failed() bool { return len(t.failures) > 0 }

// ok ends the check with a failure when err is not nil: what names the
// step ("push the check").
func (t *T) ok(err error, what string) {
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// equal records a failure unless got equals want: field names what is
// compared, as a JSON path where there is one.
func (t *T) equal(field string, got, want any) bool {
	if reflect.DeepEqual(got, want) {
		return true
	}
	t.Errorf("%s: got %v, want %v", field, show(got), show(want))
	return false
}

// show prints v for a message: strings quoted, pointers followed, JSON
// numbers as they were written.
func show(v any) string {
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Pointer {
		if rv.IsNil() {
			return "null"
		}
		v = rv.Elem().Interface()
	}
	if n, ok := v.(json.Number); ok {
		return n.String()
	}
	if s, ok := v.(fmt.Stringer); ok {
		v = s.String()
	}
	if s, ok := v.(string); ok {
		return fmt.Sprintf("%q", s)
	}
	return fmt.Sprintf("%v", v)
}

// last returns the latest exchange of the check, ending it if there is
// none.
func (t *T) last() Exchange {
	ex, ok := t.w.rec.last()
	if !ok {
		t.Fatalf("no request was sent")
	}
	return ex
}

// shape records a failure for each way the latest response's body breaks s.
func (t *T) shape(s shape) {
	ex := t.last()
	for _, p := range shapeProblems(ex.raw, s) {
		t.Errorf("%s", p)
	}
}

// body decodes the latest response's body.
func (t *T) body() map[string]any {
	var m map[string]any
	dec := json.NewDecoder(strings.NewReader(string(t.last().raw)))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("body is not a JSON object: %v", err)
	}
	return m
}

// requestInfo checks the latest response's requestInfo: present and
// typed, apiVersion the answering endpoint's version (contract section 1),
// accessTokenStatus as given ("" when the endpoint takes no access
// token), and an X-Request-Id header.
func (t *T) requestInfo(apiVersion int, tokenStatus string) {
	t.shape(requestInfoShape)
	ri := t.body()["requestInfo"]
	m, _ := ri.(map[string]any)
	if m == nil {
		return
	}
	if n, ok := m["apiVersion"].(json.Number); ok {
		t.equal("requestInfo.apiVersion", n, json.Number(strconv.Itoa(apiVersion)))
	}
	if tokenStatus != "" {
		t.equal("requestInfo.accessTokenStatus", m["accessTokenStatus"], tokenStatus)
	}
	t.requestID()
}

// requestID checks that the latest response has an X-Request-Id header.
func (t *T) requestID() {
	if t.last().RequestID == "" {
		t.Errorf("header %s: missing", client.HeaderRequestID)
	}
}

// wantError checks that err is the service's error code, answered with
// the code's HTTP status (code / 1000) and an error body of interface
// section 7 whose requestInfo.apiVersion is 0. It ends the check when err
// is not an API error at all, and returns the error for further checks.
func (t *T) wantError(err error, code client.Code) *client.APIError {
	if err == nil {
		t.Fatalf("the call succeeded; want error %d", code)
	}
	var apiErr *client.APIError
	if !errors.As(err, &apiErr) {
		t.Fatalf("want error %d, got %v", code, err)
	}
	t.equal("HTTP status", apiErr.HTTPStatus, code.HTTPStatus())
	t.equal("code", apiErr.Code, code)
	t.errorBody()
	return apiErr
}

// errorBody checks the latest response's body is an error body: shape,
// error true, apiVersion 0, a message, and an X-Request-Id header.
func (t *T) errorBody() {
	t.shape(errorShape)
	b := t.body()
	t.equal("error", b["error"], true)
	if n, ok := b["code"].(json.Number); ok {
		t.equal("code matches the HTTP status", n.String()[:min(3, len(n.String()))], fmt.Sprint(t.last().Status))
	}
	if m, ok := b["requestInfo"].(map[string]any); ok {
		if n, ok := m["apiVersion"].(json.Number); ok {
			t.equal("requestInfo.apiVersion", n, json.Number("0"))
		}
	}
	if s, _ := b["message"].(string); s == "" {
		t.Errorf("message: empty")
	}
	t.requestID()
}

// contextData decodes the error's contextData, ending the check if it is
// not an object.
func (t *T) contextData(e *client.APIError) map[string]any {
	var m map[string]any
	if err := json.Unmarshal(e.ContextData, &m); err != nil || m == nil {
		t.Fatalf("contextData: got %s, want an object", orNull(e.ContextData))
	}
	return m
}

func orNull(b []byte) string {
	if len(b) == 0 {
		return "null"
	}
	return string(b)
}

// wantFields checks that err is a 400002 whose contextData names each of
// the given JSON paths.
func (t *T) wantFields(err error, paths ...string) {
	t.wantError(err, client.CodeValidation)
	t.named(paths...)
}

// named checks that the latest response's contextData names each of the
// given JSON paths, as a 400002 does.
func (t *T) named(paths ...string) {
	fields, _ := field(t.body(), "contextData").(map[string]any)
	for _, p := range paths {
		if _, ok := fields[p]; !ok {
			t.Errorf("contextData: %q not named; got %v", p, fields)
		}
	}
}

// status checks the latest response's status.
func (t *T) status(want int) {
	t.equal("HTTP status", t.last().Status, want)
}

// header returns a header of the latest response.
func (t *T) header(name string) string { return http.Header(t.last().header).Get(name) }
