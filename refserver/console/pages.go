package console

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/hospo-dev/hospo-go/refserver/sim"
	"github.com/hospo-dev/hospo-go/refserver/store"
)

// listLimit caps each list on a console page (checks, payments, orders,
// users); the newest are shown.
const listLimit = 200

// journalLimit is how many requests the journal page shows without a
// limit.
const journalLimit = 200

// pages is every page of the console. Each is served at /console<path> in
// full and at /console/live<path> as the fragment its script polls.
var pages = []pageDef{
	{path: "/locations", name: "locations", title: "Locations", load: (*Handler).loadLocations},
	{path: "/locations/{locationId}", name: "location", title: "Location", load: (*Handler).loadLocation},
	{path: "/users", name: "users", title: "Users and wallets", load: (*Handler).loadUsers},
	{path: "/requests", name: "requests", title: "Request journal", load: (*Handler).loadRequests},
	{path: "/events", name: "events", title: "Events", load: (*Handler).loadEvents},
	{path: "/webhooks", name: "webhooks", title: "Webhooks", load: (*Handler).loadWebhooks},
	{path: "/webhooks/{webhookId}", name: "webhook", title: "Webhook deliveries", load: (*Handler).loadWebhook},
	{path: "/controls", name: "controls", title: "Controls", load: (*Handler).loadControls},
}

// errNotFound is returned by a page's loader for an unknown id.
var errNotFound = errors.New("console: not found")

// pageDef is one page of the console: its path, its template and the
// loader of its view.
type pageDef struct {
	path  string // under /console; the live fragment is /console/live + path
	name  string // template name (templates/<name>.html)
	title string
	load  func(h *Handler, r *http.Request) (any, error)
}

// page serves a page: layout, navigation and the live part's first state.
func (h *Handler) page(p pageDef) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		data, err := p.load(h, r)
		if err != nil {
			h.loadFailed(w, r, err)
			return
		}
		sess := sessionFrom(r)
		flash, flashErr := h.sessions.takeFlash(sess)
		live := livePrefix + strings.TrimPrefix(r.URL.Path, Prefix+"/")
		if r.URL.RawQuery != "" {
			live += "?" + r.URL.RawQuery
		}
		h.render(w, r, http.StatusOK, p.name, pageData{
			Title:    p.title,
			Nav:      navOf(p.path),
			CSRF:     h.sessions.csrfToken(sess),
			Flash:    flash,
			FlashErr: flashErr,
			LiveURL:  live,
			Status:   h.status(),
			Data:     data,
		})
	}
}

// navOf is the navigation entry a page belongs to: a location's page
// belongs to the locations, a webhook's to the webhooks.
func navOf(path string) string {
	for _, list := range []string{"/locations", "/webhooks"} {
		if strings.HasPrefix(path, list+"/") {
			return list
		}
	}
	return path
}

// live serves the part of a page that refreshes: the template "live" of
// the page, alone.
func (h *Handler) live(p pageDef) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		data, err := p.load(h, r)
		if err != nil {
			h.loadFailed(w, r, err)
			return
		}
		// The CSRF token is for the forms of a live part (a check's pay
		// button).
		h.execute(w, http.StatusOK, p.name, "live", pageData{CSRF: h.sessions.csrfToken(sessionFrom(r)), Data: data})
	}
}

func (h *Handler) loadFailed(w http.ResponseWriter, r *http.Request, err error) {
	if errors.Is(err, errNotFound) {
		h.renderError(w, r, http.StatusNotFound, "Not found.")
		return
	}
	h.log.Error("console page", "path", r.URL.Path, "err", err.Error())
	h.renderError(w, r, http.StatusInternalServerError, "Internal error; see the server log.")
}

type locationsView struct {
	Locations []locationView
}

func (h *Handler) loadLocations(r *http.Request) (any, error) {
	var v locationsView
	err := h.cfg.DB.Read(r.Context(), func(tx *store.Tx) error {
		ls, err := tx.ConsoleLocations()
		if err != nil {
			return err
		}
		for _, l := range ls {
			v.Locations = append(v.Locations, newLocationView(l, tx.Unix(), h.cfg.POSOnlineWindow))
		}
		return nil
	})
	return v, err
}

type locationPageView struct {
	Location locationView
	Bills    []billView
	Payments []paymentView // pending first, then the newest
	Orders   []orderView
	Limit    int
	// Diners are the location's diners on a timer, nil when off; DemoPOS
	// is how the demo universal POS answers it.
	Diners  *dinersView
	DemoPOS demoPOSView
}

