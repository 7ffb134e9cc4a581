package api

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"net/http"
	"strings"
)

// selfCallHeader carries SelfCalls' token on the server's own calls to
// itself.
const selfCallHeader = "X-Hospo-Sandbox-Self"

// SelfCalls tells the server's own calls to itself (the POS monitor and
// the order dispatcher calling the demo universal POS under the server's
// base URL) from its clients' calls. The sandbox's faults are its users'
// and must neither be used up nor be suffered by the sandbox's own
// traffic: a catch-all fault of a test would otherwise be consumed by a
// menu sync that happened to run at the time, or fail it. The mark is a
// random token of the process, sent only to the server's own base URLs,
// so no other party ever sees it and a client cannot guess it.
type SelfCalls struct {
	token string
	bases []string
}

// NewSelfCalls returns the SelfCalls of a server answering under the
// base URLs bases (scheme and host, optionally a path).
func NewSelfCalls(bases ...string) *SelfCalls {
	var b [16]byte
	_, _ = rand.Read(b[:])
	s := &SelfCalls{token: hex.EncodeToString(b[:])}
	for _, base := range bases {
		if base != "" {
			s.bases = append(s.bases, strings.TrimRight(base, "/")+"/")
		}
	}
	return s
}

// Client returns a copy of hc whose requests to one of the server's base
// URLs carry the mark.
func (s *SelfCalls) Client(hc *http.Client) *http.Client {
	return WrapTransport(hc, func(next http.RoundTripper) http.RoundTripper { return selfMarking{s: s, next: next} })
}

// Is reports whether r is one of the server's own calls.
func (s *SelfCalls) Is(r *http.Request) bool {
	got := r.Header.Get(selfCallHeader)
	return got != "" && subtle.ConstantTimeCompare([]byte(got), []byte(s.token)) == 1
}

// own reports whether u is under one of the server's base URLs.
func (s *SelfCalls) own(u string) bool {
	for _, base := range s.bases {
		if strings.HasPrefix(u, base) {
			return true
		}
	}
	return false
}

// selfMarking is the transport of SelfCalls.Client.
type selfMarking struct {
	s    *SelfCalls
	next http.RoundTripper
}

func (m selfMarking) RoundTrip(r *http.Request) (*http.Response, error) {
	if !m.s.own(r.URL.String()) {
		return m.next.RoundTrip(r)
	}
	// A RoundTripper must not change the request it was given.
	r = r.Clone(r.Context())
	r.Header.Set(selfCallHeader, m.s.token)
	return m.next.RoundTrip(r)
}
