package contract

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hospo-dev/hospo-go/bills"
	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/possync"
)

// billTimeForm is lastUpdated's form in bills (contract section 1).
var billTimeForm = regexp.MustCompile(`^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$`)

// summaryShape is an element of the closed-bills list (interface 2.5).
var summaryShape = shape{"billId": "string", "status": "string", "lastUpdated": "string"}

// billShape is the bill record's base members (contract section 5).
var billShape = shape{
	"billId": "string", "locationId": "int", "checkNumber": "int", "status": "string", "lastUpdated": "string",
	"totalAmount": "money", "outstandingAmount": "money", "serviceChargeAmount": "money", "tipsPaid": "money",
	"discounts": "array",
}

// closedBill pushes a closed check at venue() and returns the push's
// answer and the check.
func (t *T) closedBill() (possync.PushResult, possync.Check) {
	v := t.venue()
	c := check(v, t.nextCheck(), "0.00")
	c.Status = possync.CheckClosed
	return t.push(v, c), c
}

// listAround lists venue()'s closed bills from d before to d after at.
func (t *T) listAround(at time.Time, before, after time.Duration) []bills.Summary {
	got, err := t.vendor().Bills.ListClosed(t.ctx, t.venue().ID, at.Add(-before), at.Add(after))
	t.ok(err, "list the closed bills")
	return got
}

func hasBill(list []bills.Summary, id string) bool {
	return slices.ContainsFunc(list, func(s bills.Summary) bool { return s.BillID == id })
}

