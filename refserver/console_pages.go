package refserver

import (
	"net/http"
	"strconv"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/hospo-dev/hospo-go/refserver/sandbox"
	"github.com/hospo-dev/hospo-go/refserver/store"
)

// consoleListLimit caps each list on a console page (checks, payments,
// orders, users); the newest are shown.
const consoleListLimit = 200

// consoleJournalLimit is how many requests the journal page shows without
// a limit.
const consoleJournalLimit = 200

// consolePageList is every page of the console. Each is served at
// /console<path> in full and at /console/live<path> as the fragment its
// script polls.
var consolePageList = []consolePageDef{
	{path: "/locations", name: "locations", title: "Locations", load: (*console).loadLocations},
	{path: "/locations/{locationId}", name: "location", title: "Location", load: (*console).loadLocation},
	{path: "/users", name: "users", title: "Users and wallets", load: (*console).loadUsers},
	{path: "/requests", name: "requests", title: "Request journal", load: (*console).loadRequests},
	{path: "/controls", name: "controls", title: "Controls", load: (*console).loadControls},
}

type locationsView struct {
	Locations []locationView
}

func (c *console) loadLocations(r *http.Request) (any, error) {
	var v locationsView
	err := c.s.db.Read(r.Context(), func(tx *store.Tx) error {
		ls, err := tx.ConsoleLocations()
		if err != nil {
			return err
		}
		for _, l := range ls {
			v.Locations = append(v.Locations, newLocationView(l, tx.Unix()))
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
}

func (c *console) loadLocation(r *http.Request) (any, error) {
	id, err := strconv.ParseInt(chi.URLParam(r, "locationId"), 10, 64)
	if err != nil {
		return nil, errConsoleNotFound
	}
	v := locationPageView{Limit: consoleListLimit}
	err = c.s.db.Read(r.Context(), func(tx *store.Tx) error {
		l, err := tx.ConsoleLocation(id)
		if err == store.ErrNotFound {
			return errConsoleNotFound
		}
		if err != nil {
			return err
		}
		now := tx.Unix()
		v.Location = newLocationView(l, now)
		bills, err := tx.ConsoleBills(id, consoleListLimit)
		if err != nil {
			return err
		}
		for _, b := range bills {
			v.Bills = append(v.Bills, newBillView(b, now))
		}
		payments, err := tx.ConsolePayments(id, consoleListLimit)
		if err != nil {
			return err
		}
		for _, p := range payments {
			v.Payments = append(v.Payments, newPaymentView(p))
		}
		orders, err := tx.ConsoleOrders(id, consoleListLimit)
		if err != nil {
			return err
		}
		for _, o := range orders {
			v.Orders = append(v.Orders, newOrderView(o))
		}
		return nil
	})
	return v, err
}

type usersView struct {
	Users []userView
	Limit int
}

func (c *console) loadUsers(r *http.Request) (any, error) {
	v := usersView{Limit: consoleListLimit}
	err := c.s.db.Read(r.Context(), func(tx *store.Tx) error {
		us, err := tx.ConsoleUsers(consoleListLimit)
		if err != nil {
			return err
		}
		for _, u := range us {
			v.Users = append(v.Users, newUserView(u))
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
	Off        bool // the journal is turned off (Config.JournalSize < 0)
}

func (c *console) loadRequests(r *http.Request) (any, error) {
	q := r.URL.Query()
	v := requestsView{
		LocationID: q.Get("locationId"),
		Status:     q.Get("status"),
		Limit:      q.Get("limit"),
		Capacity:   c.journal.capacity(),
		Off:        c.journal.capacity() == 0,
	}
	f, bad := parseJournalQuery(q, c.journal.capacity())
	if len(bad) > 0 {
		v.Error = describeBadParams(bad)
		return v, nil
	}
	if q.Get("limit") == "" {
		f.Limit = min(consoleJournalLimit, max(c.journal.capacity(), 1))
	}
	entries, _ := c.journal.query(f)
	for _, e := range entries {
		v.Entries = append(v.Entries, newJournalView(e))
	}
	return v, nil
}

type controlsView struct {
	Clock  statusView
	Faults []sandbox.Fault
	// QuickAdvances are the one-click clock steps, in seconds. Six minutes
	// is the first that takes a location offline.
	QuickAdvances []quickAdvance
}

type quickAdvance struct {
	Seconds int64
	Label   string
}

func (c *console) loadControls(*http.Request) (any, error) {
	// One second past the online window: a heartbeat sent just before is
	// stale just after.
	offline := int64(posOnlineWindow/time.Second) + 1
	return controlsView{
		Clock:  c.status(),
		Faults: c.s.faults.List(),
		QuickAdvances: []quickAdvance{
			{60, "+1m"},
			{offline, "+" + consoleDuration(offline) + " (POSes go offline)"},
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

func (c *console) status() statusView {
	v := statusView{
		ServerTime: c.s.clock.Now().UTC().Format(consoleTimeLayout),
		RealTime:   c.s.clock.Real().UTC().Format(consoleTimeLayout),
		Faults:     len(c.s.faults.List()),
	}
	if off := int64(c.s.clock.Offset() / time.Second); off > 0 {
		v.Offset = "+" + consoleDuration(off)
	}
	return v
}

// handleStatus serves the status line's fragment.
func (c *console) handleStatus(w http.ResponseWriter, r *http.Request) {
	c.execute(w, http.StatusOK, "layout", "status", c.status())
}
