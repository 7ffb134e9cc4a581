package api

import (
	"net/http"
	"time"
)

// KeyAttempts limits wrong sandbox admin keys per client address: each
// address may send Burst wrong keys, then one more every Every. While an
// address has none left, every admin request from it is refused with
// 429001, the right key included: otherwise a guesser would still learn,
// at full speed, which guess is right. A request without a key is no
// guess and costs nothing. The admin guard and the console's login share
// one KeyAttempts.
type KeyAttempts struct {
	rl *RateLimiter
}

// NewKeyAttempts returns a limit of burst wrong keys per address and one
// more every every, on the real clock now.
func NewKeyAttempts(burst int, every time.Duration, now func() time.Time) *KeyAttempts {
	return &KeyAttempts{rl: NewRateLimiter(1/every.Seconds(), burst, now)}
}

// Wait returns how long r's client must wait before it may try a key
// again; 0 when it may try now.
func (a *KeyAttempts) Wait(r *http.Request) time.Duration {
	return a.rl.wait("addr:" + clientAddr(r))
}

// Failed counts a wrong key from r's client.
func (a *KeyAttempts) Failed(r *http.Request) {
	a.rl.Allow("addr:" + clientAddr(r))
}
