package refserver

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"
)

// The sandbox console: server-rendered pages at /console for watching and
// steering the sandbox (locations, checks, payments, orders, wallets, the
// request journal, the clock, faults, reset), behind the admin key.
//
// The console is served in front of the API's middleware chain, not
// inside it: its pages are not API requests (no JSON error bodies, no
// OpenAPI validation, no rate limit, no injected faults), and its own
// polling must not flood the access log or push the API's requests out of
// the journal. Its actions go through the API itself (see adminCall), so
// they are the admin API's logic and show up in the journal like any
// admin request.

// consolePrefix is where the console lives.
const consolePrefix = "/console"

// consoleLivePrefix holds the fragments that pages poll to stay current.
const consoleLivePrefix = consolePrefix + "/live/"

// consoleMaxForm caps the body of the console's form posts.
const consoleMaxForm = 64 << 10

// consoleCSRFField and consoleCSRFHeader carry the session's CSRF token in
// a form post and in a script's request.
const (
	consoleCSRFField  = "csrf"
	consoleCSRFHeader = "X-CSRF-Token"
)

// console serves the sandbox console.
type console struct {
	s        *Server
	api      http.Handler // the API with its full middleware chain
	journal  *journal
	sessions *consoleSessions
	// origin rejects cross-origin state-changing requests (Sec-Fetch-Site
	// and Origin headers), a second line of defence behind the CSRF token
	// and the SameSite=Strict cookie.
	origin   *http.CrossOriginProtection
	adminKey [32]byte // SHA-256 of the admin key
}

// withConsole returns the server's handler: api (the API router with its
// middleware chain) with the console answering under /console in front of
// it. j is the journal the console shows.
func (s *Server) withConsole(api *chi.Mux, j *journal) http.Handler {
	c := &console{
		s:        s,
		api:      api,
		journal:  j,
		sessions: newConsoleSessions(s.clock.Real),
		origin:   http.NewCrossOriginProtection(),
		adminKey: sha256.Sum256([]byte(s.cfg.AdminKey)),
	}
	mux := chi.NewRouter()
	mux.Mount(consolePrefix, c.routes())
	return &consoleFront{Mux: api, console: mux}
}

// consoleFront sends /console and everything under it to the console and
// the rest to the API router. It embeds that router so that the server's
// handler still is a chi.Routes: chi.Walk lists the API's routes (the
// console's pages are not API routes).
type consoleFront struct {
	*chi.Mux
	console http.Handler
}

// ServeHTTP routes the request to the console or the API.
func (f *consoleFront) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == consolePrefix || strings.HasPrefix(r.URL.Path, consolePrefix+"/") {
		f.console.ServeHTTP(w, r)
		return
	}
	f.Mux.ServeHTTP(w, r)
}

// routes are the console's routes, relative to /console.
func (c *console) routes() http.Handler {
	r := chi.NewRouter()
	r.Use(c.securityHeaders, c.recoverer)
	r.NotFound(func(w http.ResponseWriter, r *http.Request) {
		c.renderError(w, r, http.StatusNotFound, "No such console page.")
	})
	r.MethodNotAllowed(func(w http.ResponseWriter, r *http.Request) {
		c.renderError(w, r, http.StatusMethodNotAllowed, "Method not allowed.")
	})

	static, _ := fs.Sub(consoleFiles, "console/static")
	r.Handle("/static/*", http.StripPrefix(consolePrefix+"/static/", http.FileServerFS(static)))
	r.Get("/login", c.handleLoginPage)
	r.With(c.checkOrigin).Post("/login", c.handleLogin)

	r.Group(func(r chi.Router) {
		r.Use(c.requireSession)
		r.Get("/", c.redirectHome)
		for _, p := range consolePageList {
			r.Get(p.path, c.page(p))
			r.Get("/live"+p.path, c.live(p))
		}
		r.Get("/live/status", c.handleStatus)

		r.Group(func(r chi.Router) {
			r.Use(c.checkOrigin, c.requireCSRF)
			r.Post("/logout", c.handleLogout)
			r.Post("/controls/clock", c.handleAdvanceClock)
			r.Post("/controls/faults", c.handleAddFault)
			r.Post("/controls/faults/clear", c.handleClearFaults)
			r.Post("/controls/reset", c.handleReset)
		})
	})
	return r
}

