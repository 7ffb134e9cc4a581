package journal

import (
	"maps"
	"net/url"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hospo-dev/hospo-go/client"
)

func seqs(es []Entry) []int64 {
	out := []int64{}
	for _, e := range es {
		out = append(out, e.Seq)
	}
	return out
}

func TestJournalKeepsTheLastN(t *testing.T) {
	t.Parallel()
	j := New(3)
	for i := range 5 {
		j.add(Entry{Status: 200 + i})
	}
	got, last := j.query(filter{})
	if diff := cmp.Diff([]int64{5, 4, 3}, seqs(got)); diff != "" {
		t.Errorf("entries (-want +got):\n%s", diff)
	}
	if last != 5 {
		t.Errorf("last = %d, want 5", last)
	}
	if got[0].Status != 204 || got[2].Status != 202 {
		t.Errorf("statuses %d..%d, want 204..202", got[0].Status, got[2].Status)
	}
}

func TestJournalQuery(t *testing.T) {
	t.Parallel()
	loc := func(id int64) *int64 { return &id }
	j := New(10)
	j.add(Entry{Status: 200, LocationID: loc(1)})                        // 1
	j.add(Entry{Status: 404, LocationID: loc(2)})                        // 2
	j.add(Entry{Status: 403, LocationID: loc(2), POSLocationID: loc(1)}) // 3
	j.add(Entry{Status: 500})                                            // 4
	j.add(Entry{Status: 201, LocationID: loc(1)})                        // 5

	tests := []struct {
		name string
		f    filter
		want []int64
	}{
		{"all", filter{}, []int64{5, 4, 3, 2, 1}},
		{"limit", filter{Limit: 2}, []int64{5, 4}},
		{"after", filter{AfterSeq: 3}, []int64{5, 4}},
		{"after all", filter{AfterSeq: 5}, []int64{}},
		{"location in path or of the POS token", filter{LocationID: loc(1)}, []int64{5, 3, 1}},
		{"location 2", filter{LocationID: loc(2)}, []int64{3, 2}},
		{"unknown location", filter{LocationID: loc(9)}, []int64{}},
		{"4xx", filter{StatusMin: 400, StatusMax: 499}, []int64{3, 2}},
		{"exact", filter{StatusMin: 500, StatusMax: 500}, []int64{4}},
		{"combined", filter{LocationID: loc(1), StatusMin: 200, StatusMax: 299, Limit: 1}, []int64{5}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, _ := j.query(tt.f)
			if diff := cmp.Diff(tt.want, seqs(got)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestNewSize(t *testing.T) {
	t.Parallel()
	if got := New(0).Capacity(); got != DefaultSize {
		t.Errorf("default capacity %d, want %d", got, DefaultSize)
	}
	off := New(-1)
	off.add(Entry{Status: 200})
	if got, last := off.query(filter{}); len(got) != 0 || last != 0 || off.Capacity() != 0 {
		t.Errorf("a journal of negative size kept %d entries (last %d, capacity %d)", len(got), last, off.Capacity())
	}
}

func TestSniffErrorCode(t *testing.T) {
	t.Parallel()
	full := `{"error":true,"code":400002,"message":"Validation failed.","contextData":{"a":"required"},"displayString":null}`
	tests := []struct {
		name string
		body string
		want *client.Code
	}{
		{"error body", full, ptr(client.CodeValidation)},
		{"cut after the code", full[:30], ptr(client.CodeValidation)},
		{"code not second", `{"message":"x","nested":{"code":1},"code":404001}`, ptr(client.CodeNotFound)},
		{"no code", `{"error":true}`, nil},
		{"cut before the code", `{"error":tr`, nil},
		{"not an object", `[1,2]`, nil},
		{"not JSON", `Forbidden`, nil},
		{"code not a number", `{"code":"x"}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tt.want, sniffErrorCode([]byte(tt.body))); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseQuery(t *testing.T) {
	t.Parallel()
	two := int64(2)
	tests := []struct {
		query   string
		want    filter
		wantBad []string
	}{
		{"", filter{Limit: 100}, nil},
		{"limit=5&locationId=2&status=4xx&after=7", filter{Limit: 5, LocationID: &two, StatusMin: 400, StatusMax: 499, AfterSeq: 7}, nil},
		{"status=404", filter{Limit: 100, StatusMin: 404, StatusMax: 404}, nil},
		{"status=5XX", filter{Limit: 100, StatusMin: 500, StatusMax: 599}, nil},
		{"limit=1000", filter{Limit: 1000}, nil},
		{"limit=1001", filter{Limit: 100}, []string{"limit"}},
		{"limit=0&locationId=x&status=6xx&after=-1", filter{Limit: 100}, []string{"after", "limit", "locationId", "status"}},
		{"status=40", filter{Limit: 100}, []string{"status"}},
		{"status=4x4", filter{Limit: 100}, []string{"status"}},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			t.Parallel()
			q, _ := url.ParseQuery(tt.query)
			got, bad := parseQuery(q, 1000)
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(filter{})); diff != "" {
				t.Errorf("filter (-want +got):\n%s", diff)
			}
			var badNames []string
			if len(bad) > 0 {
				badNames = slices.Sorted(maps.Keys(bad))
			}
			if diff := cmp.Diff(tt.wantBad, badNames); diff != "" {
				t.Errorf("bad parameters (-want +got):\n%s", diff)
			}
		})
	}
}
