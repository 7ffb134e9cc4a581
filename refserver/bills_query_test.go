package refserver

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/hospo-dev/hospo-go/bills"
	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/refserver/rules"
)

func TestParseClosedRange(t *testing.T) {
	t.Parallel()
	sec := func(s string) int64 {
		tm, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return tm.Unix()
	}
	q := func(from, to string) string {
		return url.Values{"from": {from}, "to": {to}}.Encode()
	}
	tests := []struct {
		name    string
		raw     string
		want    closedRange
		wantMsg string // substring of the 400003 message; "" means success
	}{
		{"UTC", q("2026-05-01T00:00:00Z", "2026-05-02T00:00:00Z"),
			closedRange{sec("2026-05-01T00:00:00Z"), sec("2026-05-02T00:00:00Z")}, ""},
		{"encoded plus offset", "from=2026-05-01T10:00:00%2B01:00&to=2026-05-01T12:00:00%2B01:00",
			closedRange{sec("2026-05-01T09:00:00Z"), sec("2026-05-01T11:00:00Z")}, ""},
		{"negative offset", q("2026-05-01T00:00:00-05:30", "2026-05-01T00:00:00-05:30"),
			closedRange{sec("2026-05-01T05:30:00Z"), sec("2026-05-01T05:30:00Z")}, ""},
		{"from == to", q("2026-05-01T00:00:00Z", "2026-05-01T00:00:00Z"),
			closedRange{sec("2026-05-01T00:00:00Z"), sec("2026-05-01T00:00:00Z")}, ""},
		{"exactly 31 days", q("2026-05-01T00:00:00Z", "2026-06-01T00:00:00Z"),
			closedRange{sec("2026-05-01T00:00:00Z"), sec("2026-06-01T00:00:00Z")}, ""},
		{"fractions round inwards", q("2026-05-01T00:00:00.5Z", "2026-05-01T00:00:09.9Z"),
			closedRange{sec("2026-05-01T00:00:01Z"), sec("2026-05-01T00:00:09Z")}, ""},
		{"31 days and a second", q("2026-05-01T00:00:00Z", "2026-06-01T00:00:01Z"), closedRange{}, "31 days"},
		{"31 days across offsets", q("2026-05-01T00:00:00+02:00", "2026-06-01T00:00:00Z"), closedRange{}, "31 days"},
		{"from after to", q("2026-05-02T00:00:00Z", "2026-05-01T00:00:00Z"), closedRange{}, "from must not be after to"},
		{"missing from", "to=2026-05-01T00:00:00Z", closedRange{}, "from is required"},
		{"missing to", "from=2026-05-01T00:00:00Z", closedRange{}, "to is required"},
		{"empty from", "from=&to=2026-05-01T00:00:00Z", closedRange{}, "from is required"},
		{"nothing", "", closedRange{}, "from is required"},
		{"repeated", "from=2026-05-01T00:00:00Z&from=2026-05-01T00:00:00Z&to=2026-05-01T00:00:00Z", closedRange{}, "once"},
		{"plus sent raw", "from=2026-05-01T10:00:00+01:00&to=2026-05-01T12:00:00Z", closedRange{}, "URL-encode the +"},
		{"plus sent raw in to", "from=2026-05-01T10:00:00Z&to=2026-05-01T12:00:00+01:00", closedRange{}, "URL-encode the +"},
		{"no offset", q("2026-05-01T10:00:00", "2026-05-01T12:00:00Z"), closedRange{}, "not an ISO 8601"},
		{"date only", q("2026-05-01", "2026-05-02"), closedRange{}, "not an ISO 8601"},
		{"bill time form", q("2026-05-01 10:00:00", "2026-05-01 11:00:00"), closedRange{}, "not an ISO 8601"},
		{"garbage", q("yesterday", "today"), closedRange{}, "not an ISO 8601"},
		{"bad escape", "from=%zz&to=2026-05-01T00:00:00Z", closedRange{}, "URL encoding"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := parseClosedRange(tt.raw)
			if tt.wantMsg == "" {
				if err != nil {
					t.Fatalf("parseClosedRange(%q) = %v", tt.raw, err)
				}
				if got != tt.want {
					t.Errorf("parseClosedRange(%q) = %+v, want %+v", tt.raw, got, tt.want)
				}
				return
			}
			if err == nil {
				t.Fatalf("parseClosedRange(%q) = %+v, want a 400003", tt.raw, got)
			}
			if err.Code != client.CodeInvalidQuery || !strings.Contains(err.Message, tt.wantMsg) {
				t.Errorf("parseClosedRange(%q) = %d %q, want 400003 containing %q", tt.raw, err.Code, err.Message, tt.wantMsg)
			}
		})
	}
}

