package refserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/internal/checkfixture"
	"github.com/hospo-dev/hospo-go/possync"
	"github.com/hospo-dev/hospo-go/refserver/refservertest"
	"github.com/hospo-dev/hospo-go/wallet"
)

// posFixture is a POS-side view of one location of a test server.
type posFixture struct {
	env      *refservertest.Env
	loc      int64
	token    string
	otherLoc int64 // a second location, with its own token
	otherTok string
	svc      *possync.Service
}

func newPOSFixture(t *testing.T, opts ...refservertest.Option) *posFixture {
	t.Helper()
	env := refservertest.Start(t, opts...)
	v := env.NewVenue(t, refservertest.VenueConfig{Name: "Trattoria"})
	other := env.NewVenue(t, refservertest.VenueConfig{Name: "Bistro", Gateway: wallet.ProviderD})
	return &posFixture{env: env, loc: v.ID, token: v.POSToken, otherLoc: other.ID, otherTok: other.POSToken, svc: v.POS}
}

// fixtureCheck returns the shared realistic check for loc.
func fixtureCheck(t testing.TB, loc int64) *possync.Check {
	t.Helper()
	c := checkfixture.Decode[possync.Check](t)
	c.LocationID = loc
	return c
}

// checkMap returns the fixture check as a generic JSON object whose numbers
// keep their exact text, for tests that break it in ways Go types cannot.
func checkMap(t testing.TB, loc int64) map[string]any {
	t.Helper()
	b, err := json.Marshal(fixtureCheck(t, loc))
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		t.Fatal(err)
	}
	return m
}

// item returns menuItems[i] of a checkMap.
func item(m map[string]any, i int) map[string]any {
	return m["menuItems"].([]any)[i].(map[string]any)
}

// rawPOST sends body as it is to path with the access token and returns
// the status and decoded body.
func rawPOST(t testing.TB, env *refservertest.Env, path, token string, body []byte) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, env.URL+path+"?accessToken="+token, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	var out map[string]any
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatalf("POST %s: %d %q is not JSON", path, resp.StatusCode, data)
	}
	return resp.StatusCode, out
}

func TestCheckPushUpsert(t *testing.T) {
	t.Parallel()
	f := newPOSFixture(t)
	// The answer's shape, an identical push keeping the version, a changed
	// one moving it and the billId staying: the contract's check.
	f.env.CheckContract(t, "pos/push-check")

	ctx := context.Background()
	c := fixtureCheck(t, f.loc)
	first, err := f.svc.PushCheck(ctx, c)
	if err != nil || first.Version != 1 {
		t.Fatalf("first push: %+v, %v; want version 1", first, err)
	}

	// The same content in another form (field order, money digits, spaces)
	// is the same content.
	m := checkMap(t, f.loc)
	m["totalAmount"] = json.Number("74.1")
	m["tipsPaid"] = json.Number("0")
	body, _ := json.MarshalIndent(m, "", "   ")
	status, out := rawPOST(t, f.env, "/v1/pos/push-pull/check", f.token, body)
	if status != 200 || out["billId"] != first.BillID || out["version"] != 1.0 {
		t.Fatalf("reformatted push: %d %v", status, out)
	}

	c.CheckNumber++
	other, err := f.svc.PushCheck(ctx, c)
	if err != nil || other.BillID == first.BillID || other.Version != 1 {
		t.Fatalf("another check: %+v, %v", other, err)
	}

	// The stored check is its canonical JSON, as TEXT.
	var typ, stored string
	err = f.env.ReadDB(t).QueryRow(`SELECT typeof(check_json), check_json FROM bills WHERE bill_id = ?`, other.BillID).Scan(&typ, &stored)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(c)
	if typ != "text" || stored != string(want) {
		t.Errorf("stored %s %s\nwant text %s", typ, stored, want)
	}
}

