package rules

import (
	"encoding/json"
	"strconv"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/events"
)

// eventData returns the JSON of an event's data. bill.closed, the event of
// the check push and by far the most frequent, is written by hand; every
// other type, and a bill.closed whose id would need escaping, goes through
// encoding/json. TestEventDataMatchesEncodingJSON holds the two to the
// same bytes.
func eventData(data any) ([]byte, error) {
	if d, ok := data.(events.BillClosed); ok && plainID(d.BillID) {
		return appendBillClosed(make([]byte, 0, 160), d), nil
	}
	return json.Marshal(data)
}

// appendBillClosed appends d as encoding/json writes it; d.BillID must be
// plain (plainID).
func appendBillClosed(b []byte, d events.BillClosed) []byte {
	b = append(b, `{"billId":"`...)
	b = append(b, d.BillID...)
	b = append(b, `","locationId":`...)
	b = strconv.AppendInt(b, d.LocationID, 10)
	b = append(b, `,"checkNumber":`...)
	b = strconv.AppendInt(b, d.CheckNumber, 10)
	b = append(b, `,"totalAmount":`...)
	b, _ = d.TotalAmount.AppendText(b) // never fails
	b = append(b, `,"lastUpdated":"`...)
	b = d.LastUpdated.UTC().AppendFormat(b, client.BillTimeLayout)
	return append(b, `"}`...)
}

// plainID reports whether s is written in JSON as it is: letters, digits,
// '-' and '_' only (the server's ids). It runs for every bill of a
// closed-bills list, hence the table rather than five comparisons a byte.
func plainID(s string) bool {
	for i := 0; i < len(s); i++ {
		if !idByte[s[i]] {
			return false
		}
	}
	return true
}

// idByte marks the bytes of plainID.
var idByte = func() (t [256]bool) {
	for c := range 256 {
		t[c] = 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_'
	}
	return t
}()
