package console

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/hospo-dev/hospo-go/client"
)

// The console's controls. Each one is a request to the sandbox admin API,
// sent in-process through the API's full middleware chain with the admin
// key: the console reuses the admin API's validation and logic instead of
// having its own, and its actions appear in the request journal as the
// admin requests they are.

// adminResult is the answer of an in-process admin API call.
type adminResult struct {
	status int
	body   []byte
}

// failure describes an error answer for the console's message line: the
// error body's message and, for a 400002, every field's reason.
func (a adminResult) failure() string {
	var e struct {
		Code        int               `json:"code"`
		Message     string            `json:"message"`
		ContextData map[string]string `json:"contextData"`
	}
	if json.Unmarshal(a.body, &e) != nil || e.Message == "" {
		return fmt.Sprintf("The sandbox answered %d.", a.status)
	}
	msg := fmt.Sprintf("%s (%d)", e.Message, e.Code)
	if len(e.ContextData) > 0 {
		fields := make([]string, 0, len(e.ContextData))
		for k := range e.ContextData {
			fields = append(fields, k)
		}
		sort.Strings(fields)
		for _, k := range fields {
			msg += "; " + k + ": " + e.ContextData[k]
		}
	}
	return msg
}

func (a adminResult) ok() bool { return a.status >= 200 && a.status < 300 }

// adminCall sends an admin API request in-process and returns its answer.
// body, when not nil, is sent as JSON.
func (h *Handler) adminCall(r *http.Request, method, path string, body any) (adminResult, error) {
	var rd io.Reader = http.NoBody
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return adminResult{}, err
		}
		rd = bytes.NewReader(b)
	}
	// The console's own chi routing context must not leak into the API's
	// router, which would take the request for one of its sub-routes.
	ctx := context.WithValue(r.Context(), chi.RouteCtxKey, nil)
	req, err := http.NewRequestWithContext(ctx, method, path, rd)
	if err != nil {
		return adminResult{}, err
	}
	req.Host = r.Host
	req.RemoteAddr = r.RemoteAddr
	req.Header.Set(client.HeaderAdminKey, h.cfg.AdminKey)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	rec := &adminRecorder{header: http.Header{}}
	h.cfg.API.ServeHTTP(rec, req)
	if rec.status == 0 {
		rec.status = http.StatusOK
	}
	return adminResult{status: rec.status, body: rec.body.Bytes()}, nil
}

// adminRecorder is the http.ResponseWriter of an in-process admin call.
type adminRecorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (a *adminRecorder) Header() http.Header { return a.header }
func (a *adminRecorder) WriteHeader(code int) {
	if a.status == 0 {
		a.status = code
	}
}

func (a *adminRecorder) Write(b []byte) (int, error) {
	if a.status == 0 {
		a.status = http.StatusOK
	}
	return a.body.Write(b)
}

// finish reports an action's outcome on the controls page (post, redirect,
// get: reloading the page does not repeat the action).
func (h *Handler) finish(w http.ResponseWriter, r *http.Request, res adminResult, err error, success string) {
	h.finishAt(w, r, res, err, success, Prefix+"/controls")
}

// finishAt is finish for an action of another page, at path.
func (h *Handler) finishAt(w http.ResponseWriter, r *http.Request, res adminResult, err error, success, path string) {
	sess := sessionFrom(r)
	switch {
	case err != nil:
		h.log.Error("console action", "path", r.URL.Path, "err", err.Error())
		h.sessions.setFlash(sess, "Internal error; see the server log.", true)
	case !res.ok():
		h.sessions.setFlash(sess, res.failure(), true)
	default:
		h.sessions.setFlash(sess, success, false)
	}
	http.Redirect(w, r, path, http.StatusSeeOther)
}

// formInt reads an optional integer field; ok is false when it is present
// but not an integer.
func formInt(r *http.Request, name string) (n int64, present, ok bool) {
	v := strings.TrimSpace(r.PostForm.Get(name))
	if v == "" {
		return 0, false, true
	}
	n, err := strconv.ParseInt(v, 10, 64)
	return n, true, err == nil
}

// handleAdvanceClock moves the virtual clock: POST /sandbox/clock.
func (h *Handler) handleAdvanceClock(w http.ResponseWriter, r *http.Request) {
	secs, present, ok := formInt(r, "advanceSeconds")
	if !present || !ok {
		h.sessions.setFlash(sessionFrom(r), "Advance by: enter a whole number of seconds.", true)
		http.Redirect(w, r, Prefix+"/controls", http.StatusSeeOther)
		return
	}
	res, err := h.adminCall(r, http.MethodPost, "/sandbox/clock", map[string]int64{"advanceSeconds": secs})
	msg := "Clock advanced by " + formatDuration(max(secs, 0)) + "."
	var clock struct {
		ServerTime int64 `json:"serverTime"`
	}
	if err == nil && res.ok() && json.Unmarshal(res.body, &clock) == nil {
		msg += " Server time is now " + time.Unix(clock.ServerTime, 0).UTC().Format(timeLayout) + "."
	}
	h.finish(w, r, res, err, msg)
}

// handleAddFault injects a fault: POST /sandbox/faults.
func (h *Handler) handleAddFault(w http.ResponseWriter, r *http.Request) {
	body := map[string]any{
		"method":      strings.TrimSpace(r.PostForm.Get("method")),
		"pathPrefix":  strings.TrimSpace(r.PostForm.Get("pathPrefix")),
		"afterCommit": r.PostForm.Get("afterCommit") != "",
	}
	for _, name := range []string{"status", "count", "latencyMs"} {
		n, present, ok := formInt(r, name)
		if !ok {
			h.sessions.setFlash(sessionFrom(r), name+": enter a whole number.", true)
			http.Redirect(w, r, Prefix+"/controls", http.StatusSeeOther)
			return
		}
		if present {
			body[name] = n
		}
	}
	res, err := h.adminCall(r, http.MethodPost, "/sandbox/faults", body)
	h.finish(w, r, res, err, "Fault added.")
}

// handleClearFaults removes every fault: DELETE /sandbox/faults.
func (h *Handler) handleClearFaults(w http.ResponseWriter, r *http.Request) {
	res, err := h.adminCall(r, http.MethodDelete, "/sandbox/faults", nil)
	h.finish(w, r, res, err, "Faults cleared.")
}

// handleReset puts the sandbox back to a fresh demo fixture: POST
// /sandbox/reset. The form must tick its confirmation box.
func (h *Handler) handleReset(w http.ResponseWriter, r *http.Request) {
	if r.PostForm.Get("confirm") != "yes" {
		h.sessions.setFlash(sessionFrom(r), "Tick the box to confirm the reset.", true)
		http.Redirect(w, r, Prefix+"/controls", http.StatusSeeOther)
		return
	}
	res, err := h.adminCall(r, http.MethodPost, "/sandbox/reset", nil)
	h.finish(w, r, res, err, "Sandbox reset to a fresh demo fixture; the clock is back at real time.")
}