func TestParseBillScopes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		raw     string
		want    rules.BillScopes
		wantMsg string
	}{
		{"", rules.BillScopes{}, ""},
		{"scope=", rules.BillScopes{}, ""},
		{"scope=bill.items", rules.BillScopes{Items: true}, ""},
		{"scope=bill.items%2Cbill.staff", rules.BillScopes{Items: true, Staff: true}, ""},
		{"scope=bill.items,bill.payments,bill.users,bill.table,table.location,bill.staff",
			rules.BillScopes{Items: true, Payments: true, Users: true, Table: true, TableLocation: true, Staff: true}, ""},
		{"scope=bill.users&scope=bill.table", rules.BillScopes{Users: true, Table: true}, ""},
		{"scope=bill.items,bill.items", rules.BillScopes{Items: true}, ""},
		{"scope=&scope=bill.staff", rules.BillScopes{Staff: true}, ""},
		{"scope=bill.items,,bill.staff", rules.BillScopes{}, "Empty scope"},
		{"scope=bill.items,", rules.BillScopes{}, "Empty scope"},
		{"scope=,bill.items", rules.BillScopes{}, "Empty scope"},
		{"scope=bill.items,%20,bill.staff", rules.BillScopes{}, "Empty scope"},
		{"scope=table.location,bill.table", rules.BillScopes{Table: true, TableLocation: true}, ""},
		{"scope=table.location", rules.BillScopes{}, "needs bill.table"},
		{"scope=bill.item", rules.BillScopes{}, `Unknown scope "bill.item"`},
		{"scope=BILL.ITEMS", rules.BillScopes{}, "Unknown scope"},
		{"scope=" + strings.Repeat("x", 500), rules.BillScopes{}, "xxx..."},
		{"scope=%zz", rules.BillScopes{}, "URL encoding"},
	}
	for _, tt := range tests {
		got, err := parseBillScopes(tt.raw)
		if tt.wantMsg == "" {
			if err != nil || got != tt.want {
				t.Errorf("parseBillScopes(%q) = %+v, %v; want %+v", tt.raw, got, err, tt.want)
			}
			continue
		}
		if err == nil || err.Code != client.CodeInvalidQuery || !strings.Contains(err.Message, tt.wantMsg) {
			t.Errorf("parseBillScopes(%q) = %+v, %v; want 400003 containing %q", tt.raw, got, err, tt.wantMsg)
		}
		if err != nil && len(err.Message) > 300 {
			t.Errorf("parseBillScopes(%q): message of %d bytes echoes too much", tt.raw, len(err.Message))
		}
	}
}

// FuzzParseClosedRange checks the closed-bills query parser on arbitrary
// query strings: it never panics, every failure is a 400003 with a message,
// and every accepted range is ordered and at most 31 days long.
func FuzzParseClosedRange(f *testing.F) {
	// More seeds live in testdata/fuzz/FuzzParseClosedRange.
	f.Add("from=2026-05-01T10:00:00%2B01:00&to=2026-05-02T10:00:00%2B01:00")
	f.Add("from=2026-05-01T10:00:00+01:00&to=2026-05-02T10:00:00Z")
	f.Fuzz(func(t *testing.T, raw string) {
		rng, err := parseClosedRange(raw)
		if err != nil {
			if err.Code != client.CodeInvalidQuery || err.Message == "" {
				t.Fatalf("parseClosedRange(%q): error %d %q", raw, err.Code, err.Message)
			}
			return
		}
		// Rounding inwards may make from one second past to for a
		// sub-second range; otherwise from <= to.
		if rng.from > rng.to+1 {
			t.Fatalf("parseClosedRange(%q) = %+v: from after to", raw, rng)
		}
		if rng.to-rng.from > int64(bills.MaxRange/time.Second) {
			t.Fatalf("parseClosedRange(%q) = %+v: longer than 31 days", raw, rng)
		}
	})
}

// FuzzParseBillScopes checks the scope parser: no panics, failures are
// 400003 with a bounded message, and table.location never comes without
// bill.table.
func FuzzParseBillScopes(f *testing.F) {
	// More seeds live in testdata/fuzz/FuzzParseBillScopes.
	f.Add("scope=bill.items,bill.table,table.location")
	f.Add("scope=table.location")
	f.Fuzz(func(t *testing.T, raw string) {
		sc, err := parseBillScopes(raw)
		if err != nil {
			if err.Code != client.CodeInvalidQuery || err.Message == "" || len(err.Message) > 400 {
				t.Fatalf("parseBillScopes(%q): error %d %q", raw, err.Code, err.Message)
			}
			return
		}
		if sc.TableLocation && !sc.Table {
			t.Fatalf("parseBillScopes(%q) = %+v: table.location without bill.table", raw, sc)
		}
	})
}
