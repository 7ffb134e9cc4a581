package console

import (
	"context"
	"net/http"
	"strings"
)

// maxForm caps the body of the console's form posts.
const maxForm = 64 << 10

// csrfField and csrfHeader carry the session's CSRF token in a form post
// and in a script's request.
const (
	csrfField  = "csrf"
	csrfHeader = "X-CSRF-Token"
)

// securityHeaders keeps the console's pages to themselves: scripts and
// styles only from the console, no framing (clickjacking), no caching of
// pages that show sandbox data, and no Referer leaving the console.
func (h *Handler) securityHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hd := w.Header()
		hd.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; "+
			"img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
		hd.Set("X-Content-Type-Options", "nosniff")
		hd.Set("X-Frame-Options", "DENY")
		hd.Set("Referrer-Policy", "no-referrer")
		hd.Set("Cache-Control", "no-store")
		next.ServeHTTP(w, r)
	})
}

type sessionKey struct{}

// sessionFrom returns the request's console session (set by
// requireSession).
func sessionFrom(r *http.Request) *session {
	s, _ := r.Context().Value(sessionKey{}).(*session)
	return s
}

// sessionID returns the session id the request's cookie carries.
func sessionID(r *http.Request) string {
	ck, err := r.Cookie(cookieName)
	if err != nil {
		return ""
	}
	return ck.Value
}

// requireSession admits requests with a live session. Without one, a page
// redirects to the login form, and a live fragment (polled by script)
// answers 401 so that the script can go to the login form itself.
func (h *Handler) requireSession(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sess, ok := h.sessions.lookup(sessionID(r))
		if !ok {
			if strings.HasPrefix(r.URL.Path, livePrefix) {
				http.Error(w, "login required", http.StatusUnauthorized)
				return
			}
			http.Redirect(w, r, Prefix+"/login", http.StatusSeeOther)
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), sessionKey{}, sess)))
	})
}

// checkOrigin refuses state-changing requests that a browser marks as
// cross-origin.
func (h *Handler) checkOrigin(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := h.origin.Check(r); err != nil {
			h.renderError(w, r, http.StatusForbidden, "Cross-origin request refused.")
			return
		}
		next.ServeHTTP(w, r)
	})
}

// requireCSRF admits a state-changing request only with the session's
// CSRF token, in the form field csrf or the header X-CSRF-Token.
func (h *Handler) requireCSRF(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Body = http.MaxBytesReader(w, r.Body, maxForm)
		if err := r.ParseForm(); err != nil {
			h.renderError(w, r, http.StatusBadRequest, "Unreadable form.")
			return
		}
		token := r.Header.Get(csrfHeader)
		if token == "" {
			token = r.PostForm.Get(csrfField)
		}
		if !h.sessions.checkCSRF(sessionFrom(r), token) {
			h.renderError(w, r, http.StatusForbidden, "Missing or wrong CSRF token; reload the page and try again.")
			return
		}
		next.ServeHTTP(w, r)
	})
}
