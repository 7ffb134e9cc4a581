package refserver

import (
	"net/http"
	"strings"
	"time"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/events"
	"github.com/hospo-dev/hospo-go/refserver/internal/api"
	"github.com/hospo-dev/hospo-go/refserver/rules"
	"github.com/hospo-dev/hospo-go/refserver/store"
)

type feedResponse struct {
	rules.Feed
	RequestInfo client.RequestInfo `json:"requestInfo"`
}

// handleEventFeed serves GET
// /v1/events?after=&limit=&types=&wait= (rules.ReadFeed). With wait, a
// read that finds nothing waits for the next commit that records an
// event, and reads again, until the wait is over. While it waits it holds
// no database connection and never the writer.
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
	keyID := api.RequestFrom(r.Context()).Principal().KeyID

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
	var out feedResponse
	for {
		// Taken before the read, so that an event committed after the
		// read's snapshot still wakes the wait.
		signal := s.db.EventSignal()
		err := s.db.Read(r.Context(), func(tx *store.Tx) (err error) {
			out.Feed, err = rules.ReadFeed(tx, keyID, req)
			return err
		})
		if err != nil {
			s.api.Error(w, r, err)
			return
		}
		if len(out.Events) > 0 || timeout == nil {
			break
		}
		s.feedWaits.Add(1)
		select {
		case <-signal:
			s.feedWaits.Add(-1)
			continue
		case <-timeout:
		case <-s.stopWaits:
		case <-r.Context().Done():
			s.feedWaits.Add(-1)
			return
		}
		s.feedWaits.Add(-1)
		break
	}
	out.RequestInfo = s.api.Info(r)
	s.api.JSON(w, r, http.StatusOK, out)
}
