package bills

import (
	"context"
	"errors"
	"iter"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/hospo-dev/hospo-go/client"
)

// MaxRange is the longest range ListClosed accepts in one call: 31 days,
// both ends included. All splits longer ranges into windows of this size.
const MaxRange = 31 * 24 * time.Hour

// DefaultConcurrency is the number of bills All fetches at the same time
// unless WithConcurrency says otherwise. It is small on purpose: the calls
// share the API key's rate limit with everything else the caller does.
const DefaultConcurrency = 4

// API is the set of calls of the Service, for callers that want to replace
// it with a fake in their tests.
type API interface {
	ListClosed(ctx context.Context, locationID int64, from, to time.Time, opts ...client.Option) ([]Summary, error)
	Get(ctx context.Context, billID string, scopes []Scope, opts ...client.Option) (*Bill, error)
	All(ctx context.Context, locationID int64, from, to time.Time, scopes []Scope, opts ...client.Option) iter.Seq2[*Bill, error]
}

var _ API = (*Service)(nil)

// Service calls the closed-bills endpoints. They take the vendor API key
// (client.WithAPIKey) as their credential, from the Client or per call. A
// Service is safe for concurrent use.
//
// Every call takes client options last (opts ...client.Option); they apply
// to that call only, over the Client's settings: another API key
// (client.WithAPIKey), a retry policy, a header.
type Service struct {
	c           *client.Client
	concurrency int
}

// Option configures a Service in NewService. Options of one call are
// client.Option values, passed to the call.
type Option func(*Service)

// WithConcurrency sets how many bills All fetches at the same time. Values
// below 1 mean 1 (one bill after the other).
//
// The requests share the Client's HTTP transport. The client's default
// transport keeps 32 idle connections per host; a Client given its own
// transport (client.WithHTTPClient) should keep at least n, otherwise the
// extra requests open and close a connection each, which can cost more
// than the concurrency gains.
func WithConcurrency(n int) Option {
	return func(s *Service) { s.concurrency = max(n, 1) }
}

// NewService returns a Service that sends its calls through c.
func NewService(c *client.Client, opts ...Option) *Service {
	s := &Service{c: c, concurrency: DefaultConcurrency}
	for _, o := range opts {
		o(s)
	}
	return s
}

// ErrEmptyBillID is returned by Get, without a request, for an empty bill id.
var ErrEmptyBillID = errors.New("bills: empty bill id")

// ListClosed lists the bills of a location that were closed with lastUpdated
// in [from, to], both ends included. The range may span at most MaxRange; use
// All for longer ranges.
//
// lastUpdated has whole-second precision, so from is rounded up and to down
// to a whole second. Both are sent as ISO 8601 with their own offset (the
// "+" of an offset is percent-encoded, as the service requires). Invalid
// ranges are reported by the service as 400003 (client.ErrInvalidQuery); a
// key not scoped to the location gets 403001 (client.ErrForbidden).
//
// GET /v3/location/{locationId}/bills/closed?from=&to=
func (s *Service) ListClosed(ctx context.Context, locationID int64, from, to time.Time, opts ...client.Option) ([]Summary, error) {
	q := url.Values{}
	q.Set("from", client.FormatQueryTime(ceilSecond(from)))
	q.Set("to", client.FormatQueryTime(to.Truncate(time.Second)))
	var out ClosedBillsResponse
	_, err := s.c.Do(ctx, &client.Request{
		Method: http.MethodGet,
		Route:  "/v3/location/{locationId}/bills/closed",
		Params: []string{strconv.FormatInt(locationID, 10)},
		Query:  q,
		Auth:   client.AuthAPIKey,
	}, &out, opts...)
	if err != nil {
		return nil, err
	}
	if out.Bills == nil {
		out.Bills = []Summary{}
	}
	return out.Bills, nil
}

// Get fetches one bill record with the members the scopes select (nil: the
// base record; AllScopes(): everything). The scopes are normalised by
// NormalizeScopes first:
// duplicates dropped, and ScopeTable added when ScopeTableLocation is asked
// for without it. A bill that does not exist, or belongs to a location the
// key is not scoped to, is 404001 (client.ErrNotFound).
//
// GET /v3/bill/{billId}?scope=
func (s *Service) Get(ctx context.Context, billID string, scopes []Scope, opts ...client.Option) (*Bill, error) {
	if billID == "" {
		return nil, ErrEmptyBillID
	}
	var q url.Values
	if sc := NormalizeScopes(scopes); len(sc) > 0 {
		q = url.Values{"scope": {joinScopes(sc)}}
	}
	var out BillResponse
	_, err := s.c.Do(ctx, &client.Request{
		Method: http.MethodGet,
		Route:  "/v3/bill/{billId}",
		Params: []string{billID},
		Query:  q,
		Auth:   client.AuthAPIKey,
	}, &out, opts...)
	if err != nil {
		return nil, err
	}
	return &out.Bill, nil
}

// ceilSecond rounds t up to a whole second.
func ceilSecond(t time.Time) time.Time {
	if r := t.Truncate(time.Second); !r.Equal(t) {
		return r.Add(time.Second)
	}
	return t.Truncate(time.Second) // drops the monotonic reading, like the branch above
}
