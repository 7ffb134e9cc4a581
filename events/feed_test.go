package events_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/events"
	"github.com/hospo-dev/hospo-go/internal/sdktest"
)

// fakeFeed is an event feed behind httpmock: events "evt_<n>" at cursor
// "c<n>", with after, limit and types applied as the service does.
type fakeFeed struct {
	t testing.TB

	mu     sync.Mutex
	events []events.Event
	// caughtUp, when set, answers a request that finds nothing new,
	// instead of an empty page; it may add events with add.
	caughtUp func(q url.Values) *http.Response
	queries  []url.Values
}

func (f *fakeFeed) add(types ...events.Type) {
	for _, typ := range types {
		n := len(f.events) + 1
		f.events = append(f.events, events.Event{
			ID: "evt_" + strconv.Itoa(n), Type: typ, CreatedAt: unix(1700000000 + int64(n)),
			LocationID: ptr[int64](3), Data: json.RawMessage(`{}`), Cursor: "c" + strconv.Itoa(n),
		})
	}
}

func (f *fakeFeed) respond(r *http.Request) (*http.Response, error) {
	if r.Header.Get(client.HeaderAPIKey) != testKey {
		return sdktest.ErrorResponse(client.CodeAPIKeyInvalid), nil
	}
	q := r.URL.Query()
	f.mu.Lock()
	defer f.mu.Unlock()
	f.queries = append(f.queries, q)
	start := 0
	if a := q.Get("after"); a != "" {
		n, err := strconv.Atoi(strings.TrimPrefix(a, "c"))
		if err != nil || n > len(f.events) {
			return sdktest.ErrorResponse(client.CodeInvalidQuery), nil
		}
		start = n
	}
	limit := 100
	if l := q.Get("limit"); l != "" {
		limit, _ = strconv.Atoi(l)
	}
	var types []string
	if ts := q.Get("types"); ts != "" {
		types = strings.Split(ts, ",")
	}
	page := events.Page{Events: []events.Event{}}
	if after := q.Get("after"); after != "" {
		page.NextCursor = &after
	}
	for _, ev := range f.events[start:] {
		if len(page.Events) == limit {
			break
		}
		page.NextCursor = &ev.Cursor
		if types == nil || slices.Contains(types, string(ev.Type)) {
			page.Events = append(page.Events, ev)
		}
	}
	if len(page.Events) == 0 && f.caughtUp != nil {
		return f.caughtUp(q), nil
	}
	b, _ := json.Marshal(page)
	return sdktest.JSONResponse(200, string(b)), nil
}

func (f *fakeFeed) service() *events.Service {
	s, m := newMockService(f.t)
	m.Handle(http.MethodGet, "v1/events", f.respond)
	return s
}

func (f *fakeFeed) afters() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, q := range f.queries {
		out = append(out, q.Get("after"))
	}
	return out
}

// collect runs seq to its end (or to n events, when n > 0) and returns the
// event ids and the error it ended with.
func collect(seq func(func(events.Event, error) bool), n int) (ids []string, err error) {
	for ev, e := range seq {
		if e != nil {
			return ids, e
		}
		ids = append(ids, ev.ID)
		if len(ids) == n {
			break
		}
	}
	return ids, nil
}

