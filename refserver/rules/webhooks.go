package rules

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/refserver/internal/api"
	"github.com/hospo-dev/hospo-go/refserver/internal/seal"
	"github.com/hospo-dev/hospo-go/refserver/store"
)

// Webhook subscriptions and the event feed of a vendor API key
// (contract.md section 8). A key sees only its own webhooks, and only the
// events of the locations in its scope (and the pings of its own
// webhooks).

// WebhookSecretPrefix starts every webhook signing secret.
const WebhookSecretPrefix = "whsec_"

// WebhookSealPurpose names the seal.Box that keeps webhook secrets.
const WebhookSealPurpose = "webhook-secret/v1"

// Limits of webhook requests.
const (
	maxWebhookURL         = 2048
	maxWebhookDescription = 500
	// MaxDeliveriesListed is the most deliveries a list returns;
	// DefaultDeliveriesListed when the limit is not given.
	MaxDeliveriesListed     = 1000
	DefaultDeliveriesListed = 100
	// MaxFeedLimit is the most events one feed page holds;
	// DefaultFeedLimit when the limit is not given.
	MaxFeedLimit     = 500
	DefaultFeedLimit = 100
)

// WebhookRequest is the body of POST /v1/webhooks.
type WebhookRequest struct {
	URL         string   `json:"url"`
	Events      []string `json:"events"`
	Description *string  `json:"description"`
}

// Webhook is a subscription as the API shows it (never with its secret).
type Webhook struct {
	WebhookID   string   `json:"webhookId"`
	URL         string   `json:"url"`
	Events      []string `json:"events"`
	Description *string  `json:"description"`
	CreatedAt   int64    `json:"createdAt"`
}

// CreatedWebhook is the answer to POST /v1/webhooks: the only answer that
// ever holds the secret.
type CreatedWebhook struct {
	Webhook     Webhook            `json:"webhook"`
	Secret      string             `json:"secret"`
	RequestInfo client.RequestInfo `json:"requestInfo"`
}

// CheckWebhook checks a webhook body raw, decoded into req, and returns a
// 400002 naming every failing field (nil when none fails). problems are
// the decoder's findings, answered together.
func CheckWebhook(raw []byte, req *WebhookRequest, problems map[string]string) error {
	bad := problems
	if bad == nil {
		bad = map[string]string{}
	}
	for p, r := range missing(raw, "url", "events") {
		bad[p] = r
	}
	if _, found := bad["url"]; !found {
		u, err := url.Parse(req.URL)
		switch {
		case len(req.URL) > maxWebhookURL:
			bad["url"] = fmt.Sprintf("must be at most %d characters", maxWebhookURL)
		case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Opaque != "":
			bad["url"] = "must be an absolute http or https URL"
		case u.User != nil:
			bad["url"] = "must not hold a user name or password"
		}
	}
	if _, found := bad["events"]; !found {
		switch {
		case len(req.Events) == 0:
			bad["events"] = `must name at least one event type, or be ["*"]`
		case slices.Contains(req.Events, "*") && len(req.Events) > 1:
			bad["events"] = `"*" must be the only element`
		}
		for i, t := range req.Events {
			if t != "*" && !slices.Contains(EventTypes, t) {
				bad["events["+strconv.Itoa(i)+"]"] = "must be one of " + strings.Join(EventTypes, ", ") + ` or "*"`
			}
		}
	}
	if req.Description != nil && utf8.RuneCountInString(*req.Description) > maxWebhookDescription {
		bad["description"] = fmt.Sprintf("must be at most %d characters", maxWebhookDescription)
	}
	if len(bad) > 0 {
		return api.Invalid(bad)
	}
	return nil
}

// CreateWebhook subscribes the API key keyID (POST /v1/webhooks) and
// returns the webhook with its new signing secret, which is kept only
// sealed in box. req has passed CheckWebhook.
func CreateWebhook(tx *store.Tx, box *seal.Box, keyID int64, req WebhookRequest) (Webhook, string, error) {
	events := slices.Compact(slices.Clone(req.Events)) // a repeated type is harmless
	b, err := json.Marshal(events)
	if err != nil {
		return Webhook{}, "", err
	}
	id := randomID("wh_")
	secret := WebhookSecretPrefix + randomSecret()
	w := store.Webhook{
		WebhookID: id, KeyID: keyID, URL: req.URL, EventsJSON: string(b),
		SecretSealed: box.Seal([]byte(secret), id),
	}
	if req.Description != nil {
		w.Description = *req.Description
	}
	if err := tx.InsertWebhook(w); err != nil {
		return Webhook{}, "", err
	}
	w.CreatedAt = tx.Unix()
	out, err := webhookResource(w)
	return out, secret, err
}

