package console

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"net/http"
	"sync"
	"time"
)

// Console sessions. Logging in with the admin key makes a session: a
// random id in an HttpOnly, SameSite=Strict cookie scoped to /console, and
// server-side state (in memory) holding the session's CSRF token. The
// admin key itself never leaves the login request. Sessions follow real
// time, not the virtual clock, so advancing the sandbox clock from the
// console does not log anyone out.

const (
	// cookieName is the session cookie's name.
	cookieName = "hospo_console_session"
	// idleTimeout ends a session that has not been used for a while.
	idleTimeout = 2 * time.Hour
	// maxLifetime ends every session, used or not.
	maxLifetime = 12 * time.Hour
	// maxSessions bounds memory: logging in beyond it ends the oldest
	// session.
	maxSessions = 64
)

// session is one logged-in browser.
type session struct {
	csrf     string    // token every state-changing request must carry
	created  time.Time // real time
	lastSeen time.Time // real time
	flash    string    // message for the next page, shown once
	flashErr bool      // whether flash reports a failure
}

// sessions holds the sessions, keyed by the SHA-256 of their id so that
// the map never holds a usable cookie value. It is safe for concurrent
// use.
type sessions struct {
	now func() time.Time

	mu   sync.Mutex
	byID map[[32]byte]*session
}

func newSessions(now func() time.Time) *sessions {
	return &sessions{now: now, byID: map[[32]byte]*session{}}
}

// randomToken returns 32 random bytes in hex.
func randomToken() string {
	var b [32]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// create starts a session and returns its id (the cookie value).
func (cs *sessions) create() string {
	id := randomToken()
	now := cs.now()
	cs.mu.Lock()
	defer cs.mu.Unlock()
	cs.sweep(now)
	if len(cs.byID) >= maxSessions {
		var oldestKey [32]byte
		var oldest *session
		for k, s := range cs.byID {
			if oldest == nil || s.created.Before(oldest.created) {
				oldestKey, oldest = k, s
			}
		}
		delete(cs.byID, oldestKey)
	}
	cs.byID[sha256.Sum256([]byte(id))] = &session{csrf: randomToken(), created: now, lastSeen: now}
	return id
}

// sweep drops expired sessions. cs.mu must be held.
func (cs *sessions) sweep(now time.Time) {
	for k, s := range cs.byID {
		if s.expired(now) {
			delete(cs.byID, k)
		}
	}
}

func (s *session) expired(now time.Time) bool {
	return now.Sub(s.lastSeen) > idleTimeout || now.Sub(s.created) > maxLifetime
}

// lookup returns the live session with the given id and marks it used; an
// expired one is removed.
func (cs *sessions) lookup(id string) (*session, bool) {
	if id == "" {
		return nil, false
	}
	key := sha256.Sum256([]byte(id))
	now := cs.now()
	cs.mu.Lock()
	defer cs.mu.Unlock()
	s, ok := cs.byID[key]
	if !ok {
		return nil, false
	}
	if s.expired(now) {
		delete(cs.byID, key)
		return nil, false
	}
	s.lastSeen = now
	return s, true
}

// end removes the session with the given id.
func (cs *sessions) end(id string) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	delete(cs.byID, sha256.Sum256([]byte(id)))
}

// csrfToken returns the session's CSRF token.
func (cs *sessions) csrfToken(s *session) string {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return s.csrf
}

// checkCSRF reports whether token is the session's CSRF token, in
// constant time.
func (cs *sessions) checkCSRF(s *session, token string) bool {
	want := cs.csrfToken(s)
	return token != "" && subtle.ConstantTimeCompare([]byte(token), []byte(want)) == 1
}

// setFlash leaves a message for the session's next page.
func (cs *sessions) setFlash(s *session, msg string, isErr bool) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	s.flash, s.flashErr = msg, isErr
}

// takeFlash returns and clears the session's message.
func (cs *sessions) takeFlash(s *session) (msg string, isErr bool) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	msg, isErr = s.flash, s.flashErr
	s.flash, s.flashErr = "", false
	return msg, isErr
}

// sessionCookie is the cookie that carries a session id. Secure when the
// request came over TLS (the sandbox's HTTPS listener serves the console
// too); a plain-HTTP sandbox on localhost could not set a Secure cookie.
func sessionCookie(r *http.Request, id string, maxAge int) *http.Cookie {
	return &http.Cookie{
		Name:     cookieName,
		Value:    id,
		Path:     Prefix,
		MaxAge:   maxAge,
		HttpOnly: true,
		Secure:   r.TLS != nil,
		SameSite: http.SameSiteStrictMode,
	}
}
