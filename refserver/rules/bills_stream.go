package rules

import (
	"encoding/json"
	"io"
	"time"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/refserver/store"
)

// closedBillsChunk is how much of a closed-bills list is written at once:
// the first bytes leave after about 400 bills, and the server holds no
// more than this of an answer of any length.
const closedBillsChunk = 32 << 10

// writeClosedBills writes the rows as encoding/json writes a
// bills.ClosedBillsResponse (each summary's status "closed", its
// lastUpdated in client.BillTimeLayout), info's requestInfo last, in
// chunks of closedBillsChunk. The list of a busy location holds tens of
// thousands of bills; built whole, with encoding/json, it cost twice the
// time and memory that grew with it. TestClosedBillsBody holds the bytes
// to encoding/json's.
func writeClosedBills(w io.Writer, rows *store.ClosedBills, info func() client.RequestInfo) error {
	buf := make([]byte, 0, closedBillsChunk+256)
	buf = append(buf, `{"bills":[`...)
	var at billTimes
	for n := 0; rows.Next(); n++ {
		if n > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, `{"billId":`...)
		buf = appendJSONString(buf, rows.BillID())
		buf = append(buf, `,"status":"closed","lastUpdated":"`...)
		buf = at.append(buf, rows.LastUpdated())
		buf = append(buf, `"}`...)
		if len(buf) >= closedBillsChunk {
			if _, err := w.Write(buf); err != nil {
				return err
			}
			buf = buf[:0]
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	ri, err := json.Marshal(info())
	if err != nil {
		return err
	}
	buf = append(buf, `],"requestInfo":`...)
	buf = append(buf, ri...)
	buf = append(buf, '}')
	_, err = w.Write(buf)
	return err
}

// appendJSONString appends s as a JSON string, as encoding/json writes
// it: the server's ids as they are, anything else through encoding/json.
func appendJSONString(b []byte, s string) []byte {
	if plainID(s) {
		b = append(b, '"')
		b = append(b, s...)
		return append(b, '"')
	}
	q, _ := json.Marshal(s) // a string always encodes
	return append(b, q...)
}

// billTimes formats Unix seconds in client.BillTimeLayout, UTC. A list is
// in time order, so most rows share the day of the one before, often its
// second: only the time of day is rewritten then, and nothing at all for
// the same second.
type billTimes struct {
	sec int64
	day int64
	ok  bool
	b   []byte // sec formatted
}

func (t *billTimes) append(dst []byte, sec int64) []byte {
	switch day := sec / 86400; {
	case t.ok && sec == t.sec:
	case t.ok && sec >= 0 && day == t.day:
		s := sec % 86400
		tod := t.b[len(t.b)-8:] // "15:04:05" ends the layout
		put2(tod[0:], s/3600)
		put2(tod[3:], s/60%60)
		put2(tod[6:], s%60)
		t.sec = sec
	default:
		t.b = time.Unix(sec, 0).UTC().AppendFormat(t.b[:0], client.BillTimeLayout)
		t.sec, t.day, t.ok = sec, day, sec >= 0
	}
	return append(dst, t.b...)
}

// put2 writes v (0-99) as two digits.
func put2(b []byte, v int64) {
	b[0] = byte('0' + v/10)
	b[1] = byte('0' + v%10)
}