func (h *Handler) loadLocation(r *http.Request) (any, error) {
	id, err := strconv.ParseInt(chi.URLParam(r, "locationId"), 10, 64)
	if err != nil {
		return nil, errNotFound
	}
	v := locationPageView{Limit: listLimit}
	err = h.cfg.DB.Read(r.Context(), func(tx *store.Tx) error {
		l, err := tx.ConsoleLocation(id)
		if err == store.ErrNotFound {
			return errNotFound
		}
		if err != nil {
			return err
		}
		now := tx.Unix()
		v.Location = newLocationView(l, now, h.cfg.POSOnlineWindow)
		bills, err := tx.ConsoleBills(id, listLimit)
		if err != nil {
			return err
		}
		for _, b := range bills {
			v.Bills = append(v.Bills, newBillView(b, now))
		}
		payments, err := tx.ConsolePayments(id, listLimit)
		if err != nil {
			return err
		}
		for _, p := range payments {
			v.Payments = append(v.Payments, newPaymentView(p))
		}
		orders, err := tx.ConsoleOrders(id, listLimit)
		if err != nil {
			return err
		}
		for _, o := range orders {
			v.Orders = append(v.Orders, newOrderView(o))
		}
		return loadPlayers(tx, id, &v)
	})
	return v, err
}

type usersView struct {
	Users []userView
	Limit int
}

func (h *Handler) loadUsers(r *http.Request) (any, error) {
	v := usersView{Limit: listLimit}
	err := h.cfg.DB.Read(r.Context(), func(tx *store.Tx) error {
		us, err := tx.ConsoleUsers(listLimit)
		if err != nil {
			return err
		}
		for _, u := range us {
			v.Users = append(v.Users, newUserView(u, h.cfg.Gateways))
		}
		return nil
	})
	return v, err
}

type requestsView struct {
	Entries    []journalView
	LocationID string // the filter as entered
	Status     string
	Limit      string
	Error      string // what is wrong with the filter
	Capacity   int
	Off        bool // the journal is turned off
}

func (h *Handler) loadRequests(r *http.Request) (any, error) {
	q := r.URL.Query()
	capacity := h.journal.Capacity()
	v := requestsView{
		LocationID: q.Get("locationId"),
		Status:     q.Get("status"),
		Limit:      q.Get("limit"),
		Capacity:   capacity,
		Off:        capacity == 0,
	}
	if q.Get("limit") == "" {
		q.Set("limit", strconv.Itoa(min(journalLimit, max(capacity, 1))))
	}
	page, err := h.journal.Query(q)
	if err != nil {
		v.Error = err.Error()
		return v, nil
	}
	for _, e := range page.Requests {
		v.Entries = append(v.Entries, newJournalView(e))
	}
	return v, nil
}

type controlsView struct {
	Clock     statusView
	Faults    []sim.Fault
	Snapshots []snapshotView
	// QuickAdvances are the one-click clock steps, in seconds. Six minutes
	// is the first that takes a location offline.
	QuickAdvances []quickAdvance
}

type quickAdvance struct {
	Seconds int64
	Label   string
}

func (h *Handler) loadControls(*http.Request) (any, error) {
	// One second past the online window: a heartbeat sent just before is
	// stale just after.
	offline := int64(h.cfg.POSOnlineWindow/time.Second) + 1
	snapshots, err := h.loadSnapshots()
	if err != nil {
		return nil, err
	}
	return controlsView{
		Clock:     h.status(),
		Faults:    h.cfg.Faults.List(),
		Snapshots: snapshots,
		QuickAdvances: []quickAdvance{
			{60, "+1m"},
			{offline, "+" + formatDuration(offline) + " (POSes go offline)"},
			{3600, "+1h"},
			{86400, "+1d"},
		},
	}, nil
}

// statusView is the console's status line: the sandbox's clock and what is
// active.
type statusView struct {
	ServerTime string
	RealTime   string
	Offset     string // "+6m 1s", or "" when the clock is not moved
	Faults     int
}

func (h *Handler) status() statusView {
	v := statusView{
		ServerTime: h.cfg.Clock.Now().UTC().Format(timeLayout),
		RealTime:   h.cfg.Clock.Real().UTC().Format(timeLayout),
		Faults:     len(h.cfg.Faults.List()),
	}
	if off := int64(h.cfg.Clock.Offset() / time.Second); off > 0 {
		v.Offset = "+" + formatDuration(off)
	}
	return v
}

// handleStatus serves the status line's fragment.
func (h *Handler) handleStatus(w http.ResponseWriter, r *http.Request) {
	h.execute(w, http.StatusOK, "layout", "status", h.status())
}
