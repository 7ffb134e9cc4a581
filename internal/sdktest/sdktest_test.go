package sdktest_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/hospo-dev/hospo-go/internal/sdktest"
)

// code stands in for client.Code, which this package's tests cannot import
// without a cycle through the client's own tests.
type code int

func (c code) HTTPStatus() int { return int(c) / 1000 }
func (c code) Message() string { return "Not found." }

func TestAbsolutePathMisses(t *testing.T) {
	t.Parallel()
	m := sdktest.NewMock()
	rec := m.Reply("GET", "v1/thing", 200, `{}`)
	if _, err := m.HTTPClient.Get("https://api.test/v1/thing"); err == nil {
		t.Error("a request outside the prefix was answered")
	}
	resp, err := m.HTTPClient.Get(sdktest.BaseURL + "v1/thing?q=1")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if rec.Count() != 1 || m.Calls() != 2 {
		t.Errorf("recorded %d, calls %d; want 1 and 2", rec.Count(), m.Calls())
	}
	got := rec.Last(t)
	sdktest.TestPath(t, got, "GET", "/prefix/v1/thing")
	if got.Query.Get("q") != "1" || got.Body != nil {
		t.Errorf("recorded %+v", got)
	}
}

func TestRecordKeepsTheBody(t *testing.T) {
	t.Parallel()
	m := sdktest.NewMock()
	var seen string
	rec := m.Handle("POST", "https://provider.test/tokenise", func(r *http.Request) (*http.Response, error) {
		b, _ := io.ReadAll(r.Body)
		seen = string(b)
		return sdktest.JSONResponse(201, `{"token":"t"}`), nil
	})
	resp, err := m.HTTPClient.Post("https://provider.test/tokenise", "application/json", strings.NewReader(`{"b":[1,2],"a":"x"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if seen != `{"b":[1,2],"a":"x"}` || resp.StatusCode != 201 || resp.Header.Get("Content-Type") != "application/json" {
		t.Errorf("responder saw %q; answer %d %q", seen, resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	r := rec.Last(t)
	sdktest.TestPath(t, r, "POST", "/tokenise")
	sdktest.TestJSONBody(t, r, `{"a":"x","b":[1,2]}`)
	if r.Object(t)["a"] != "x" || r.Header.Get("Content-Type") != "application/json" {
		t.Errorf("recorded %+v", r)
	}
}

func TestErrorResponder(t *testing.T) {
	t.Parallel()
	m := sdktest.NewMock()
	m.Handle("GET", "v1/missing", sdktest.ErrorResponder(code(404001), "Retry-After", "3"))
	resp, err := m.HTTPClient.Get(sdktest.BaseURL + "v1/missing")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct {
		Error       bool            `json:"error"`
		Code        int             `json:"code"`
		Message     string          `json:"message"`
		ContextData json.RawMessage `json:"contextData"`
		RequestInfo struct {
			ServerTime int64 `json:"serverTime"`
			APIVersion int   `json:"apiVersion"`
		} `json:"requestInfo"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 404 || !body.Error || body.Code != 404001 || body.Message != "Not found." ||
		string(body.ContextData) != "null" || body.RequestInfo.ServerTime != sdktest.ServerTime || body.RequestInfo.APIVersion != 0 {
		t.Errorf("answer %d %+v", resp.StatusCode, body)
	}
	if resp.Header.Get("X-Request-Id") != "req-404001" || resp.Header.Get("Retry-After") != "3" {
		t.Errorf("headers %v", resp.Header)
	}
	var fields struct {
		ContextData map[string]string `json:"contextData"`
	}
	if err := json.Unmarshal([]byte(sdktest.ErrorBody(code(400002), `{"a.b":"required"}`)), &fields); err != nil || fields.ContextData["a.b"] != "required" {
		t.Errorf("field errors %v, %v", fields, err)
	}
}

func TestEventually(t *testing.T) {
	t.Parallel()
	n := 0
	sdktest.Eventually(t, "the third call", func() bool { n++; return n == 3 })
	if n != 3 {
		t.Errorf("cond called %d times, want 3", n)
	}
}