func TestListEvents(t *testing.T) {
	t.Parallel()
	s, m := newMockService(t)
	rec := m.Reply(http.MethodGet, "v1/events", 200, `{"events":[
		{"id":"evt_7","type":"ping","createdAt":1700000000,"locationId":null,"data":{"webhookId":"wh_1"},"cursor":"c7"}],
		"nextCursor":"c7",`+requestInfoJSON+`}`)
	p, err := s.ListEvents(context.Background(), events.FeedQuery{
		After: "c6", Limit: 50, Types: []events.Type{events.TypePing, events.TypeBillClosed}, Wait: 1500e6,
	})
	if err != nil {
		t.Fatal(err)
	}
	r := rec.Last(t)
	sdktest.TestPath(t, r, http.MethodGet, "/prefix/v1/events")
	testAPIKey(t, r)
	want := url.Values{"after": {"c6"}, "limit": {"50"}, "types": {"ping,bill.closed"}, "wait": {"2"}}
	if d := cmp.Diff(want, r.Query); d != "" {
		t.Errorf("query (-want +got):\n%s", d)
	}
	if len(p.Events) != 1 || p.Events[0].Cursor != "c7" || p.NextCursor == nil || *p.NextCursor != "c7" || p.Events[0].LocationID != nil {
		t.Errorf("page = %+v", p)
	}

	// The zero query sends nothing, and errors are the service's.
	rec = m.Reply(http.MethodGet, "v1/events", 400, sdktest.ErrorBody(client.CodeInvalidQuery, ""))
	if _, err := s.ListEvents(context.Background(), events.FeedQuery{}); !errors.Is(err, client.ErrInvalidQuery) {
		t.Errorf("ListEvents = %v, want ErrInvalidQuery", err)
	}
	if q := rec.Last(t).Query; len(q) != 0 {
		t.Errorf("query of the zero FeedQuery = %v", q)
	}
}

func TestFeedAllFollowsCursors(t *testing.T) {
	t.Parallel()
	f := &fakeFeed{t: t}
	f.add(events.TypePing, events.TypeBillClosed, events.TypePing, events.TypePing, events.TypeBillClosed)
	feed := f.service().Feed(events.FeedQuery{Limit: 2})
	ids, err := collect(feed.All(context.Background()), 0)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"evt_1", "evt_2", "evt_3", "evt_4", "evt_5"}, ids); d != "" {
		t.Errorf("ids (-want +got):\n%s", d)
	}
	// Three pages of at most 2, then an empty one that ends the loop.
	if d := cmp.Diff([]string{"", "c2", "c4", "c5"}, f.afters()); d != "" {
		t.Errorf("after values (-want +got):\n%s", d)
	}
	if feed.Cursor() != "c5" {
		t.Errorf("Cursor = %q", feed.Cursor())
	}

	// A later iteration goes on from there.
	f.add(events.TypePing)
	ids, err = collect(feed.All(context.Background()), 0)
	if err != nil || !slices.Equal(ids, []string{"evt_6"}) || feed.Cursor() != "c6" {
		t.Errorf("resumed: %v, %v, cursor %q", ids, err, feed.Cursor())
	}
}

func TestFeedTypesMoveTheCursor(t *testing.T) {
	t.Parallel()
	f := &fakeFeed{t: t}
	f.add(events.TypePing, events.TypeBillClosed, events.TypePing, events.TypePing)
	feed := f.service().Feed(events.FeedQuery{After: "c1", Types: []events.Type{events.TypeBillClosed}})
	ids, err := collect(feed.All(context.Background()), 0)
	if err != nil || !slices.Equal(ids, []string{"evt_2"}) {
		t.Fatalf("ids %v, %v", ids, err)
	}
	// The filtered-out pings after evt_2 are passed over too.
	if feed.Cursor() != "c4" {
		t.Errorf("Cursor = %q, want c4", feed.Cursor())
	}
	if f.queries[0].Get("types") != "bill.closed" {
		t.Errorf("types = %q", f.queries[0].Get("types"))
	}
}

// Breaking out of the loop leaves the cursor before the event whose body
// broke, so that resuming delivers it again.
func TestFeedBreakKeepsEvent(t *testing.T) {
	t.Parallel()
	f := &fakeFeed{t: t}
	f.add(events.TypePing, events.TypePing, events.TypePing)
	s := f.service()
	feed := s.Feed(events.FeedQuery{})
	ids, _ := collect(feed.All(context.Background()), 2)
	if !slices.Equal(ids, []string{"evt_1", "evt_2"}) || feed.Cursor() != "c1" {
		t.Fatalf("ids %v, cursor %q", ids, feed.Cursor())
	}
	resumed := s.Feed(events.FeedQuery{After: feed.Cursor()})
	ids, err := collect(resumed.All(context.Background()), 0)
	if err != nil || !slices.Equal(ids, []string{"evt_2", "evt_3"}) {
		t.Errorf("resumed: %v, %v", ids, err)
	}
}