// randomSecret returns 32 random bytes as hex.
func randomSecret() string {
	var b [32]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	return hex.EncodeToString(b[:])
}

// ListWebhooks returns the API key's webhooks, oldest first.
func ListWebhooks(tx *store.Tx, keyID int64) ([]Webhook, error) {
	rows, err := tx.ListWebhooks(keyID)
	if err != nil {
		return nil, err
	}
	out := make([]Webhook, 0, len(rows))
	for _, r := range rows {
		w, err := webhookResource(r)
		if err != nil {
			return nil, err
		}
		out = append(out, w)
	}
	return out, nil
}

// DeleteWebhook deletes one of the API key's webhooks with its
// deliveries; another key's is a 404001 like an unknown one.
func DeleteWebhook(tx *store.Tx, keyID int64, webhookID string) error {
	return notFound(tx.DeleteWebhook(keyID, webhookID), "Webhook")
}

// PingWebhook records a ping event for one of the API key's webhooks and
// queues its delivery to that webhook alone. The event belongs to the key
// (it has no location), so the key's feed lists it too.
func PingWebhook(tx *store.Tx, keyID int64, webhookID string) error {
	if _, err := tx.GetWebhook(keyID, webhookID); err != nil {
		return notFound(err, "Webhook")
	}
	b, err := json.Marshal(PingData{WebhookID: webhookID})
	if err != nil {
		return err
	}
	seq, err := tx.InsertEvent(store.Event{EventID: newEventID(), Type: EventPing, OwnerKeyID: &keyID, DataJSON: string(b)})
	if err != nil {
		return err
	}
	return tx.QueueDelivery(seq, webhookID)
}

// webhookResource renders a stored webhook.
func webhookResource(w store.Webhook) (Webhook, error) {
	out := Webhook{WebhookID: w.WebhookID, URL: w.URL, CreatedAt: w.CreatedAt}
	if err := json.Unmarshal([]byte(w.EventsJSON), &out.Events); err != nil {
		return Webhook{}, fmt.Errorf("webhook %s: events_json: %w", w.WebhookID, err)
	}
	if w.Description != "" {
		d := w.Description
		out.Description = &d
	}
	return out, nil
}

// WebhookDelivery is one delivery as the deliveries list shows it.
type WebhookDelivery struct {
	DeliveryID     string  `json:"deliveryId"`
	EventID        string  `json:"eventId"`
	Type           string  `json:"type"`
	Status         string  `json:"status"`
	Attempts       int     `json:"attempts"`
	LastStatusCode *int64  `json:"lastStatusCode"`
	LastError      *string `json:"lastError"`
	NextAttemptAt  *int64  `json:"nextAttemptAt"`
	CreatedAt      int64   `json:"createdAt"`
}

// DeliveryStatuses are the statuses a delivery can have.
var DeliveryStatuses = []string{store.DeliveryPending, store.DeliveryDelivered, store.DeliveryFailed}

// ListDeliveries returns up to limit deliveries of one of the API key's
// webhooks, newest first, of status ("" for any). status and limit have
// been checked.
func ListDeliveries(tx *store.Tx, keyID int64, webhookID, status string, limit int) ([]WebhookDelivery, error) {
	if _, err := tx.GetWebhook(keyID, webhookID); err != nil {
		return nil, notFound(err, "Webhook")
	}
	rows, err := tx.ListDeliveries(webhookID, status, limit)
	if err != nil {
		return nil, err
	}
	out := make([]WebhookDelivery, 0, len(rows))
	for _, d := range rows {
		out = append(out, WebhookDelivery{
			DeliveryID: d.DeliveryID, EventID: d.EventID, Type: d.EventType, Status: d.Status,
			Attempts: d.Attempts, LastStatusCode: d.LastStatusCode, LastError: d.LastError,
			NextAttemptAt: d.NextAttemptAt, CreatedAt: d.CreatedAt,
		})
	}
	return out, nil
}

