package rules

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hospo-dev/hospo-go/bills"
	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/possync"
	"github.com/hospo-dev/hospo-go/refserver/store"
)

// closeBills closes n bills of the scene's location, a few per
// transaction with the clock moved on between them by steps that stay in
// the second, cross minutes, hours and days; ids are the server's kind,
// with now and then one that JSON must escape. It returns the bills as the
// list must show them, in its order.
func closeBills(t testing.TB, s scene, n int) []bills.Summary {
	t.Helper()
	steps := []time.Duration{0, time.Second, 59 * time.Second, 17 * time.Minute, 23 * time.Hour, 0, 3 * time.Second}
	var out []bills.Summary
	for i := 0; i < n; {
		write(t, s.db, func(tx *store.Tx) error {
			for range 5 {
				if i == n {
					break
				}
				id := fmt.Sprintf("0190f7c2-3a4b-7c5d-8e9f-%012d", (i*7919)%1_000_003)
				switch {
				case i%194 == 3:
					id = fmt.Sprintf("bill <%d> \"&\" \u00e9\u2028\xff", i)
				case i%194 == 100:
					// What the store's pages are packed with: commas,
					// digits, a NUL.
					id = fmt.Sprintf("%d,12,\x00\t,", i)
				}
				if _, _, _, err := tx.UpsertCheck(withBillID(id, checkRow(s.loc, int64(1000+i), "closed", 0))); err != nil {
					return err
				}
				out = append(out, bills.Summary{BillID: id, Status: possync.CheckClosed,
					LastUpdated: client.BillTime{Time: time.Unix(tx.Unix(), 0).UTC()}})
				i++
			}
			return nil
		})
		s.clock.Advance(steps[i%len(steps)])
	}
	slices.SortStableFunc(out, func(a, b bills.Summary) int {
		if c := a.LastUpdated.Compare(b.LastUpdated.Time); c != 0 {
			return c
		}
		return strings.Compare(a.BillID, b.BillID)
	})
	return out
}

// TestClosedBillsBody holds the streamed closed-bills list to the bytes
// encoding/json writes for the SDK's bills.ClosedBillsResponse, the
// encoder it replaced: ids plain and escaped, times in the same second,
// across minutes, hours and days, lists of one page of the store's and
// of several, and lists that end or start at any place in a page.
func TestClosedBillsBody(t *testing.T) {
	t.Parallel()
	s := newScene(t)
	all := closeBills(t, s, 1500)
	ri := client.RequestInfo{AccessTokenStatus: "authenticated", ServerTime: 1_900_000_123, APIVersion: 3}
	from, to := all[0].LastUpdated.Unix(), all[len(all)-1].LastUpdated.Unix()
	type testCase struct {
		name     string
		from, to int64
		want     []bills.Summary
	}
	const page = store.ClosedBillsPerPage
	cases := []testCase{
		{"all", from, to, all},
		{"none", 0, 1, []bills.Summary{}},
		{"from the second bill's time", all[1].LastUpdated.Unix(), to, within(all, all[1].LastUpdated.Unix(), to)},
	}
	// Lists that end around the store's pages, and one that starts in a
	// page, so that a page boundary falls in a second and between seconds.
	for _, i := range []int{1, page - 1, page, page + 1, 2*page - 1, 2 * page, 2*page + 1} {
		end := all[i-1].LastUpdated.Unix()
		cases = append(cases, testCase{fmt.Sprintf("to the time of bill %d", i), from, end, within(all, from, end)})
		start := all[i].LastUpdated.Unix()
		cases = append(cases, testCase{fmt.Sprintf("from the time of bill %d", i+1), start, to, within(all, start, to)})
	}
	for _, tc := range cases {
		if tc.want == nil {
			tc.want = []bills.Summary{}
		}
		want, err := json.Marshal(bills.ClosedBillsResponse{Bills: tc.want, RequestInfo: ri})
		if err != nil {
			t.Fatal(err)
		}
		if got := listClosed(t, s.db, s.loc, tc.from, tc.to, ri); !bytes.Equal(got, want) {
			i := 0
			for i < min(len(got), len(want)) && got[i] == want[i] {
				i++
			}
			t.Errorf("%s: body differs from encoding/json's at byte %d of %d:\ngot  ...%.80s\nwant ...%.80s",
				tc.name, i, len(want), got[i:], want[i:])
		}
	}
}

// within returns the summaries with lastUpdated in [from, to].
func within(all []bills.Summary, from, to int64) []bills.Summary {
	var out []bills.Summary
	for _, b := range all {
		if u := b.LastUpdated.Unix(); u >= from && u <= to {
			out = append(out, b)
		}
	}
	return out
}