// securityHeaders keeps the console's pages to themselves: scripts and
// styles only from the console, no framing (clickjacking), no caching of
// pages that show sandbox data, and no Referer leaving the console.
func (c *console) securityHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; "+
			"img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cache-Control", "no-store")
		next.ServeHTTP(w, r)
	})
}

// recoverer turns a panic into a 500 page; the details go to the log.
func (c *console) recoverer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			rec := recover()
			if rec == nil {
				return
			}
			if rec == http.ErrAbortHandler {
				panic(rec)
			}
			c.s.log.Error("panic in console handler", "panic", fmt.Sprint(rec), "stack", string(debug.Stack()))
			c.renderError(w, r, http.StatusInternalServerError, "Internal error; see the server log.")
		}()
		next.ServeHTTP(w, r)
	})
}

type consoleSessionKey struct{}

// sessionFrom returns the request's console session (set by
// requireSession).
func sessionFrom(r *http.Request) *consoleSession {
	s, _ := r.Context().Value(consoleSessionKey{}).(*consoleSession)
	return s
}

// sessionID returns the session id the request's cookie carries.
func sessionID(r *http.Request) string {
	ck, err := r.Cookie(consoleCookie)
	if err != nil {
		return ""
	}
	return ck.Value
}

// requireSession admits requests with a live session. Without one, a page
// redirects to the login form, and a live fragment (polled by script)
// answers 401 so that the script can go to the login form itself.
func (c *console) requireSession(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sess, ok := c.sessions.lookup(sessionID(r))
		if !ok {
			if strings.HasPrefix(r.URL.Path, consoleLivePrefix) {
				http.Error(w, "login required", http.StatusUnauthorized)
				return
			}
			http.Redirect(w, r, consolePrefix+"/login", http.StatusSeeOther)
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), consoleSessionKey{}, sess)))
	})
}

// checkOrigin refuses state-changing requests that a browser marks as
// cross-origin.
func (c *console) checkOrigin(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := c.origin.Check(r); err != nil {
			c.renderError(w, r, http.StatusForbidden, "Cross-origin request refused.")
			return
		}
		next.ServeHTTP(w, r)
	})
}

