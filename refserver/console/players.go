package console

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/hospo-dev/hospo-go/refserver/store"
	"github.com/hospo-dev/hospo-go/sandbox"
)

// The sandbox playing the other side, on a location's page: a check's
// "pay" button (a diner pays what it owes), the diners on a timer and the
// demo universal POS's mode. Like the controls, each is a request to the
// admin API, in-process.

// dinersView shows a location's diners on a timer.
type dinersView struct {
	EverySeconds int64
	Split        int64
	TipPercent   int64
	NextRunAt    string
	LastRunAt    string // "" before the first round
	LastError    string
}

// demoPOSView shows how the demo universal POS answers a location.
type demoPOSView struct {
	Mode         string
	FailCount    int64
	FailuresLeft int64
	DelayMs      int64
	// Modes are the modes the form offers.
	Modes []string
}

// loadPlayers reads the location's diners and demo POS mode into v.
func loadPlayers(tx *store.Tx, locationID int64, v *locationPageView) error {
	d, err := tx.GetDiners(locationID)
	switch {
	case err == nil:
		v.Diners = &dinersView{EverySeconds: d.EverySeconds, Split: d.Split, TipPercent: d.TipPercent,
			NextRunAt: formatUnix(d.NextRunAt)}
		if d.LastRunAt != nil {
			v.Diners.LastRunAt = formatUnix(*d.LastRunAt)
		}
		if d.LastError != nil {
			v.Diners.LastError = *d.LastError
		}
	case !errors.Is(err, store.ErrNotFound):
		return err
	}
	m, err := tx.GetDemoPOSMode(locationID)
	if err != nil {
		return err
	}
	v.DemoPOS = demoPOSView{Mode: m.Mode, FailCount: m.FailCount, FailuresLeft: m.FailuresLeft, DelayMs: m.DelayMs}
	for _, m := range sandbox.DemoPOSModes() {
		v.DemoPOS.Modes = append(v.DemoPOS.Modes, string(m))
	}
	return nil
}

// formatUnix shows Unix seconds as the console shows times.
func formatUnix(sec int64) string { return time.Unix(sec, 0).UTC().Format(timeLayout) }

// locationAction returns the location of an action's path and the page to
// report on; ok is false (and the answer sent) for a malformed id.
func (h *Handler) locationAction(w http.ResponseWriter, r *http.Request) (id, page string, ok bool) {
	id = chi.URLParam(r, "locationId")
	if n, err := strconv.ParseInt(id, 10, 64); err != nil || n <= 0 {
		h.renderError(w, r, http.StatusNotFound, "Not found.")
		return "", "", false
	}
	return id, Prefix + "/locations/" + id, true
}

// refuse reports a form that cannot be sent on the location's page.
func (h *Handler) refuse(w http.ResponseWriter, r *http.Request, page, msg string) {
	h.sessions.setFlash(sessionFrom(r), msg, true)
	http.Redirect(w, r, page, http.StatusSeeOther)
}

// formInts copies the form's whole numbers named names into body, leaving
// out the empty ones so that the API keeps its defaults. A field that holds
// something else is refused on page, and formInts returns false.
func (h *Handler) formInts(w http.ResponseWriter, r *http.Request, page string, body map[string]any, names ...string) bool {
	for _, name := range names {
		n, present, valid := formInt(r, name)
		if !valid {
			h.refuse(w, r, page, name+": enter a whole number.")
			return false
		}
		if present {
			body[name] = n
		}
	}
	return true
}

// handlePayCheck has a diner pay what a check owes: POST
// /sandbox/locations/{locationId}/checks/{checkNumber}/payments.
func (h *Handler) handlePayCheck(w http.ResponseWriter, r *http.Request) {
	id, page, ok := h.locationAction(w, r)
	if !ok {
		return
	}
	check, present, valid := formInt(r, "checkNumber")
	if !present || !valid {
		h.refuse(w, r, page, "Check: a whole number is needed.")
		return
	}
	number := strconv.FormatInt(check, 10)
	res, err := h.adminCall(r, http.MethodPost, "/sandbox/locations/"+id+"/checks/"+number+"/payments", map[string]any{})
	h.finishAt(w, r, res, err, "A diner paid check "+number+"; the payment waits for the POS.", page)
}

// handleSetDiners starts or changes the diners on a timer: PUT
// /sandbox/locations/{locationId}/diners.
func (h *Handler) handleSetDiners(w http.ResponseWriter, r *http.Request) {
	id, page, ok := h.locationAction(w, r)
	if !ok {
		return
	}
	body := map[string]any{}
	if !h.formInts(w, r, page, body, "everySeconds", "split", "tipPercent") {
		return
	}
	res, err := h.adminCall(r, http.MethodPut, "/sandbox/locations/"+id+"/diners", body)
	h.finishAt(w, r, res, err, "Diners on.", page)
}

// handleStopDiners stops them: DELETE /sandbox/locations/{locationId}/diners.
func (h *Handler) handleStopDiners(w http.ResponseWriter, r *http.Request) {
	id, page, ok := h.locationAction(w, r)
	if !ok {
		return
	}
	res, err := h.adminCall(r, http.MethodDelete, "/sandbox/locations/"+id+"/diners", nil)
	h.finishAt(w, r, res, err, "Diners off.", page)
}

// handleSetDemoPOS sets the demo universal POS's mode: PUT
// /sandbox/locations/{locationId}/demo-pos. Only the count of the mode
// chosen is sent, so that the form can hold both.
func (h *Handler) handleSetDemoPOS(w http.ResponseWriter, r *http.Request) {
	id, page, ok := h.locationAction(w, r)
	if !ok {
		return
	}
	mode := strings.TrimSpace(r.PostForm.Get("mode"))
	body := map[string]any{"mode": mode}
	counts := map[string]string{"fail-then-accept": "failCount", "slow": "delayMs"}
	if name, ok := counts[mode]; ok && !h.formInts(w, r, page, body, name) {
		return
	}
	res, err := h.adminCall(r, http.MethodPut, "/sandbox/locations/"+id+"/demo-pos", body)
	h.finishAt(w, r, res, err, "The demo POS now answers this location in mode "+mode+".", page)
}