// billsChecks cover interface 4.6 and 4.7 and contract section 5's bills.
var billsChecks = []Check{
	{
		Name: "bills/list-shape", Endpoint: "GET /v3/location/{locationId}/bills/closed",
		Rule:  "the list answers { bills: [ { billId, status: closed, lastUpdated: YYYY-MM-DD hh:mm:ss } ] } within the range asked",
		Needs: NeedsAPIKey,
		Run: func(t *T) {
			now := t.serverTime()
			from := now.Add(-bills.MaxRange).Add(time.Minute)
			list, err := t.vendor().Bills.ListClosed(t.ctx, t.venue().ID, from, now)
			t.ok(err, "list the closed bills")
			t.status(http.StatusOK)
			t.shape(with(shape{"bills": "array"}, under("bills[]", summaryShape)))
			for i, raw := range rawList(t, "bills") {
				lu, _ := raw["lastUpdated"].(string)
				if !billTimeForm.MatchString(lu) {
					t.Errorf("bills[%d].lastUpdated: got %q, want YYYY-MM-DD hh:mm:ss", i, lu)
				}
			}
			for i, s := range list {
				t.equal("bills["+itoa(i)+"].status", s.Status, possync.CheckClosed)
				if s.LastUpdated.Before(from.Truncate(time.Second)) || s.LastUpdated.After(now) {
					t.Errorf("bills[%d].lastUpdated: %v is outside [%v, %v]", i, s.LastUpdated, from, now)
				}
			}
		},
	},
	{
		Name: "bills/list-closed-only", Endpoint: "POST /v1/pos/push-pull/check, GET /v3/location/{locationId}/bills/closed",
		Rule:  "a closed check is listed as its billId; an open one and one closed then voided are not",
		Needs: NeedsPOS | NeedsAPIKey | WritesData,
		Run: func(t *T) {
			v := t.venue()
			closed, _ := t.closedBill()
			open := t.push(v, check(v, t.nextCheck(), "5.00"))
			voided, c := t.closedBill()
			c.Status = possync.CheckVoid
			t.push(v, c)
			list := t.listAround(t.serverTime(), hour, hour)
			if !hasBill(list, closed.BillID) {
				t.Errorf("bills: closed bill %s not listed", closed.BillID)
			}
			if hasBill(list, open.BillID) {
				t.Errorf("bills: open bill %s listed", open.BillID)
			}
			if hasBill(list, voided.BillID) {
				t.Errorf("bills: void bill %s listed", voided.BillID)
			}
		},
	},
	{
		Name: "bills/range-bounds", Endpoint: "GET /v3/location/{locationId}/bills/closed",
		Rule:  "a bill is listed when its lastUpdated is in [from, to], both ends included, and not otherwise",
		Needs: NeedsPOS | NeedsAPIKey | WritesData,
		Run: func(t *T) {
			closed, _ := t.closedBill()
			b, err := t.vendor().Bills.Get(t.ctx, closed.BillID, nil)
			t.ok(err, "get the bill")
			at := b.LastUpdated.Time
			for _, tc := range []struct {
				name          string
				before, after time.Duration
				want          bool
			}{
				{"[lastUpdated, lastUpdated]", 0, 0, true},
				{"[lastUpdated-1h, lastUpdated-1s]", hour, -time.Second, false},
				{"[lastUpdated+1s, lastUpdated+1h]", -time.Second, hour, false},
			} {
				if got := hasBill(t.listAround(at, tc.before, tc.after), closed.BillID); got != tc.want {
					t.Errorf("bill %s listed in %s: got %t, want %t", closed.BillID, tc.name, got, tc.want)
				}
			}
		},
	},
	{
		Name: "bills/range-errors", Endpoint: "GET /v3/location/{locationId}/bills/closed",
		Rule:  "from after to, a range over 31 days, a missing or unparsable from, and a + sent as a space are 400003 (the last saying to URL-encode the +)",
		Needs: NeedsAPIKey,
		Run: func(t *T) {
			loc, key := t.venue().ID, t.vendor().Key
			for _, q := range []struct{ name, from, to string }{
				{"from after to", "2026-01-02T00:00:00Z", "2026-01-01T00:00:00Z"},
				{"over 31 days", "2026-01-01T00:00:00Z", "2026-02-01T00:00:01Z"},
				{"missing from", "", "2026-01-01T00:00:00Z"},
				{"unparsable from", "yesterday", "2026-01-01T00:00:00Z"},
			} {
				t.rawError(rawRequest{Method: http.MethodGet, Path: billsPath(loc, q.from, q.to), APIKey: key}, client.CodeInvalidQuery)
			}
			// A + that arrived as a space: the query written by hand, unencoded.
			b := t.rawError(rawRequest{Method: http.MethodGet, APIKey: key,
				Path: "/v3/location/" + itoa(int(loc)) + "/bills/closed?from=2026-01-01T00:00:00+01:00&to=2026-01-01T12:00:00+01:00"},
				client.CodeInvalidQuery)
			if msg, _ := b["message"].(string); !strings.Contains(strings.ToLower(msg), "encode") {
				t.Errorf("message: %q does not say to URL-encode the +", msg)
			}
		},
	},
	{
		Name: "bills/get-scopes", Endpoint: "GET /v3/bill/{billId}",
		Rule:  "without scopes the record has only its base members; each scope adds its member, table.location inside table, apiVersion 3",
		Needs: NeedsPOS | NeedsAPIKey | WritesData,
		Run: func(t *T) {
			closed, c := t.closedBill()
			vb := t.vendor().Bills
			_, err := vb.Get(t.ctx, closed.BillID, nil)
			t.ok(err, "get the bill without scopes")
			t.shape(with(requestInfoShape, under("bill", billShape)))
			t.requestInfo(3, "")
			base := t.body()
			for _, m := range []string{"items", "payments", "users", "table", "staff"} {
				if _, ok := field(base, "bill").(map[string]any)[m]; ok {
					t.Errorf("bill.%s: present without its scope", m)
				}
			}
			b, err := vb.Get(t.ctx, closed.BillID, bills.AllScopes())
			t.ok(err, "get the bill with every scope")
			t.shape(with(under("bill", billShape), shape{
				"bill.items": "array", "bill.payments": "array", "bill.users": "array", "bill.table": "object",
				"bill.table.tableNumber": "int", "bill.table.guests": "int", "bill.table.location": "object",
				"bill.staff": "object", "bill.staff.staffId": "string",
			}, under("bill.table.location", locationShape)))
			t.equal("bill.billId", b.BillID, closed.BillID)
			t.equal("bill.checkNumber", b.CheckNumber, c.CheckNumber)
			t.equal("bill.status", b.Status, possync.CheckClosed)
			t.equal("bill.items", len(b.Items), len(c.MenuItems))
			if b.Table != nil {
				t.equal("bill.table.tableNumber", b.Table.TableNumber, c.TableNumber)
			}
			if b.Staff != nil {
				t.equal("bill.staff.staffId", b.Staff.StaffID, c.StaffID)
			}
		},
	},
	{
		Name: "bills/scope-errors", Endpoint: "GET /v3/bill/{billId}",
		Rule:  "an unknown scope, and table.location without bill.table, are 400003",
		Needs: NeedsAPIKey,
		Run: func(t *T) {
			id := t.someBill()
			for _, scope := range []string{"bill.bogus", "table.location"} {
				t.rawError(rawRequest{Method: http.MethodGet, Path: "/v3/bill/" + url.PathEscape(id) + "?scope=" + scope, APIKey: t.vendor().Key},
					client.CodeInvalidQuery)
			}
		},
	},
	{
		Name: "bills/get-unknown", Endpoint: "GET /v3/bill/{billId}",
		Rule:  "an unknown bill is 404001",
		Needs: NeedsAPIKey,
		Run: func(t *T) {
			_, err := t.vendor().Bills.Get(t.ctx, "contract-no-such-bill", nil)
			t.wantError(err, client.CodeNotFound)
		},
	},
	{
		Name: "bills/get-outside-scope", Endpoint: "GET /v3/bill/{billId}",
		Rule:  "a bill of a location outside the key's scope is 404001, like an unknown one",
		Needs: NeedsSandbox | WritesData,
		Run: func(t *T) {
			closed, _ := t.closedBill()
			other := t.vendorOf(t.newKey(t.otherLocation()))
			_, err := other.Bills.Get(t.ctx, closed.BillID, nil)
			t.wantError(err, client.CodeNotFound)
		},
	},
}

// someBill returns the id of a bill the vendor may read: one pushed for
// the run in a sandbox, the latest closed one of the last 31 days
// otherwise (the check is skipped when there is none).
func (t *T) someBill() string {
	if !t.w.mode.careful {
		closed, _ := t.closedBill()
		return closed.BillID
	}
	now := t.serverTime()
	list, err := t.vendor().Bills.ListClosed(t.ctx, t.venue().ID, now.Add(-bills.MaxRange).Add(time.Minute), now)
	t.ok(err, "list the closed bills")
	if len(list) == 0 {
		t.Skipf("location %d has no closed bill in the last 31 days to ask about", t.venue().ID)
	}
	return list[len(list)-1].BillID
}

// billsPath is the closed-bills list of location with from and to as
// given, each query-escaped.
func billsPath(location int64, from, to string) string {
	return fmt.Sprintf("/v3/location/%d/bills/closed?from=%s&to=%s", location, url.QueryEscape(from), url.QueryEscape(to))
}

// rawList returns the objects of the array member of the latest response.
func rawList(t *T, member string) []map[string]any {
	arr, _ := t.body()[member].([]any)
	var out []map[string]any
	for _, el := range arr {
		if m, ok := el.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

func itoa(i int) string { return strconv.Itoa(i) }
