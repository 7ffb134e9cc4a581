package console

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/go-chi/chi/v5"

	"github.com/hospo-dev/hospo-go/events"
	"github.com/hospo-dev/hospo-go/refserver/store"
)

// The events page (contract.md section 8: the newest events, by type and
// location) and the webhooks pages (every key's webhooks and one
// webhook's deliveries, with a Redeliver button per delivery). A webhook's
// secret is never read: the store's console queries do not select it.

// summaryLength is how many characters of an event's data its row shows.
const summaryLength = 160

// eventView is an event as the events page lists it.
type eventView struct {
	EventID  string
	Type     string
	Time     string
	Location string // the location's id, or "key 3" for an event of one API key
	Summary  string
}

func newEventView(e store.Event) eventView {
	v := eventView{EventID: e.EventID, Type: e.Type, Time: formatTime(&e.CreatedAt), Summary: summarize(e.DataJSON)}
	switch {
	case e.LocationID != nil:
		v.Location = strconv.FormatInt(*e.LocationID, 10)
	case e.OwnerKeyID != nil:
		v.Location = "key " + strconv.FormatInt(*e.OwnerKeyID, 10)
	}
	return v
}

// summarize shows an event's data on one line: its fields as name=value in
// name order, nested values as compact JSON, cut at summaryLength
// characters. Data that is not a JSON object is shown as it is, cut.
func summarize(data string) string {
	var fields map[string]json.RawMessage
	if json.Unmarshal([]byte(data), &fields) != nil {
		return cut(data, summaryLength)
	}
	names := make([]string, 0, len(fields))
	for k := range fields {
		names = append(names, k)
	}
	sort.Strings(names)
	parts := make([]string, 0, len(names))
	for _, k := range names {
		raw := fields[k]
		var s string
		if len(raw) == 0 || raw[0] != '"' || json.Unmarshal(raw, &s) != nil {
			var buf bytes.Buffer
			if json.Compact(&buf, raw) != nil {
				continue
			}
			s = buf.String()
		}
		parts = append(parts, k+"="+s)
	}
	return cut(strings.Join(parts, " "), summaryLength)
}

// cut shortens s to n characters, the last being an ellipsis.
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

type eventsView struct {
	Events []eventView
	Types  []string // the filter's choices
	// The filter as entered.
	Type       string
	LocationID string
	Error      string // what is wrong with the filter
	Limit      int
}

// loadEvents lists the newest events, filtered by the query's type and
// locationId. A filter that is not valid lists nothing and says why.
func (h *Handler) loadEvents(r *http.Request) (any, error) {
	q := r.URL.Query()
	var types []string
	for _, t := range events.Types() {
		types = append(types, string(t))
	}
	v := eventsView{Types: types, Type: q.Get("type"), LocationID: q.Get("locationId"), Limit: listLimit}
	query := store.ConsoleEventQuery{Type: strings.TrimSpace(v.Type), Limit: listLimit}
	if query.Type != "" && !events.Type(query.Type).Known() {
		v.Error = "type: unknown event type " + strconv.Quote(query.Type) + "; use one of " + strings.Join(types, ", ") + "."
		return v, nil
	}
	if s := strings.TrimSpace(v.LocationID); s != "" {
		id, err := strconv.ParseInt(s, 10, 64)
		if err != nil || id <= 0 {
			v.Error = "locationId: enter a location's id, a whole number from 1."
			return v, nil
		}
		query.LocationID = id
	}
	err := h.cfg.DB.Read(r.Context(), func(tx *store.Tx) error {
		events, err := tx.ConsoleEvents(query)
		if err != nil {
			return err
		}
		for _, e := range events {
			v.Events = append(v.Events, newEventView(e))
		}
		return nil
	})
	return v, err
}

// webhookView is a webhook, never with its secret.
type webhookView struct {
	WebhookID   string
	KeyID       int64
	URL         string
	Events      string // "payment.accepted, bill.closed" or "*"
	Description string
	CreatedAt   string
	Pending     int64
	Failed      int64
}

func newWebhookView(w store.ConsoleWebhook) webhookView {
	v := webhookView{WebhookID: w.WebhookID, KeyID: w.KeyID, URL: w.URL, Description: w.Description,
		CreatedAt: formatTime(&w.CreatedAt), Pending: w.Pending, Failed: w.Failed}
	var events []string
	if json.Unmarshal([]byte(w.EventsJSON), &events) == nil {
		v.Events = strings.Join(events, ", ")
	}
	return v
}

type webhooksView struct {
	Webhooks []webhookView
	Limit    int
}

func (h *Handler) loadWebhooks(r *http.Request) (any, error) {
	v := webhooksView{Limit: listLimit}
	err := h.cfg.DB.Read(r.Context(), func(tx *store.Tx) error {
		ws, err := tx.ConsoleWebhooks(listLimit)
		if err != nil {
			return err
		}
		for _, w := range ws {
			v.Webhooks = append(v.Webhooks, newWebhookView(w))
		}
		return nil
	})
	return v, err
}

// deliveryView is one delivery of a webhook.
type deliveryView struct {
	DeliveryID     string
	EventID        string
	Type           string
	Status         string
	Attempts       int
	LastStatusCode string
	LastError      string
	NextAttemptAt  string
	CreatedAt      string
}

func newDeliveryView(d store.Delivery) deliveryView {
	v := deliveryView{DeliveryID: d.DeliveryID, EventID: d.EventID, Type: d.EventType, Status: d.Status,
		Attempts: d.Attempts, NextAttemptAt: formatTime(d.NextAttemptAt), CreatedAt: formatTime(&d.CreatedAt)}
	if d.LastStatusCode != nil {
		v.LastStatusCode = strconv.FormatInt(*d.LastStatusCode, 10)
	}
	if d.LastError != nil {
		v.LastError = *d.LastError
	}
	return v
}

type webhookPageView struct {
	Webhook    webhookView
	Deliveries []deliveryView
	// Path is the webhook's part of the console's paths, escaped.
	Path  string
	Limit int
}

func (h *Handler) loadWebhook(r *http.Request) (any, error) {
	id := chi.URLParam(r, "webhookId")
	v := webhookPageView{Path: url.PathEscape(id), Limit: listLimit}
	err := h.cfg.DB.Read(r.Context(), func(tx *store.Tx) error {
		w, err := tx.ConsoleWebhook(id)
		if err == store.ErrNotFound {
			return errNotFound
		}
		if err != nil {
			return err
		}
		v.Webhook = newWebhookView(w)
		ds, err := tx.ListDeliveries(id, "", listLimit)
		if err != nil {
			return err
		}
		for _, d := range ds {
			v.Deliveries = append(v.Deliveries, newDeliveryView(d))
		}
		return nil
	})
	return v, err
}

// handleRedeliver makes one more attempt at a delivery now: POST
// /sandbox/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver.
func (h *Handler) handleRedeliver(w http.ResponseWriter, r *http.Request) {
	webhook := url.PathEscape(chi.URLParam(r, "webhookId"))
	delivery := url.PathEscape(chi.URLParam(r, "deliveryId"))
	res, err := h.adminCall(r, http.MethodPost, "/sandbox/webhooks/"+webhook+"/deliveries/"+delivery+"/redeliver", nil)
	h.finishAt(w, r, res, err, "Delivery "+chi.URLParam(r, "deliveryId")+" is due again; the attempt is on its way.",
		Prefix+"/webhooks/"+webhook)
}
