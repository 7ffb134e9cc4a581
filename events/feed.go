package events

import (
	"context"
	"encoding/json"
	"errors"
	"iter"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hospo-dev/hospo-go/client"
)

// The bounds of the feed's query.
const (
	// MaxLimit is the most events one page may hold (FeedQuery.Limit); the
	// service's default is 100.
	MaxLimit = 500
	// MaxWait is the longest the service holds a feed request waiting for
	// a new event (FeedQuery.Wait).
	MaxWait = 30 * time.Second
)

// waitGrace is added to a waiting request's per-attempt timeout, so that
// the service's own timeout ends the wait, not the client's.
const waitGrace = 15 * time.Second

// FeedQuery selects a page of the event feed.
type FeedQuery struct {
	// After is the cursor to read after (an Event.Cursor, a
	// Page.NextCursor or a Feed.Cursor); "" reads from the oldest event
	// the service keeps (7 days). A cursor older than that is 400003
	// (client.ErrInvalidQuery).
	After string
	// Limit is the most events per page, 1 to MaxLimit; 0 means the
	// service's default (100).
	Limit int
	// Types keeps only the events of these types; empty means all.
	Types []Type
	// Wait, when above zero, makes the service hold the request until the
	// first new event or until Wait has passed (then the page is empty).
	// It is sent in whole seconds, rounded up, and may be at most MaxWait.
	Wait time.Duration
}

// Page is one answer of the feed.
type Page struct {
	// Events are oldest first; each has its Cursor set.
	Events []Event `json:"events"`
	// NextCursor is where the next page starts: pass it as
	// FeedQuery.After. It can move on even when Events is empty (past
	// events that Types filtered out). It is nil (null on the wire) when
	// nothing has been read yet: a first page without events.
	NextCursor  *string            `json:"nextCursor"`
	RequestInfo client.RequestInfo `json:"requestInfo"`
}

// ErrStaleCursor is matched (errors.Is) by the 400003 of a cursor the feed
// cannot go on from: one older than the events the service keeps (7
// days), or one made before the sandbox was reset or a snapshot restored.
// Sequence numbers start again after a reset, and a restore brings back
// an earlier history, so such a cursor would skip events; the service
// refuses it instead. The error is also a *client.APIError whose
// ContextData is {"after": "expired"} or {"after": "reset"}. Read the feed
// again without a cursor (a Feed that meets the error does so on its next
// iteration), and de-duplicate by Event.ID.
var ErrStaleCursor = errors.New("events: the feed cannot go on from this cursor; read it again from the start")

// staleCursor returns err, wrapped so that it matches ErrStaleCursor when
// it is the 400003 of a stale cursor.
func staleCursor(err error) error {
	var ae *client.APIError
	if !errors.As(err, &ae) || ae.Code != client.CodeInvalidQuery || len(ae.ContextData) == 0 {
		return err
	}
	var cd struct {
		After string `json:"after"`
	}
	if json.Unmarshal(ae.ContextData, &cd) != nil || (cd.After != "expired" && cd.After != "reset") {
		return err
	}
	return &staleCursorError{err}
}

// staleCursorError is an error of a stale cursor: it matches
// ErrStaleCursor and unwraps to the *client.APIError.
type staleCursorError struct{ err error }

func (e *staleCursorError) Error() string        { return e.err.Error() }
func (e *staleCursorError) Unwrap() error        { return e.err }
func (e *staleCursorError) Is(target error) bool { return target == ErrStaleCursor }

// ListEvents reads one page of the events of the key's locations, oldest
// first. Most programs use Feed instead, which follows the cursors.
//
// When q.Wait is set, the call's per-attempt timeout is raised to the wait
// plus a margin (a client.WithTimeout in opts still wins).
//
// GET /v1/events?after=&limit=&types=&wait=
func (s *Service) ListEvents(ctx context.Context, q FeedQuery, opts ...client.Option) (*Page, error) {
	v := url.Values{}
	if q.After != "" {
		v.Set("after", q.After)
	}
	if q.Limit != 0 {
		v.Set("limit", strconv.Itoa(q.Limit))
	}
	if len(q.Types) > 0 {
		names := make([]string, len(q.Types))
		for i, t := range q.Types {
			names[i] = string(t)
		}
		v.Set("types", strings.Join(names, ","))
	}
	if q.Wait > 0 {
		secs := (q.Wait + time.Second - 1) / time.Second
		v.Set("wait", strconv.FormatInt(int64(secs), 10))
		opts = append([]client.Option{client.WithTimeout(secs*time.Second + waitGrace)}, opts...)
	}
	var out Page
	_, err := s.c.Do(ctx, &client.Request{
		Method: http.MethodGet,
		Route:  "/v1/events",
		Query:  v,
		Auth:   client.AuthAPIKey,
	}, &out, opts...)
	if err != nil {
		return nil, staleCursor(err)
	}
	if out.Events == nil {
		out.Events = []Event{}
	}
	return &out, nil
}

