package refserver

import (
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hospo-dev/hospo-go/events"
	"github.com/hospo-dev/hospo-go/refserver/internal/api"
	"github.com/hospo-dev/hospo-go/refserver/rules"
	"github.com/hospo-dev/hospo-go/refserver/store"
)

// handleEventFeed serves GET
// /v1/events?after=&limit=&types=&wait= (rules.ReadFeed). With wait, a
// read that finds nothing waits for the next commit of an event it can
// match (one of the key's locations or its own pings, of the types asked
// for), and reads again, until the wait is over. It holds a place under
// Config.MaxInFlight only while it reads: while it waits it holds no
// place, no database connection and never the writer, and counts against
// the bounds of waiting feed requests instead (feedWaits).
func (s *Server) handleEventFeed(w http.ResponseWriter, r *http.Request) {
	q, perr := parseQuery(r.URL.RawQuery)
	if perr != nil {
		s.api.Error(w, r, perr)
		return
	}
	req := rules.FeedRequest{After: q.Get("after")}
	var qerr error
	if req.Limit, qerr = queryInt(q, "limit", rules.DefaultFeedLimit, 1, events.MaxLimit); qerr != nil {
		s.api.Error(w, r, qerr)
		return
	}
	wait, qerr := queryInt(q, "wait", 0, 0, int(events.MaxWait/time.Second))
	if qerr != nil {
		s.api.Error(w, r, qerr)
		return
	}
	if t := q.Get("types"); t != "" {
		for name := range strings.SplitSeq(t, ",") {
			req.Types = append(req.Types, events.Type(name))
		}
		if qerr := rules.CheckFeedTypes(req.Types); qerr != nil {
			s.api.Error(w, r, qerr)
			return
		}
	}
	p := api.RequestFrom(r.Context()).Principal()
	match := store.FeedWait{KeyID: p.KeyID, Locations: p.LocationIDs}
	for _, t := range req.Types {
		match.Types = append(match.Types, string(t))
	}

	var timeout <-chan time.Time
	select {
	case <-s.stopWaits:
		wait = 0 // shutting down: answer with what there is
	default:
	}
	if wait > 0 {
		t := time.NewTimer(time.Duration(wait) * time.Second)
		defer t.Stop()
		timeout = t.C
	}
	var (
		out     events.Page
		waiting bool // counted in s.feedWaits
	)
	defer func() {
		if waiting {
			s.feedWaits.leave(p.KeyID)
		}
	}()
	for {
		// Registered before the read, so that an event committed after
		// the read's snapshot still ends the wait.
		var ready <-chan struct{}
		stop := func() {}
		if timeout != nil {
			ready, stop = s.db.WaitForEvents(match)
		}
		err := s.readFeed(r, p.KeyID, req, &out)
		if err == nil && len(out.Events) == 0 && timeout != nil && !waiting {
			if err = s.feedWaits.enter(p.KeyID); err == nil {
				waiting = true
			}
		}
		if err != nil {
			stop()
			s.api.Error(w, r, err)
			return
		}
		if len(out.Events) > 0 || timeout == nil {
			stop()
			break
		}
		select {
		case <-ready:
			stop()
			continue
		case <-timeout:
		case <-s.stopWaits:
		case <-r.Context().Done():
			stop()
			return
		}
		stop()
		break
	}
	out.RequestInfo = s.api.Info(r)
	s.api.JSON(w, r, http.StatusOK, out)
}

// readFeed reads a page of the feed into f, in a place under
// Config.MaxInFlight. Like every read it checks the API key again when the
// sandbox was reset or a snapshot restored since the guard admitted it
// (api.Reads.Run): a key that went with the data gets its 401004, not an
// empty page.
func (s *Server) readFeed(r *http.Request, keyID int64, req rules.FeedRequest, f *events.Page) error {
	release, ok := s.inFlight.Hold(r.Context())
	if !ok {
		return api.TooManyRequests(time.Second)
	}
	defer release()
	return s.reads.Run(r, func(tx *store.Tx) (err error) {
		*f, err = rules.ReadFeed(tx, keyID, req)
		return err
	})
}

// feedWaits bounds the feed requests waiting for events: at most max at
// once, and perKey of one API key, so that one key's followers cannot
// take every place, and the server's connections and goroutines stay
// bounded however many clients follow the feed.
type feedWaits struct {
	max, perKey int

	mu    sync.Mutex
	total int
	byKey map[int64]int
}

// feedWaitRetry is the Retry-After of a wait refused by the bounds: places
// come free as events arrive or waits end, within MaxWait.
const feedWaitRetry = 5 * time.Second

func newFeedWaits(max, perKey int) *feedWaits {
	return &feedWaits{max: max, perKey: perKey, byKey: map[int64]int{}}
}

// enter counts a wait of keyID, or returns the 429001 that refuses it.
func (f *feedWaits) enter(keyID int64) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case f.byKey[keyID] >= f.perKey:
		e := api.TooManyRequests(feedWaitRetry)
		e.Message = "Too many event feed requests of this API key are waiting for events (at most " + strconv.Itoa(f.perKey) +
			" at once); wait in fewer requests, or retry after Retry-After."
		return e
	case f.total >= f.max:
		e := api.TooManyRequests(feedWaitRetry)
		e.Message = "Too many event feed requests are waiting for events on this server (at most " + strconv.Itoa(f.max) +
			" at once); retry after Retry-After."
		return e
	}
	f.byKey[keyID]++
	f.total++
	return nil
}

// leave ends a wait that enter counted.
func (f *feedWaits) leave(keyID int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.total--
	if f.byKey[keyID]--; f.byKey[keyID] <= 0 {
		delete(f.byKey, keyID)
	}
}

// count returns the waits counted now.
func (f *feedWaits) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.total
}
