package sandbox

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/hospo-dev/hospo-go/client"
)

// JournalQuery selects entries of the request journal. Zero fields select
// everything.
type JournalQuery struct {
	// Limit is the most entries returned, from 1 to the journal's
	// capacity; 0 means the sandbox's default (100).
	Limit int
	// LocationID keeps the requests that concerned this location.
	LocationID int64
	// Status keeps the requests answered with this status ("404") or this
	// class of status ("4xx").
	Status string
	// After keeps the requests recorded after this sequence number: pass
	// the LastSeq of the previous answer to see only what came since.
	After int64
}

// values is q as query parameters.
func (q JournalQuery) values() url.Values {
	v := url.Values{}
	if q.Limit != 0 {
		v.Set("limit", strconv.Itoa(q.Limit))
	}
	if q.LocationID != 0 {
		v.Set("locationId", strconv.FormatInt(q.LocationID, 10))
	}
	if q.Status != "" {
		v.Set("status", q.Status)
	}
	if q.After != 0 {
		v.Set("after", strconv.FormatInt(q.After, 10))
	}
	return v
}

// Journal is a page of the request journal: the latest requests the
// sandbox answered, kept in memory up to its capacity, so that an
// integration can see what reached the service and how it was answered.
type Journal struct {
	// Requests are the selected entries, newest first.
	Requests []JournalEntry `json:"requests"`
	// LastSeq is the sequence number of the newest request recorded,
	// selected or not; pass it as JournalQuery.After to poll.
	LastSeq int64 `json:"lastSeq"`
	// Capacity is how many requests the journal keeps.
	Capacity int `json:"capacity"`
}

// JournalEntry is one request as the sandbox recorded it. It never holds a
// credential or a body: only the ids that a credential stands for.
type JournalEntry struct {
	// Seq numbers the entries in arrival order, from 1.
	Seq int64 `json:"seq"`
	// Time is when the request arrived, on the virtual clock.
	Time time.Time `json:"time"`
	// Method is the HTTP method.
	Method string `json:"method"`
	// Route is the pattern of the matched route, such as
	// /v1/pos/push-pull/heartbeat/{locationId}, or "-" when none matched.
	Route string `json:"route"`
	// Status is the HTTP status of the answer.
	Status int `json:"status"`
	// ErrorCode is the code of an error answer, nil otherwise.
	ErrorCode *client.Code `json:"errorCode"`
	// DurationMs is how long the sandbox took, in milliseconds of real
	// time.
	DurationMs float64 `json:"durationMs"`
	// RequestID is the answer's X-Request-Id, the one an *client.APIError
	// carries.
	RequestID string `json:"requestId"`
	// Credential is the kind of credential that identified the caller:
	// "user", "pos", "apikey", "admin" or "none". A recognised token that
	// the endpoint then refused still names its kind.
	Credential string `json:"credential"`
	// UserID is the user of a user access token.
	UserID *int64 `json:"userId"`
	// POSLocationID is the location a POS access token is bound to.
	POSLocationID *int64 `json:"posLocationId"`
	// KeyID is the id of a vendor API key (APIKey.KeyID).
	KeyID *int64 `json:"keyId"`
	// LocationID is the location the request concerned: named in its path
	// or body, else a POS token's location.
	LocationID *int64 `json:"locationId"`
}

// Requests returns the latest requests the sandbox answered, newest first,
// as selected by q. Reading the journal is not itself recorded. A bad
// query is a 400003 whose message names each bad parameter.
//
// GET /sandbox/requests
func (s *Service) Requests(ctx context.Context, q JournalQuery, opts ...client.Option) (Journal, error) {
	var out Journal
	_, err := s.c.Do(ctx, &client.Request{
		Method: http.MethodGet,
		Route:  "/sandbox/requests",
		Query:  q.values(),
		Auth:   client.AuthAdminKey,
	}, &out, opts...)
	if err != nil {
		return Journal{}, err
	}
	return out, nil
}
