package sandbox

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/hospo-dev/hospo-go/client"
)

// Clock is the sandbox's virtual clock: real time plus an offset that only
// moves forward. It drives serverTime, POS heartbeat freshness, providerD
// key expiry and bills' lastUpdated alike, so a test can make a POS go
// offline or a key expire without waiting.
type Clock struct {
	// ServerTime is the virtual time when the sandbox answered.
	ServerTime client.UnixTime `json:"serverTime"`
	// OffsetSeconds is how far the virtual clock is ahead of real time.
	OffsetSeconds int64 `json:"offsetSeconds"`
}

// Offset returns OffsetSeconds as a time.Duration.
func (c Clock) Offset() time.Duration { return time.Duration(c.OffsetSeconds) * time.Second }

// Clock returns the virtual clock.
//
// GET /sandbox/clock
func (s *Service) Clock(ctx context.Context, opts ...client.Option) (Clock, error) {
	var out Clock
	_, err := s.c.Do(ctx, &client.Request{
		Method: http.MethodGet,
		Route:  "/sandbox/clock",
		Auth:   client.AuthAdminKey,
	}, &out, opts...)
	if err != nil {
		return Clock{}, err
	}
	return out, nil
}

// AdvanceClock moves the virtual clock forward by d and returns it as it
// now stands. The sandbox counts in whole seconds, so a d with a fraction
// of a second is refused here rather than cut short; a negative d (the
// clock never goes back) is a 400002. The offset is kept across restarts
// until Reset.
//
// It returns once the sandbox has caught up with the new time: every piece
// of work the advance made due (diners' rounds, webhook retries, order
// resends, POS checks, locations going offline, retention) has run and
// committed, so what the caller reads next shows it. AdvanceClock(ctx, 0)
// waits for what is due now.
//
// POST /sandbox/clock
func (s *Service) AdvanceClock(ctx context.Context, d time.Duration, opts ...client.Option) (Clock, error) {
	if d%time.Second != 0 {
		return Clock{}, fmt.Errorf("sandbox: AdvanceClock(%v): the clock moves in whole seconds", d)
	}
	var out Clock
	_, err := s.c.Do(ctx, &client.Request{
		Method: http.MethodPost,
		Route:  "/sandbox/clock",
		Body: struct {
			AdvanceSeconds int64 `json:"advanceSeconds"`
		}{int64(d / time.Second)},
		Auth: client.AuthAdminKey,
	}, &out, opts...)
	if err != nil {
		return Clock{}, err
	}
	return out, nil
}