// Feed returns a reader of the event feed that starts after q.After and
// follows the cursors from page to page; q's Limit, Types and Wait apply
// to every page, and opts to every request. Nothing is sent until one of
// its iterators runs.
func (s *Service) Feed(q FeedQuery, opts ...client.Option) *Feed {
	return &Feed{s: s, q: q, opts: opts, cursor: q.After}
}

// Feed reads the event feed page after page (Service.Feed). It remembers
// how far it got: Cursor returns the position to save, and a later
// iteration, or a Feed made with that cursor as FeedQuery.After, goes on
// from there.
//
// Run one iteration of a Feed at a time; Cursor may be called at any time,
// from any goroutine.
type Feed struct {
	s    *Service
	q    FeedQuery
	opts []client.Option

	mu     sync.Mutex
	cursor string
}

// Cursor returns the position after the last event the loop finished
// with, or after the last whole page (which may skip events that
// FeedQuery.Types filtered out); before any, FeedQuery.After.
//
// After an iteration ended with ErrStaleCursor (the sandbox was reset or
// a snapshot restored, or the cursor is older than the events kept),
// Cursor is "": the next iteration reads the feed again from the oldest
// event kept.
//
// An event whose loop body ended with break or return is not counted:
// resuming from Cursor delivers it again. Together with deduplication by
// Event.ID, that makes a resumed consumer see every event at least once.
// To count such an event as handled, save its Event.Cursor instead.
func (f *Feed) Cursor() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.cursor
}

func (f *Feed) setCursor(c string) {
	if c == "" {
		return
	}
	f.mu.Lock()
	f.cursor = c
	f.mu.Unlock()
}

// ErrFeedStuck is yielded when the service answers a page of events whose
// cursors do not move the feed on, which would make the Feed read the
// same page forever.
var ErrFeedStuck = errors.New("events: the feed's cursor did not advance")

// All yields the events after the Feed's cursor, page after page, and ends
// at the first page without events: the feed is caught up. With
// FeedQuery.Wait set, that last page first waits for new events.
//
// An error ends the iteration: it is yielded as (Event{}, err) and nothing
// follows it; when ctx ended, the error is ctx's.
//
//	feed := svc.Feed(events.FeedQuery{After: saved})
//	for ev, err := range feed.All(ctx) {
//		if err != nil {
//			return err
//		}
//		handle(ev)
//	}
//	saved = feed.Cursor()
func (f *Feed) All(ctx context.Context) iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		for {
			n, ok, err := f.page(ctx, f.q.Wait, yield)
			if err != nil {
				if ctx.Err() != nil {
					err = ctx.Err()
				}
				yield(Event{}, err)
				return
			}
			if !ok || n == 0 {
				return
			}
		}
	}
}

// Follow yields the events after the Feed's cursor as they happen, until
// ctx ends: it reads page after page, and when the feed is caught up it
// long-polls (FeedQuery.Wait; MaxWait when zero or above it), so that a new event
// arrives within moments.
//
// Follow ends without an error when ctx ends: cancelling ctx is how to
// stop it. Any other error (once the client's retries are spent) is
// yielded as (Event{}, err) and ends the iteration; resume with a new
// iteration, which goes on from Cursor. An error that matches
// ErrStaleCursor has set Cursor to "", so that the new iteration reads
// the new history from its start.
//
//	for ev, err := range feed.Follow(ctx) {
//		if err != nil {
//			return err
//		}
//		handle(ev)
//	}
func (f *Feed) Follow(ctx context.Context) iter.Seq2[Event, error] {
	wait := f.q.Wait
	if wait <= 0 || wait > MaxWait {
		wait = MaxWait
	}
	return func(yield func(Event, error) bool) {
		for ctx.Err() == nil {
			_, ok, err := f.page(ctx, wait, yield)
			if err != nil {
				if ctx.Err() == nil {
					yield(Event{}, err)
				}
				return
			}
			if !ok {
				return
			}
		}
	}
}

// page reads one page after the cursor and yields its events, moving the
// cursor past each event the loop finished with and, at the end, to the
// page's NextCursor. It returns the number of events, and ok false when
// the loop stopped.
func (f *Feed) page(ctx context.Context, wait time.Duration, yield func(Event, error) bool) (n int, ok bool, err error) {
	q := f.q
	q.After = f.Cursor()
	q.Wait = wait
	p, err := f.s.ListEvents(ctx, q, f.opts...)
	if errors.Is(err, ErrStaleCursor) {
		// The next iteration starts again from the oldest event kept, if
		// the cursor is still the one refused.
		f.mu.Lock()
		if f.cursor == q.After {
			f.cursor = ""
		}
		f.mu.Unlock()
	}
	if err != nil {
		return 0, false, err
	}
	for _, ev := range p.Events {
		if !yield(ev, nil) {
			return len(p.Events), false, nil
		}
		f.setCursor(ev.Cursor)
	}
	if p.NextCursor != nil {
		f.setCursor(*p.NextCursor)
	}
	if len(p.Events) > 0 && f.Cursor() == q.After {
		return len(p.Events), false, ErrFeedStuck
	}
	return len(p.Events), true, nil
}