func TestCheckPushValidation(t *testing.T) {
	t.Parallel()
	f := newPOSFixture(t)
	deepModifiers := func(levels int) []any {
		var ms []any
		for range levels {
			ms = []any{map[string]any{"id": 1, "name": "m", "price": json.Number("0.50"), "modifiers": ms}}
		}
		return ms
	}
	tests := []struct {
		name   string
		change func(m map[string]any)
		want   map[string]string
	}{
		{"missing checkNumber", func(m map[string]any) { delete(m, "checkNumber") },
			map[string]string{"checkNumber": "required"}},
		{"null staffId", func(m map[string]any) { m["staffId"] = nil },
			map[string]string{"staffId": "required"}},
		{"null discounts", func(m map[string]any) { m["discounts"] = nil },
			map[string]string{"discounts": "required"}},
		{"null element", func(m map[string]any) { m["discounts"] = []any{nil} },
			map[string]string{"discounts[0]": "required"}},
		{"negative quantity", func(m map[string]any) { item(m, 2)["quantity"] = -1 },
			map[string]string{"menuItems[2].quantity": "must not be negative"}},
		{"unknown status", func(m map[string]any) { m["status"] = "parked" },
			map[string]string{"status": "must be open, closed or void"}},
		{"three decimals", func(m map[string]any) { m["totalAmount"] = json.Number("74.105") },
			map[string]string{"totalAmount": "must have at most 2 decimal places"}},
		{"three decimals deep", func(m map[string]any) {
			item(m, 0)["modifiers"].([]any)[1].(map[string]any)["modifiers"].([]any)[0].(map[string]any)["price"] = json.Number("2.001")
		}, map[string]string{"menuItems[0].modifiers[1].modifiers[0].price": "must have at most 2 decimal places"}},
		{"null category", func(m map[string]any) { item(m, 1)["category"] = nil },
			map[string]string{"menuItems[1].category": "required"}},
		{"parent category without name", func(m map[string]any) {
			item(m, 1)["category"].(map[string]any)["category"] = map[string]any{"category": nil}
		}, map[string]string{"menuItems[1].category.category.name": "required"}},
		{"modifier without price", func(m map[string]any) {
			delete(item(m, 0)["modifiers"].([]any)[0].(map[string]any), "price")
		}, map[string]string{"menuItems[0].modifiers[0].price": "required"}},
		{"modifiers too deep", func(m map[string]any) { item(m, 3)["modifiers"] = deepModifiers(possync.MaxNesting + 3) },
			map[string]string{"menuItems[3].modifiers" + strings.Repeat("[0].modifiers", possync.MaxNesting): "nested deeper than 8 levels"}},
		{"several at once", func(m map[string]any) {
			delete(m, "guests")
			m["tipsPaid"] = json.Number("-1")
			delete(item(m, 4), "name")
			item(m, 4)["priceSold"] = nil
		}, map[string]string{
			"guests": "required", "tipsPaid": "must not be negative",
			"menuItems[4].name": "required", "menuItems[4].priceSold": "required",
		}},
		{"missing locationId", func(m map[string]any) { delete(m, "locationId") },
			map[string]string{"locationId": "required"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m := checkMap(t, f.loc)
			tt.change(m)
			body, err := json.Marshal(m)
			if err != nil {
				t.Fatal(err)
			}
			status, out := rawPOST(t, f.env, "/v1/pos/push-pull/check", f.token, body)
			if status != 400 || out["code"] != float64(client.CodeValidation) {
				t.Fatalf("status %d body %v, want 400002", status, out)
			}
			got := map[string]string{}
			for k, v := range out["contextData"].(map[string]any) {
				got[k] = v.(string)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("contextData (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCheckPushNullableFields(t *testing.T) {
	t.Parallel()
	f := newPOSFixture(t)
	m := checkMap(t, f.loc)
	delete(item(m, 0), "discount")  // nullable: absent is null
	delete(item(m, 1), "modifiers") // nullable
	item(m, 2)["category"].(map[string]any)["category"] = nil
	body, _ := json.Marshal(m)
	if status, out := rawPOST(t, f.env, "/v1/pos/push-pull/check", f.token, body); status != 200 {
		t.Fatalf("status %d: %v", status, out)
	}
}

func TestCheckPushMalformed(t *testing.T) {
	t.Parallel()
	f := newPOSFixture(t)
	withField := func(change func(m map[string]any)) []byte {
		m := checkMap(t, f.loc)
		change(m)
		b, _ := json.Marshal(m)
		return b
	}
	tests := []struct {
		name string
		body []byte
	}{
		{"not JSON", []byte(`{"checkNumber":`)},
		{"quantity as a string", withField(func(m map[string]any) { item(m, 0)["quantity"] = "2" })},
		{"fractional quantity", withField(func(m map[string]any) { item(m, 0)["quantity"] = json.Number("1.5") })},
		{"money as a string", withField(func(m map[string]any) { m["totalAmount"] = "74.10" })},
		{"menuItems not an array", withField(func(m map[string]any) { m["menuItems"] = map[string]any{} })},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			status, out := rawPOST(t, f.env, "/v1/pos/push-pull/check", f.token, tt.body)
			if status != 400 || out["code"] != float64(client.CodeMalformedJSON) {
				t.Errorf("status %d body %v, want 400001", status, out)
			}
		})
	}
}

func TestPOSAccess(t *testing.T) {
	t.Parallel()
	f := newPOSFixture(t)
	_, userTok := f.env.NewUser(t)
	ctx := context.Background()
	check := fixtureCheck(t, f.loc)

	// calls runs every endpoint for location loc with svc.
	calls := func(svc *possync.Service, loc int64) map[string]error {
		c := check.Clone()
		c.LocationID = loc
		_, pushErr := svc.PushCheck(ctx, c)
		_, pollErr := svc.Payments(ctx, loc)
		_, hbErr := svc.Heartbeat(ctx, loc)
		_, accErr := svc.AcceptPayment(ctx, 1)
		return map[string]error{"push": pushErr, "poll": pollErr, "heartbeat": hbErr, "accept": accErr}
	}
	tests := []struct {
		name  string
		token string
		loc   int64
		want  map[string]error
	}{
		{"user token", userTok, f.loc, map[string]error{
			"push": client.ErrForbidden, "poll": client.ErrForbidden, "heartbeat": client.ErrForbidden, "accept": client.ErrForbidden}},
		{"another location's token", f.otherTok, f.loc, map[string]error{
			"push": client.ErrForbidden, "poll": client.ErrForbidden, "heartbeat": client.ErrForbidden,
			"accept": client.ErrNotFound}}, // no payment 1 at all; another location's is a 404001 too
		{"unknown token", "not-a-token", f.loc, map[string]error{
			"push": client.ErrAccessTokenInvalid, "poll": client.ErrAccessTokenInvalid,
			"heartbeat": client.ErrAccessTokenInvalid, "accept": client.ErrAccessTokenInvalid}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svc := possync.NewService(f.env.Client(t, client.WithAccessToken(tt.token)))
			for name, err := range calls(svc, tt.loc) {
				if !errors.Is(err, tt.want[name]) {
					t.Errorf("%s: err = %v, want %v", name, err, tt.want[name])
				}
			}
		})
	}

	// Without a token the SDK refuses to send; raw requests get 401001.
	status, out := rawPOST(t, f.env, "/v1/pos/push-pull/heartbeat/1", "", nil)
	if status != 401 || out["code"] != float64(client.CodeAccessTokenMissing) {
		t.Errorf("no token: %d %v", status, out)
	}
	// A path that is not a location id.
	resp, err := http.Get(f.env.URL + "/v1/pos/push-pull/payments/abc?accessToken=" + f.token)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 404 {
		t.Errorf("payments/abc: %d, want 404", resp.StatusCode)
	}
}

func TestHeartbeatMakesLocationOnline(t *testing.T) {
	t.Parallel()
	// The virtual clock is real time plus an offset; freezing real time
	// makes the 6-minute edge exact however slowly the test runs.
	frozen := time.Now()
	f := newPOSFixture(t, func(c *refservertest.Options) { c.Now = func() time.Time { return frozen } })
	// The heartbeat's answer, and a new location offline before its first
	// heartbeat and online after it: the contract's check.
	f.env.CheckContract(t, "pos/heartbeat")
	if _, err := f.svc.Heartbeat(context.Background(), f.loc); err != nil {
		t.Fatalf("Heartbeat: %v", err)
	}
	// Heartbeat freshness is read through the location details endpoint.
	posStatus := func() (string, any) {
		var out struct {
			Location map[string]any `json:"location"`
		}
		if code := f.env.AdminDo(t, http.MethodGet, "/v1/location/"+itoa(f.loc), nil, &out); code != 200 {
			t.Fatalf("GET /v1/location/%d: %d", f.loc, code)
		}
		return out.Location["posStatus"].(string), out.Location["lastHeartbeat"]
	}
	if s, hb := posStatus(); s != "online" || hb == nil {
		t.Errorf("after a heartbeat: posStatus %q lastHeartbeat %v", s, hb)
	}
	f.env.AdvanceClock(t, 6*time.Minute)
	if s, _ := posStatus(); s != "online" {
		t.Errorf("6 minutes after a heartbeat: %q, want online", s)
	}
	f.env.AdvanceClock(t, time.Second)
	if s, _ := posStatus(); s != "offline" {
		t.Errorf("6 minutes 1 second after a heartbeat: %q, want offline", s)
	}
}

func TestAcceptPaymentValidation(t *testing.T) {
	t.Parallel()
	f := newPOSFixture(t)
	tests := []struct {
		body string
		code client.Code
	}{
		{`{}`, client.CodeValidation},
		{`{"paymentId":null}`, client.CodeValidation},
		{`{"paymentId":0}`, client.CodeValidation},
		{`{"paymentId":"7"}`, client.CodeMalformedJSON},
		{`{"paymentId":999999}`, client.CodeNotFound},
	}
	for _, tt := range tests {
		status, out := rawPOST(t, f.env, "/v1/pos/push-pull/accept-payment", f.token, []byte(tt.body))
		if status != tt.code.HTTPStatus() || out["code"] != float64(tt.code) {
			t.Errorf("%s: %d %v, want %d", tt.body, status, out, tt.code)
		}
	}
}

func TestPaymentsPollEmpty(t *testing.T) {
	t.Parallel()
	f := newPOSFixture(t)
	resp, err := http.Get(f.env.URL + "/v1/pos/push-pull/payments/" + itoa(f.loc) + "?accessToken=" + f.token)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || !bytes.HasPrefix(b, []byte(`{"checks":{},"requestInfo":{`)) {
		t.Errorf("%d %s", resp.StatusCode, b)
	}
}

func itoa(n int64) string { b, _ := json.Marshal(n); return string(b) }

// TestCheckPushLastUpdated checks the documented choice: a bill's
// lastUpdated is the time of the latest push that changed its content.
func TestCheckPushLastUpdated(t *testing.T) {
	t.Parallel()
	f := newPOSFixture(t)
	ctx := context.Background()
	key := f.env.NewAPIKey(t, f.loc)
	lastUpdated := func(billID string) time.Time {
		t.Helper()
		var out struct {
			Bill struct {
				LastUpdated client.BillTime `json:"lastUpdated"`
			} `json:"bill"`
		}
		req, _ := http.NewRequest(http.MethodGet, f.env.URL+"/v3/bill/"+billID, nil)
		req.Header.Set("X-Vendor-API-Key", key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("GET /v3/bill: %d", resp.StatusCode)
		}
		if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
			t.Fatal(err)
		}
		return out.Bill.LastUpdated.Time
	}
	c := fixtureCheck(t, f.loc)
	c.Status = possync.CheckClosed
	c.OutstandingAmount = client.Money{}
	res, err := f.svc.PushCheck(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	t0 := lastUpdated(res.BillID)

	f.env.AdvanceClock(t, time.Hour)
	if _, err := f.svc.PushCheck(ctx, c); err != nil {
		t.Fatal(err)
	}
	if got := lastUpdated(res.BillID); !got.Equal(t0) {
		t.Errorf("an unchanged push moved lastUpdated from %v to %v", t0, got)
	}
	c.TipsPaid = client.MustParseMoney("5.00")
	if _, err := f.svc.PushCheck(ctx, c); err != nil {
		t.Fatal(err)
	}
	if got := lastUpdated(res.BillID); got.Sub(t0) < time.Hour {
		t.Errorf("a changed push an hour later: lastUpdated %v, first %v", got, t0)
	}
}

// TestHeartbeatHugeBody: the heartbeat ignores its body but still refuses
// one over the size limit, also when it arrives chunked (no length).
func TestHeartbeatHugeBody(t *testing.T) {
	t.Parallel()
	f := newPOSFixture(t)
	body := io.MultiReader(strings.NewReader(`{"x":"`), strings.NewReader(strings.Repeat("a", 2<<20)), strings.NewReader(`"}`))
	req, err := http.NewRequest(http.MethodPost, f.env.URL+"/v1/pos/push-pull/heartbeat/"+itoa(f.loc)+"?accessToken="+f.token, body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("status %d, want 413", resp.StatusCode)
	}
	status, out := rawPOST(t, f.env, "/v1/pos/push-pull/heartbeat/"+itoa(f.loc), f.token, []byte(`{"anything":1}`))
	if status != 200 || out["status"] != "ok" {
		t.Errorf("heartbeat with a small body: %d %v", status, out)
	}
}