// Redeliver makes one more attempt at a delivery of one of the API key's
// webhooks due at once, whatever its status. An unknown webhook or
// delivery, or another key's, is a 404001.
func Redeliver(tx *store.Tx, keyID int64, webhookID, deliveryID string) error {
	if _, err := tx.GetWebhook(keyID, webhookID); err != nil {
		return notFound(err, "Webhook")
	}
	return notFound(tx.Redeliver(webhookID, deliveryID), "Delivery")
}

// FeedEvent is an event as the feed lists it: the envelope and the cursor
// to resume after it.
type FeedEvent struct {
	Event
	Cursor string `json:"cursor"`
}

// FeedRequest is a checked feed query.
type FeedRequest struct {
	// After is the cursor to resume after; "" reads from the oldest event
	// retained.
	After string
	// Types are the types to list; nil lists every type.
	Types []string
	Limit int
}

// Feed is a page of the feed. NextCursor resumes after its last event; on
// an empty page it is the cursor the page was read after (null when there
// was none).
type Feed struct {
	Events     []FeedEvent `json:"events"`
	NextCursor *string     `json:"nextCursor"`
}

// A cursor names the seq of an event and its creation time, so that a
// cursor older than the retention is told apart from a new one without
// the event itself, which may be gone.

func makeCursor(seq, createdAt int64) string {
	return strconv.FormatInt(seq, 10) + "-" + strconv.FormatInt(createdAt, 10)
}

// errBadCursor is the 400003 of a cursor this server never made.
var errBadCursor = api.ErrMsg(client.CodeInvalidQuery, "after is not a cursor of this feed; use a cursor from an earlier page, or leave after out.")

// parseCursor returns the seq and creation time of a cursor.
func parseCursor(c string) (seq, createdAt int64, err error) {
	s, t, ok := strings.Cut(c, "-")
	if !ok {
		return 0, 0, errBadCursor
	}
	seq, err1 := strconv.ParseInt(s, 10, 64)
	createdAt, err2 := strconv.ParseInt(t, 10, 64)
	if err1 != nil || err2 != nil || seq <= 0 {
		return 0, 0, errBadCursor
	}
	return seq, createdAt, nil
}

// ReadFeed returns a page of the API key's feed (GET /v1/events): events
// after req.After, oldest first, of the key's locations and its own pings.
// A cursor older than EventRetention is a 400003: the events after it may
// be gone.
func ReadFeed(tx *store.Tx, keyID int64, req FeedRequest) (Feed, error) {
	q := store.FeedQuery{KeyID: keyID, Limit: req.Limit}
	if req.After != "" {
		seq, createdAt, err := parseCursor(req.After)
		if err != nil {
			return Feed{}, err
		}
		if createdAt < tx.Now().Add(-EventRetention).Unix() {
			return Feed{}, api.ErrMsg(client.CodeInvalidQuery,
				"after is older than the events kept (7 days); read the feed again without after.")
		}
		q.After = seq
	}
	if req.Types != nil {
		b, err := json.Marshal(req.Types)
		if err != nil {
			return Feed{}, err
		}
		q.TypesJSON = string(b)
	}
	rows, err := tx.EventFeed(q)
	if err != nil {
		return Feed{}, err
	}
	f := Feed{Events: make([]FeedEvent, 0, len(rows))}
	if req.After != "" {
		f.NextCursor = &req.After
	}
	for _, e := range rows {
		c := makeCursor(e.Seq, e.CreatedAt)
		f.Events = append(f.Events, FeedEvent{Event: EventEnvelope(e), Cursor: c})
		f.NextCursor = &c
	}
	return f, nil
}

// CheckFeedTypes checks the types of a feed query.
func CheckFeedTypes(types []string) error {
	for _, t := range types {
		if !slices.Contains(EventTypes, t) {
			return api.ErrMsg(client.CodeInvalidQuery, "types: unknown event type "+strconv.Quote(t)+"; use a comma-separated list of "+strings.Join(EventTypes, ", ")+".")
		}
	}
	return nil
}
