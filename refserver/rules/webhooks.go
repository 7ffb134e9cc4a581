package rules

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"slices"
	"strconv"
	"strings"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/events"
	"github.com/hospo-dev/hospo-go/internal/fielderr"
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
	// MaxDeliveriesListed is the most deliveries a list returns;
	// DefaultDeliveriesListed when the limit is not given.
	MaxDeliveriesListed     = 1000
	DefaultDeliveriesListed = 100
	// DefaultFeedLimit is the events of a feed page when the limit is not
	// given (at most events.MaxLimit).
	DefaultFeedLimit = 100
	// MaxWebhooksPerKey is the most webhooks an API key may have: each
	// event is queued once per subscribed webhook in the transaction that
	// records it, so the count bounds what one event costs the write that
	// makes it.
	MaxWebhooksPerKey = 16
)

// CheckWebhook checks the body of POST /v1/webhooks, decoded into req with
// problems, the decoder's findings (url and events missing or null among
// them), and returns a 400002 naming every failing field, nil when none
// fails: the rules are events.CreateWebhookRequest.Validate's, and, unless
// allowLinkLocal, a url that names no link-local or cloud metadata address
// (webhooktargets.go).
func CheckWebhook(req events.CreateWebhookRequest, problems map[string]string, allowLinkLocal bool) error {
	var bad fielderr.Set
	bad.MergeFields(problems)
	_ = bad.Merge(req.Validate()) // nil or a *client.ValidationError
	if !allowLinkLocal && !bad.Has("url") {
		if reason := webhookTargetProblem(req.URL); reason != "" {
			bad.Add("url", reason)
		}
	}
	return invalid(&bad)
}

