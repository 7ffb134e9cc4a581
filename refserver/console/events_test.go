package console

import (
	"strings"
	"testing"

	"github.com/hospo-dev/hospo-go/refserver/store"
)

func TestSummarize(t *testing.T) {
	t.Parallel()
	tests := []struct{ data, want string }{
		{`{"status":"pending","amount":12.5,"posOrderId":null,"checkNumber":1}`, "amount=12.5 checkNumber=1 posOrderId=null status=pending"},
		{`{"b":{"x": [1, 2]},"a":"<b>"}`, `a=<b> b={"x":[1,2]}`}, // escaped by the template, not here
		{`{}`, ""},
		{`not json`, "not json"},
		{`{"s":"` + strings.Repeat("é", 200) + `"}`, "s=" + strings.Repeat("é", summaryLength-3) + "…"},
	}
	for _, tt := range tests {
		if got := summarize(tt.data); got != tt.want {
			t.Errorf("summarize(%.40q) = %q, want %q", tt.data, got, tt.want)
		}
	}
}

func TestEventViewLocation(t *testing.T) {
	t.Parallel()
	loc, key := int64(4), int64(9)
	if v := newEventView(store.Event{EventID: "evt_1", Type: "ping", OwnerKeyID: &key, DataJSON: `{}`}); v.Location != "key 9" {
		t.Errorf("a key's event shows location %q", v.Location)
	}
	if v := newEventView(store.Event{EventID: "evt_2", Type: "bill.closed", LocationID: &loc, CreatedAt: 0, DataJSON: `{}`}); v.Location != "4" ||
		v.Time != "1970-01-01 00:00:00" {
		t.Errorf("a location's event: %+v", v)
	}
}
