package console

import (
	"bytes"
	"net/http"
	"strconv"
	"strings"
)

// pageData is what every console template gets.
type pageData struct {
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
func (h *Handler) render(w http.ResponseWriter, r *http.Request, status int, name string, p pageData) {
	h.execute(w, status, name, "layout", p)
}

// execute writes template tmpl of page name. It renders into a buffer
// first, so that a template error becomes a clean 500 instead of half a
// page.
func (h *Handler) execute(w http.ResponseWriter, status int, name, tmpl string, data any) {
	t, ok := templates[name]
	if !ok {
		panic("console: no template " + name)
	}
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&buf, tmpl, data); err != nil {
		h.log.Error("console template", "page", name, "err", err.Error())
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
func (h *Handler) renderError(w http.ResponseWriter, r *http.Request, status int, msg string) {
	if strings.HasPrefix(r.URL.Path, livePrefix) {
		http.Error(w, msg, status)
		return
	}
	p := pageData{Title: http.StatusText(status), Flash: msg, FlashErr: true}
	if sess := sessionFrom(r); sess != nil {
		p.CSRF = h.sessions.csrfToken(sess)
		p.Status = h.status()
	}
	h.render(w, r, status, "error", p)
}