// CreateWebhook subscribes the API key keyID (POST /v1/webhooks) and
// returns the webhook with its new signing secret, which is kept only
// sealed in box. req has passed CheckWebhook. A key that has
// MaxWebhooksPerKey webhooks already gets a 400002 naming url.
func CreateWebhook(tx *store.Tx, box *seal.Box, keyID int64, req events.CreateWebhookRequest) (events.Webhook, string, error) {
	if n, err := tx.CountWebhooks(keyID); err != nil {
		return events.Webhook{}, "", err
	} else if n >= MaxWebhooksPerKey {
		return events.Webhook{}, "", api.Invalid(map[string]string{"url": "this API key already has " + strconv.Itoa(MaxWebhooksPerKey) +
			" webhooks, the most it may have; delete one (DELETE /v1/webhooks/{webhookId}) before adding another"})
	}
	types := slices.Compact(slices.Clone(req.Events)) // a repeated type is harmless
	b, err := json.Marshal(types)
	if err != nil {
		return events.Webhook{}, "", err
	}
	id := randomID("wh_")
	secret := WebhookSecretPrefix + randomSecret()
	w := store.Webhook{
		WebhookID: id, KeyID: keyID, URL: req.URL, EventsJSON: string(b), Description: req.Description,
		SecretSealed: box.Seal([]byte(secret), id),
	}
	if err := tx.InsertWebhook(w); err != nil {
		return events.Webhook{}, "", err
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
func ListWebhooks(tx *store.Tx, keyID int64) ([]events.Webhook, error) {
	rows, err := tx.ListWebhooks(keyID)
	if err != nil {
		return nil, err
	}
	out := make([]events.Webhook, 0, len(rows))
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
	seq, err := insertEvent(tx, store.Event{Type: string(events.TypePing), OwnerKeyID: &keyID}, events.Ping{WebhookID: webhookID})
	if err != nil {
		return err
	}
	return tx.QueueDelivery(seq, webhookID)
}

// webhookResource renders a stored webhook.
func webhookResource(w store.Webhook) (events.Webhook, error) {
	out := events.Webhook{WebhookID: w.WebhookID, URL: w.URL, Description: w.Description, CreatedAt: unixTime(w.CreatedAt)}
	if err := json.Unmarshal([]byte(w.EventsJSON), &out.Events); err != nil {
		return events.Webhook{}, fmt.Errorf("webhook %s: events_json: %w", w.WebhookID, err)
	}
	return out, nil
}

// DeliveryStatuses are the statuses a delivery can have.
var DeliveryStatuses = []events.DeliveryStatus{events.DeliveryPending, events.DeliveryDelivered, events.DeliveryFailed}

// ListDeliveries returns up to limit deliveries of one of the API key's
// webhooks, newest first, of status ("" for any). status and limit have
// been checked.
func ListDeliveries(tx *store.Tx, keyID int64, webhookID string, status events.DeliveryStatus, limit int) ([]events.Delivery, error) {
	if _, err := tx.GetWebhook(keyID, webhookID); err != nil {
		return nil, notFound(err, "Webhook")
	}
	rows, err := tx.ListDeliveries(webhookID, string(status), limit)
	if err != nil {
		return nil, err
	}
	out := make([]events.Delivery, 0, len(rows))
	for _, d := range rows {
		v := events.Delivery{
			DeliveryID: d.DeliveryID, EventID: d.EventID, Type: events.Type(d.EventType),
			Status: events.DeliveryStatus(d.Status), Attempts: d.Attempts, LastError: d.LastError,
			CreatedAt: unixTime(d.CreatedAt),
		}
		if d.LastStatusCode != nil {
			code := int(*d.LastStatusCode)
			v.LastStatusCode = &code
		}
		if d.NextAttemptAt != nil {
			at := unixTime(*d.NextAttemptAt)
			v.NextAttemptAt = &at
		}
		out = append(out, v)
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

// FeedRequest is a checked feed query.
type FeedRequest struct {
	// After is the cursor to resume after; "" reads from the oldest event
	// retained.
	After string
	// Types are the types to list; nil lists every type.
	Types []events.Type
	Limit int
}

// A cursor names the seq of an event, its creation time and a tag of its
// id: "<seq>-<createdAt>-<tag>". The time tells a cursor older than the
// retention apart from a new one without the event itself, which may be
// gone. The tag tells the event apart from another that took its seq:
// seqs start again after a sandbox reset, and a snapshot restore brings
// back an earlier history, whose seqs the events made since the snapshot
// reused. Without it a cursor kept across either would go on silently
// after the wrong event and skip the new ones.

func makeCursor(e store.Event) string {
	return strconv.FormatInt(e.Seq, 10) + "-" + strconv.FormatInt(e.CreatedAt, 10) + "-" + cursorTag(e.EventID)
}

// cursorTag is a short tag of an event id for its cursors: the ids are
// random, so two events that share a seq have different tags.
func cursorTag(eventID string) string {
	h := fnv.New64a()
	h.Write([]byte(eventID))
	return strconv.FormatUint(h.Sum64(), 36)
}

// cursor is a parsed cursor.
type cursor struct {
	seq, createdAt int64
	tag            string
}

// errBadCursor is the 400003 of a cursor this server never made.
var errBadCursor = api.ErrMsg(client.CodeInvalidQuery, "after is not a cursor of this feed; use a cursor from an earlier page, or leave after out.")

// parseCursor parses a cursor.
func parseCursor(c string) (cursor, error) {
	parts := strings.Split(c, "-")
	if len(parts) != 3 || parts[2] == "" {
		return cursor{}, errBadCursor
	}
	seq, err1 := strconv.ParseInt(parts[0], 10, 64)
	createdAt, err2 := strconv.ParseInt(parts[1], 10, 64)
	if err1 != nil || err2 != nil || seq <= 0 {
		return cursor{}, errBadCursor
	}
	return cursor{seq: seq, createdAt: createdAt, tag: parts[2]}, nil
}

// The reasons of a stale cursor's 400003, in its contextData
// {"after": reason} (events.ErrStaleCursor in the SDK).
const (
	// CursorExpired: the cursor is older than EventRetention.
	CursorExpired = "expired"
	// CursorReset: the cursor's event is not in the feed's history any
	// more: the sandbox was reset, or a snapshot restored, since.
	CursorReset = "reset"
)

// staleCursor returns the 400003 of a cursor the feed cannot go on from.
func staleCursor(reason, msg string) error {
	e := api.ErrMsg(client.CodeInvalidQuery, msg)
	e.ContextData = map[string]string{"after": reason}
	return e
}

// checkCursor returns the seq to read after c, or the 400003 of a cursor
// the feed cannot go on from: older than the events kept, or naming an
// event that is not the one it was made from.
func checkCursor(tx *store.Tx, c string) (int64, error) {
	cur, err := parseCursor(c)
	if err != nil {
		return 0, err
	}
	if cur.createdAt < tx.Now().Add(-EventRetention).Unix() {
		return 0, staleCursor(CursorExpired,
			"after is older than the events kept (7 days); read the feed again without after.")
	}
	id, err := tx.EventID(cur.seq)
	if errors.Is(err, store.ErrNotFound) || (err == nil && cursorTag(id) != cur.tag) {
		return 0, staleCursor(CursorReset,
			"after names an event this feed no longer has: the sandbox was reset or a snapshot restored since; read the feed again without after.")
	}
	return cur.seq, err
}

// ReadFeed returns a page of the API key's feed (GET /v1/events): events
// after req.After, oldest first, of the key's locations and its own pings.
// A cursor the feed cannot go on from (checkCursor) is a 400003 whose
// contextData says why. The page's NextCursor resumes after its last
// event; on an empty page it is the cursor the page was read after, nil
// when there was none. The caller sets RequestInfo.
func ReadFeed(tx *store.Tx, keyID int64, req FeedRequest) (events.Page, error) {
	q := store.FeedQuery{KeyID: keyID, Limit: req.Limit}
	if req.After != "" {
		seq, err := checkCursor(tx, req.After)
		if err != nil {
			return events.Page{}, err
		}
		q.After = seq
	}
	if req.Types != nil {
		b, err := json.Marshal(req.Types)
		if err != nil {
			return events.Page{}, err
		}
		q.TypesJSON = string(b)
	}
	rows, err := tx.EventFeed(q)
	if err != nil {
		return events.Page{}, err
	}
	f := events.Page{Events: make([]events.Event, 0, len(rows))}
	if req.After != "" {
		f.NextCursor = &req.After
	}
	for _, e := range rows {
		c := makeCursor(e)
		ev := EventEnvelope(e)
		ev.Cursor = c
		f.Events = append(f.Events, ev)
		f.NextCursor = &c
	}
	return f, nil
}

// CheckFeedTypes checks the types of a feed query: each a known type
// (events.Type.Known).
func CheckFeedTypes(types []events.Type) error {
	for _, t := range types {
		if !t.Known() {
			names := make([]string, 0, len(events.Types()))
			for _, k := range events.Types() {
				names = append(names, string(k))
			}
			return api.ErrMsg(client.CodeInvalidQuery, "types: unknown event type "+strconv.Quote(string(t))+"; use a comma-separated list of "+strings.Join(names, ", ")+".")
		}
	}
	return nil
}
