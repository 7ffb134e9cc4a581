package client

import (
	"fmt"
	"strconv"
	"time"
)

// BillTimeLayout is the layout of lastUpdated in bill summaries and bill
// records: "YYYY-MM-DD hh:mm:ss", always in UTC.
const BillTimeLayout = "2006-01-02 15:04:05"

// UnixTime is a time.Time that travels as an integer of Unix seconds, like
// serverTime, dateCreated, lastUpdated and the ...At fields.
type UnixTime struct{ time.Time }

// MarshalJSON writes the Unix seconds; the zero time is written as null.
func (t UnixTime) MarshalJSON() ([]byte, error) {
	if t.IsZero() {
		return []byte("null"), nil
	}
	return strconv.AppendInt(nil, t.Unix(), 10), nil
}

// UnmarshalJSON reads Unix seconds; null leaves the zero time.
func (t *UnixTime) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		t.Time = time.Time{}
		return nil
	}
	n, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil {
		return fmt.Errorf("unix time: want integer seconds, got %s", truncate(string(b), 40))
	}
	t.Time = time.Unix(n, 0).UTC()
	return nil
}

// BillTime is a time.Time that travels as "YYYY-MM-DD hh:mm:ss" in UTC.
type BillTime struct{ time.Time }

// MarshalJSON writes the time in BillTimeLayout, in UTC.
func (t BillTime) MarshalJSON() ([]byte, error) {
	return []byte(`"` + t.UTC().Format(BillTimeLayout) + `"`), nil
}

// UnmarshalJSON reads the BillTimeLayout form as UTC. JSON null leaves t
// unchanged, as encoding/json does for other types.
func (t *BillTime) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	s, err := strconv.Unquote(string(b))
	if err != nil {
		return fmt.Errorf("bill time: want a string, got %s", truncate(string(b), 40))
	}
	v, err := time.ParseInLocation(BillTimeLayout, s, time.UTC)
	if err != nil {
		return fmt.Errorf("bill time: %w", err)
	}
	t.Time = v
	return nil
}

// FormatQueryTime formats t as ISO 8601 with its offset ("2026-05-01T10:00:00+01:00",
// or "Z" for UTC), the form the from and to query parameters take. Callers
// put it in a url.Values so that the "+" of an offset is encoded as %2B.
func FormatQueryTime(t time.Time) string { return t.Format(time.RFC3339) }

// ParseQueryTime parses the from/to form: RFC 3339 with an offset.
func ParseQueryTime(s string) (time.Time, error) { return time.Parse(time.RFC3339, s) }