// requireCSRF admits a state-changing request only with the session's
// CSRF token, in the form field csrf or the header X-CSRF-Token.
func (c *console) requireCSRF(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Body = http.MaxBytesReader(w, r.Body, consoleMaxForm)
		if err := r.ParseForm(); err != nil {
			c.renderError(w, r, http.StatusBadRequest, "Unreadable form.")
			return
		}
		token := r.Header.Get(consoleCSRFHeader)
		if token == "" {
			token = r.PostForm.Get(consoleCSRFField)
		}
		if !c.sessions.checkCSRF(sessionFrom(r), token) {
			c.renderError(w, r, http.StatusForbidden, "Missing or wrong CSRF token; reload the page and try again.")
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (c *console) redirectHome(w http.ResponseWriter, r *http.Request) {
	http.Redirect(w, r, consolePrefix+"/locations", http.StatusSeeOther)
}

// handleLoginPage shows the login form.
func (c *console) handleLoginPage(w http.ResponseWriter, r *http.Request) {
	if _, ok := c.sessions.lookup(sessionID(r)); ok {
		c.redirectHome(w, r)
		return
	}
	c.render(w, r, http.StatusOK, "login", consolePage{Title: "Log in"})
}

// handleLogin checks the admin key and starts a session. The key is
// compared by its SHA-256 in constant time, like the admin API does, and
// is never stored: the cookie carries a random session id.
func (c *console) handleLogin(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, consoleMaxForm)
	if err := r.ParseForm(); err != nil {
		c.renderError(w, r, http.StatusBadRequest, "Unreadable form.")
		return
	}
	got := sha256.Sum256([]byte(r.PostForm.Get("adminKey")))
	if subtle.ConstantTimeCompare(got[:], c.adminKey[:]) != 1 {
		c.s.log.Warn("console login refused: wrong admin key")
		c.render(w, r, http.StatusUnauthorized, "login", consolePage{Title: "Log in", Flash: "Wrong admin key.", FlashErr: true})
		return
	}
	// A fresh id on every login: a session id planted before login (session
	// fixation) is never promoted.
	if old := sessionID(r); old != "" {
		c.sessions.end(old)
	}
	id := c.sessions.create()
	http.SetCookie(w, sessionCookie(r, id, int(consoleMaxLifetime.Seconds())))
	c.s.log.Info("console login")
	c.redirectHome(w, r)
}

// handleLogout ends the session.
func (c *console) handleLogout(w http.ResponseWriter, r *http.Request) {
	c.sessions.end(sessionID(r))
	http.SetCookie(w, sessionCookie(r, "", -1))
	http.Redirect(w, r, consolePrefix+"/login", http.StatusSeeOther)
}

// consolePage is what every console template gets.
type consolePage struct {
	Title    string
	Nav      string // path of the active page, for the navigation bar
	CSRF     string // the session's CSRF token, for forms
	Flash    string // one-time message
	FlashErr bool
	LiveURL  string     // the fragment the page polls
	Status   statusView // the status line's first state
	Data     any        // the page's own view
}

// render executes a page's layout and writes it with status.
func (c *console) render(w http.ResponseWriter, r *http.Request, status int, name string, p consolePage) {
	c.execute(w, status, name, "layout", p)
}

// execute writes template tmpl of page name. It renders into a buffer
// first, so that a template error becomes a clean 500 instead of half a
// page.
func (c *console) execute(w http.ResponseWriter, status int, name, tmpl string, data any) {
	t, ok := consoleTemplates[name]
	if !ok {
		panic("console: no template " + name)
	}
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&buf, tmpl, data); err != nil {
		c.s.log.Error("console template", "page", name, "err", err.Error())
		http.Error(w, "Internal error; see the server log.", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Length", strconv.Itoa(buf.Len()))
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// renderError shows msg on the error page with status. A live fragment
// gets the bare message instead.
func (c *console) renderError(w http.ResponseWriter, r *http.Request, status int, msg string) {
	if strings.HasPrefix(r.URL.Path, consoleLivePrefix) {
		http.Error(w, msg, status)
		return
	}
	p := consolePage{Title: http.StatusText(status), Flash: msg, FlashErr: true}
	if sess := sessionFrom(r); sess != nil {
		p.CSRF = c.sessions.csrfToken(sess)
		p.Status = c.status()
	}
	c.render(w, r, status, "error", p)
}

// errConsoleNotFound is returned by a page's loader for an unknown id.
var errConsoleNotFound = errors.New("console: not found")

// consolePageDef is one page of the console: its path, its template and
// the loader of its view.
type consolePageDef struct {
	path  string // under /console; the live fragment is /console/live + path
	name  string // template name (console/templates/<name>.html)
	title string
	load  func(c *console, r *http.Request) (any, error)
}

// page serves a page: layout, navigation and the live part's first state.
func (c *console) page(p consolePageDef) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		data, err := p.load(c, r)
		if err != nil {
			c.loadFailed(w, r, err)
			return
		}
		sess := sessionFrom(r)
		flash, flashErr := c.sessions.takeFlash(sess)
		live := consoleLivePrefix + strings.TrimPrefix(r.URL.Path, consolePrefix+"/")
		if r.URL.RawQuery != "" {
			live += "?" + r.URL.RawQuery
		}
		c.render(w, r, http.StatusOK, p.name, consolePage{
			Title:    p.title,
			Nav:      navOf(p.path),
			CSRF:     c.sessions.csrfToken(sess),
			Flash:    flash,
			FlashErr: flashErr,
			LiveURL:  live,
			Status:   c.status(),
			Data:     data,
		})
	}
}

// navOf is the navigation entry a page belongs to: a location's page
// belongs to the locations.
func navOf(path string) string {
	if strings.HasPrefix(path, "/locations/") {
		return "/locations"
	}
	return path
}

// live serves the part of a page that refreshes: the template "live" of
// the page, alone.
func (c *console) live(p consolePageDef) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		data, err := p.load(c, r)
		if err != nil {
			c.loadFailed(w, r, err)
			return
		}
		c.execute(w, http.StatusOK, p.name, "live", consolePage{Data: data})
	}
}

func (c *console) loadFailed(w http.ResponseWriter, r *http.Request, err error) {
	if errors.Is(err, errConsoleNotFound) {
		c.renderError(w, r, http.StatusNotFound, "Not found.")
		return
	}
	c.s.log.Error("console page", "path", r.URL.Path, "err", err.Error())
	c.renderError(w, r, http.StatusInternalServerError, "Internal error; see the server log.")
}
