package events_test

import (
	"context"
	"errors"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/events"
	"github.com/hospo-dev/hospo-go/possync"
)

// pushClosed pushes check number of the world's venue, closed: one
// bill.closed.
func (w *world) pushClosed(t *testing.T, number int64) {
	t.Helper()
	c := w.venue.OpenCheck(number, "10.00")
	c.Status = possync.CheckClosed
	w.venue.PushCheck(t, c)
}

// Feed.All reads the events page after page, in the order of a single
// page; a Feed made from a saved cursor goes on where the first stopped.
func TestE2EFeedResumesFromACursor(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	ctx := t.Context()
	w.venue.Heartbeat(t)
	for n := int64(1); n <= 6; n++ {
		w.pushClosed(t, n)
	}
	one, err := w.events.ListEvents(ctx, events.FeedQuery{Limit: events.MaxLimit})
	if err != nil {
		t.Fatal(err)
	}
	if len(one.Events) != 7 {
		t.Fatalf("one page holds %v, want location.online and 6 bill.closed", eventTypes(one.Events))
	}
	paged := w.feed(t, events.FeedQuery{Limit: 2}) // four pages
	if d := cmp.Diff(eventIDs(one.Events), eventIDs(paged)); d != "" {
		t.Errorf("Feed.All by pages of 2 (-one page +paged):\n%s", d)
	}

	// A consumer handles three events and stops in the middle of the
	// third: resuming from the feed's cursor delivers the third again.
	feed := w.events.Feed(events.FeedQuery{Limit: 2})
	var seen []events.Event
	for ev, err := range feed.All(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		seen = append(seen, ev)
		if len(seen) == 3 {
			break
		}
	}
	saved := feed.Cursor()
	if saved != seen[1].Cursor {
		t.Errorf("Cursor after stopping in the third event = %q, want the second's %q", saved, seen[1].Cursor)
	}
	rest := w.feed(t, events.FeedQuery{After: saved})
	if d := cmp.Diff(eventIDs(one.Events[2:]), eventIDs(rest)); d != "" {
		t.Errorf("resumed feed (-want +got):\n%s", d)
	}

	// Caught up, the feed stays where it is; a new event follows on.
	end := w.events.Feed(events.FeedQuery{After: rest[len(rest)-1].Cursor})
	if ids, err := collect(end.All(ctx), 0); err != nil || len(ids) != 0 {
		t.Errorf("caught-up feed read %v, %v", ids, err)
	}
	w.pushClosed(t, 7)
	all := w.feed(t, events.FeedQuery{})
	if ids, err := collect(end.All(ctx), 0); err != nil || len(ids) != 1 || ids[0] != all[len(all)-1].ID {
		t.Errorf("after one more bill.closed the feed read %v, %v; want %s", ids, err, all[len(all)-1].ID)
	}
}

// waitSignal is a transport that tells when a long-polling feed request
// (one with wait=) goes out, and counts them.
type waitSignal struct {
	next    http.RoundTripper
	waiting chan struct{}
	sent    atomic.Int32
}

func (s *waitSignal) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.URL.Query().Get("wait") != "" {
		s.sent.Add(1)
		select {
		case s.waiting <- struct{}{}:
		default:
		}
	}
	return s.next.RoundTrip(r)
}

// Follow long-polls once caught up, and a new event wakes it: it arrives
// as the answer to the waiting request, not to one sent after the wait
// ran out.
func TestE2EFollowWakesOnANewEvent(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.venue.Heartbeat(t)
	start := w.feed(t, events.FeedQuery{})
	if len(start) != 1 {
		t.Fatalf("feed %v, want location.online", eventTypes(start))
	}

	sig := &waitSignal{next: http.DefaultTransport, waiting: make(chan struct{}, 1)}
	svc := events.NewService(w.env.Client(t, client.WithAPIKey(w.key), client.WithHTTPClient(&http.Client{Transport: sig})))
	// The bound only catches a hang: which request the event answered
	// tells whether the wait woke.
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	got := make(chan events.Event, 1)
	go func() {
		defer close(got)
		for ev, err := range svc.Feed(events.FeedQuery{After: start[0].Cursor, Wait: events.MaxWait}).Follow(ctx) {
			if err != nil {
				t.Errorf("Follow: %v", err)
				return
			}
			got <- ev
			return
		}
	}()
	select {
	case <-sig.waiting:
	case <-ctx.Done():
		t.Fatal("Follow sent no waiting request")
	}
	w.pushClosed(t, 1)
	select {
	case ev, ok := <-got:
		if !ok || ev.Type != events.TypeBillClosed {
			t.Fatalf("Follow yielded %+v (%v)", ev, ok)
		}
		if n := sig.sent.Load(); n != 1 {
			t.Errorf("the event came with waiting request %d: the first did not wake on it", n)
		}
	case <-ctx.Done():
		t.Fatal("Follow did not wake on the new event")
	}
}

// A cursor kept across a snapshot restore, whose events' sequence
// numbers the new events reuse, is refused with ErrStaleCursor rather than
// silently skipping the new events; the Feed then reads the restored
// history from its start. A cursor of the history the snapshot holds goes
// on as before.
func TestE2EFeedStartsAgainAfterARestore(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	ctx := t.Context()
	w.venue.Heartbeat(t)
	before := w.feed(t, events.FeedQuery{})
	snap := w.env.Snapshot(t, "online")
	for n := int64(1); n <= 6; n++ {
		w.pushClosed(t, n)
	}
	feed := w.events.Feed(events.FeedQuery{})
	if ids, err := collect(feed.All(ctx), 0); err != nil || len(ids) != 7 {
		t.Fatalf("feed before the restore: %v, %v", ids, err)
	}

	w.env.Restore(t, snap.SnapshotID)
	for n := int64(11); n <= 15; n++ {
		w.pushClosed(t, n)
	}
	_, err := collect(feed.All(ctx), 0)
	if !errors.Is(err, events.ErrStaleCursor) || !errors.Is(err, client.ErrInvalidQuery) {
		t.Fatalf("feed after the restore: %v, want ErrStaleCursor", err)
	}
	var ae *client.APIError
	if !errors.As(err, &ae) || string(ae.ContextData) != `{"after":"reset"}` {
		t.Errorf("contextData %s", ae.ContextData)
	}
	if c := feed.Cursor(); c != "" {
		t.Errorf("Cursor after ErrStaleCursor = %q, want it cleared", c)
	}
	again, err := collect(feed.All(ctx), 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := eventTypes(w.feed(t, events.FeedQuery{})); len(again) != 6 || len(got) != 6 {
		t.Errorf("restored feed: %d events read again, %v in all; want location.online and 5 bill.closed", len(again), got)
	}

	// The event before the snapshot is in both histories: its cursor
	// still reads on, to the five new events.
	rest := w.feed(t, events.FeedQuery{After: before[0].Cursor})
	if d := cmp.Diff(again[1:], eventIDs(rest)); d != "" {
		t.Errorf("feed after the snapshot's cursor (-want +got):\n%s", d)
	}
}