func TestFeedAllError(t *testing.T) {
	t.Parallel()
	f := &fakeFeed{t: t}
	f.add(events.TypePing, events.TypePing, events.TypePing)
	s, m := newMockService(t)
	n := 0
	m.Handle(http.MethodGet, "v1/events", func(r *http.Request) (*http.Response, error) {
		if n++; n > 1 {
			return sdktest.ErrorResponse(client.CodeInvalidQuery), nil
		}
		return f.respond(r)
	})
	feed := s.Feed(events.FeedQuery{Limit: 2})
	ids, err := collect(feed.All(context.Background()), 0)
	if !errors.Is(err, client.ErrInvalidQuery) || !slices.Equal(ids, []string{"evt_1", "evt_2"}) || feed.Cursor() != "c2" {
		t.Errorf("ids %v, err %v, cursor %q", ids, err, feed.Cursor())
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := collect(feed.All(ctx), 0); !errors.Is(err, context.Canceled) {
		t.Errorf("All with a cancelled ctx = %v", err)
	}
}

// A page of events whose cursors go nowhere ends the iteration with
// ErrFeedStuck instead of reading the same page forever.
func TestFeedStuck(t *testing.T) {
	t.Parallel()
	s, m := newMockService(t)
	m.Reply(http.MethodGet, "v1/events", 200, `{"events":[{"id":"evt_1","type":"ping","createdAt":1,"locationId":null,"data":{}}],"nextCursor":null,`+requestInfoJSON+`}`)
	ids, err := collect(s.Feed(events.FeedQuery{}).All(context.Background()), 0)
	if !errors.Is(err, events.ErrFeedStuck) || len(ids) != 1 {
		t.Errorf("ids %v, err %v", ids, err)
	}
}

// Follow long-polls once caught up, yields what arrives, and ends without
// an error when ctx ends.
func TestFeedFollow(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f := &fakeFeed{t: t}
	f.add(events.TypePing, events.TypePing)
	polls := 0
	// A caught-up request stands for the service's wait: the first sees
	// a new event arrive, the second outlives the consumer's ctx.
	f.caughtUp = func(q url.Values) *http.Response {
		polls++
		if polls == 1 {
			f.add(events.TypeBillClosed)
			next := "c3"
			b, _ := json.Marshal(events.Page{Events: f.events[2:], NextCursor: &next})
			return sdktest.JSONResponse(200, string(b))
		}
		cancel()
		return sdktest.JSONResponse(200, `{"events":[],"nextCursor":"c3",`+requestInfoJSON+`}`)
	}
	feed := f.service().Feed(events.FeedQuery{Limit: 1})
	ids, err := collect(feed.Follow(ctx), 0)
	if err != nil {
		t.Fatalf("Follow ended with %v", err)
	}
	if !slices.Equal(ids, []string{"evt_1", "evt_2", "evt_3"}) || feed.Cursor() != "c3" {
		t.Errorf("ids %v, cursor %q", ids, feed.Cursor())
	}
	for _, q := range f.queries {
		if q.Get("wait") != "30" || q.Get("limit") != "1" {
			t.Errorf("query %v, want wait=30 and limit=1", q)
		}
	}
}

func TestFeedFollowError(t *testing.T) {
	t.Parallel()
	s, m := newMockService(t)
	m.Transport.RegisterNoResponder(sdktest.ErrorResponder(client.CodeAPIKeyInvalid))
	ids, err := collect(s.Feed(events.FeedQuery{Wait: 5e9}).Follow(context.Background()), 0)
	if !errors.Is(err, client.ErrAPIKeyInvalid) || len(ids) != 0 {
		t.Errorf("ids %v, err %v", ids, err)
	}
}