// chunkWriter records the size of every write.
type chunkWriter struct{ writes []int }

func (w *chunkWriter) Write(p []byte) (int, error) {
	w.writes = append(w.writes, len(p))
	return len(p), nil
}

// TestClosedBillsStreams checks that the list is written in bounded
// chunks as the rows are read, and that what it allocates per bill is
// less than the bill's share of the body, which any list built whole
// would hold: memory does not grow with the answer. (Each page of the
// store's still costs the driver its text as a string, garbage once read.)
func TestClosedBillsStreams(t *testing.T) {
	s := newScene(t)
	all := closeBills(t, s, 6000)
	first, last := all[0].LastUpdated.Unix(), all[len(all)-1].LastUpdated.Unix()
	few := within(all, first, all[499].LastUpdated.Unix())
	list := func(to int64) (allocated uint64, w *chunkWriter) {
		w = &chunkWriter{}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		err := s.db.Read(t.Context(), func(tx *store.Tx) error {
			stream, err := ListClosedBills(tx, s.loc, first, to, func() client.RequestInfo { return client.RequestInfo{} })
			if err != nil {
				return err
			}
			return stream(w)
		})
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatal(err)
		}
		return after.TotalAlloc - before.TotalAlloc, w
	}
	list(last) // warm the statement cache
	small, _ := list(few[len(few)-1].LastUpdated.Unix())
	large, w := list(last)
	body := 0
	for _, n := range w.writes {
		body += n
		if n > closedBillsChunk+256 {
			t.Errorf("a write of %d bytes: the list is to go out in chunks of about %d", n, closedBillsChunk)
		}
	}
	if len(w.writes) < body/(closedBillsChunk+256) {
		t.Errorf("%d writes for %d bytes", len(w.writes), body)
	}
	perBill := float64(large-small) / float64(len(all)-len(few))
	bodyPerBill := float64(body) / float64(len(all))
	t.Logf("%d bills, %d bytes in %d writes; %.1f bytes allocated per bill, %.1f bytes of body per bill",
		len(all), body, len(w.writes), perBill, bodyPerBill)
	if perBill >= bodyPerBill {
		t.Errorf("%.1f bytes allocated per bill, for %.1f bytes of body per bill: the answer is held in memory",
			perBill, bodyPerBill)
	}
}

// cancelWriter ends a context at its first write, as a client that goes
// away once the list has started.
type cancelWriter struct {
	cancel  func()
	written int
}

func (w *cancelWriter) Write(p []byte) (int, error) {
	w.cancel()
	w.written += len(p)
	return len(p), nil
}

// TestClosedBillsStopsWhenContextEnds: a list whose request ends while it
// is being written stops at the store's next page, with the context's
// error, which the server answers by cutting the connection (api.Stream):
// the rest of the list is not read.
func TestClosedBillsStopsWhenContextEnds(t *testing.T) {
	t.Parallel()
	s := newScene(t)
	all := closeBills(t, s, 3*store.ClosedBillsPerPage)
	first, last := all[0].LastUpdated.Unix(), all[len(all)-1].LastUpdated.Unix()
	ri := client.RequestInfo{}
	whole := listClosed(t, s.db, s.loc, first, last, ri)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	w := &cancelWriter{cancel: cancel}
	err := s.db.Read(ctx, func(tx *store.Tx) error {
		stream, err := ListClosedBills(tx, s.loc, first, last, func() client.RequestInfo { return ri })
		if err != nil {
			return err
		}
		return stream(w)
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("list ended with %v, want context.Canceled", err)
	}
	if w.written == 0 || w.written >= len(whole) {
		t.Errorf("%d bytes written of a %d-byte list: want some, not all", w.written, len(whole))
	}
}

// BenchmarkClosedBills streams a list of 6,000 closed bills of one
// location to nowhere; the time per bill is the server's whole cost of the
// list but the network.
//
//	go test -run '^$' -bench ClosedBills -benchtime 20x ./refserver/rules/
func BenchmarkClosedBills(b *testing.B) {
	s := newScene(b)
	all := closeBills(b, s, 6000)
	first, last := all[0].LastUpdated.Unix(), all[len(all)-1].LastUpdated.Unix()
	var w chunkWriter
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		err := s.db.Read(b.Context(), func(tx *store.Tx) error {
			stream, err := ListClosedBills(tx, s.loc, first, last, func() client.RequestInfo { return client.RequestInfo{} })
			if err != nil {
				return err
			}
			return stream(&w)
		})
		if err != nil {
			b.Fatal(err)
		}
		w.writes = w.writes[:0]
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(all)), "ns/bill")
}
