package console

import (
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"math"
	"net/http"
	"strconv"
)

func (h *Handler) redirectHome(w http.ResponseWriter, r *http.Request) {
	http.Redirect(w, r, Prefix+"/locations", http.StatusSeeOther)
}

// handleLoginPage shows the login form.
func (h *Handler) handleLoginPage(w http.ResponseWriter, r *http.Request) {
	if _, ok := h.sessions.lookup(sessionID(r)); ok {
		h.redirectHome(w, r)
		return
	}
	h.render(w, r, http.StatusOK, "login", pageData{Title: "Log in"})
}

// handleLogin checks the admin key and starts a session. The key is
// compared by its SHA-256 in constant time, like the admin API does, and
// is never stored: the cookie carries a random session id. Wrong keys
// count against the client like wrong keys sent to the admin API
// (Config.KeyAttempts).
func (h *Handler) handleLogin(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxForm)
	if err := r.ParseForm(); err != nil {
		h.renderError(w, r, http.StatusBadRequest, "Unreadable form.")
		return
	}
	if a := h.cfg.KeyAttempts; a != nil {
		if d := a.Wait(r); d > 0 {
			secs := int(math.Ceil(d.Seconds()))
			w.Header().Set("Retry-After", strconv.Itoa(secs))
			h.render(w, r, http.StatusTooManyRequests, "login", pageData{Title: "Log in",
				Flash: fmt.Sprintf("Too many wrong admin keys from this address; try again in %d seconds.", secs), FlashErr: true})
			return
		}
	}
	got := sha256.Sum256([]byte(r.PostForm.Get("adminKey")))
	if subtle.ConstantTimeCompare(got[:], h.adminKey[:]) != 1 {
		h.log.Warn("console login refused: wrong admin key", "client", r.RemoteAddr)
		if a := h.cfg.KeyAttempts; a != nil {
			a.Failed(r)
		}
		h.render(w, r, http.StatusUnauthorized, "login", pageData{Title: "Log in", Flash: "Wrong admin key.", FlashErr: true})
		return
	}
	// A fresh id on every login: a session id planted before login (session
	// fixation) is never promoted.
	if old := sessionID(r); old != "" {
		h.sessions.end(old)
	}
	id := h.sessions.create()
	http.SetCookie(w, sessionCookie(r, id, int(maxLifetime.Seconds())))
	h.log.Info("console login")
	h.redirectHome(w, r)
}

// handleLogout ends the session.
func (h *Handler) handleLogout(w http.ResponseWriter, r *http.Request) {
	h.sessions.end(sessionID(r))
	http.SetCookie(w, sessionCookie(r, "", -1))
	http.Redirect(w, r, Prefix+"/login", http.StatusSeeOther)
}
