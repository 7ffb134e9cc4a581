package store

import (
	"cmp"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"time"
)

// The statements of webhooks (contract.md section 8): the subscriptions of
// the vendor API keys and their deliveries, which are also the queue the
// webhook dispatcher works from.

// Delivery statuses, as kept in webhook_deliveries.status.
const (
	DeliveryPending   = "pending"
	DeliveryDelivered = "delivered"
	DeliveryFailed    = "failed"
)

// Webhook is a row of the webhooks table. SecretSealed is the signing
// secret as package seal sealed it; EventsJSON the JSON array of the
// subscribed types (["*"] for all).
type Webhook struct {
	WebhookID    string
	KeyID        int64
	URL          string
	EventsJSON   string
	Description  string
	SecretSealed []byte
	CreatedAt    int64
}

const webhookColumns = `webhook_id, key_id, url, events_json, description, secret_sealed, created_at`

func scanWebhook(sc scanner, w *Webhook) error {
	return sc.Scan(&w.WebhookID, &w.KeyID, &w.URL, &w.EventsJSON, &w.Description, &w.SecretSealed, &w.CreatedAt)
}

// InsertWebhook stores w, created at the transaction's time (w.CreatedAt
// is ignored).
func (tx *Tx) InsertWebhook(w Webhook) error {
	_, err := tx.exec(`INSERT INTO webhooks (`+webhookColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		w.WebhookID, w.KeyID, w.URL, w.EventsJSON, w.Description, w.SecretSealed, tx.Unix())
	if err != nil {
		return fmt.Errorf("insert webhook: %w", err)
	}
	tx.db.webhooks.add(w.EventsJSON)
	return nil
}

// CountWebhooks returns how many webhooks the API key keyID has.
func (tx *Tx) CountWebhooks(keyID int64) (int, error) {
	var n int
	if err := tx.queryRow(`SELECT count(*) FROM webhooks WHERE key_id = ?`, keyID).Scan(&n); err != nil {
		return 0, fmt.Errorf("count webhooks: %w", err)
	}
	return n, nil
}

// GetWebhook returns the webhook of the API key keyID with id webhookID,
// or ErrNotFound (for another key's webhook too).
func (tx *Tx) GetWebhook(keyID int64, webhookID string) (Webhook, error) {
	var w Webhook
	err := scanWebhook(tx.queryRow(`SELECT `+webhookColumns+` FROM webhooks WHERE webhook_id = ? AND key_id = ?`,
		webhookID, keyID), &w)
	return w, notFound(err)
}

// ListWebhooks returns the webhooks of the API key keyID, oldest first.
func (tx *Tx) ListWebhooks(keyID int64) ([]Webhook, error) {
	rows, err := tx.query(`SELECT `+webhookColumns+` FROM webhooks WHERE key_id = ? ORDER BY created_at, webhook_id`, keyID)
	if err != nil {
		return nil, fmt.Errorf("list webhooks: %w", err)
	}
	defer rows.Close()
	var out []Webhook
	for rows.Next() {
		var w Webhook
		if err := scanWebhook(rows, &w); err != nil {
			return nil, fmt.Errorf("list webhooks: %w", err)
		}
		out = append(out, w)
	}
	return out, rows.Err()
}

// DeleteWebhook deletes the API key's webhook and its deliveries, or
// returns ErrNotFound (for another key's webhook too).
func (tx *Tx) DeleteWebhook(keyID int64, webhookID string) error {
	if _, err := tx.exec(`DELETE FROM webhook_deliveries WHERE webhook_id IN
		(SELECT webhook_id FROM webhooks WHERE webhook_id = ? AND key_id = ?)`, webhookID, keyID); err != nil {
		return fmt.Errorf("delete webhook: %w", err)
	}
	res, err := tx.exec(`DELETE FROM webhooks WHERE webhook_id = ? AND key_id = ?`, webhookID, keyID)
	if err != nil {
		return fmt.Errorf("delete webhook: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return err
	} else if n == 0 {
		return ErrNotFound
	}
	return nil
}

// newDeliveryID is the SQL expression of a new delivery id, "dlv_" and 24
// hex digits: its first parameter is the id's start, deliveryIDPrefix, to
// which it adds 48 random bits. The ids of one statement share the time.
const newDeliveryID = `? || lower(hex(randomblob(6)))`

// deliveryIDPrefix returns the start of the ids of deliveries made at now:
// "dlv_" and the time in milliseconds as 12 hex digits. Ids in time order
// land at the end of the primary key index of webhook_deliveries, where
// the deliveries of one commit share a page; random ones put each
// delivery's entry on a page of its own somewhere in the index, and every
// page a commit changes is written to the WAL again (see newBillID).
func deliveryIDPrefix(now time.Time) string {
	var b [6]byte
	ms := uint64(now.UnixMilli())
	for i := range b {
		b[i] = byte(ms >> (40 - 8*i))
	}
	return "dlv_" + hex.EncodeToString(b[:])
}

// QueueDeliveries makes a pending delivery, due at once, of the event seq
// to every webhook subscribed to typ whose API key may see locationID, and
// returns how many it made.
func (tx *Tx) QueueDeliveries(seq int64, typ string, locationID int64) (int64, error) {
	if wanted, err := tx.wantsType(typ); err != nil || !wanted {
		return 0, err
	}
	now := tx.Unix()
	res, err := tx.exec(`INSERT INTO webhook_deliveries (delivery_id, webhook_id, event_seq, status, next_attempt_at, created_at)
		SELECT `+newDeliveryID+`, w.webhook_id, ?, 'pending', ?, ?
		FROM webhooks w JOIN api_key_locations k ON k.key_id = w.key_id AND k.location_id = ?
		WHERE EXISTS (SELECT 1 FROM json_each(w.events_json) WHERE value IN ('*', ?))`,
		deliveryIDPrefix(time.Now()), seq, now, now, locationID, typ)
	if err != nil {
		return 0, fmt.Errorf("queue deliveries: %w", err)
	}
	n, err := res.RowsAffected()
	if n > 0 {
		tx.AfterCommit(tx.db.deliveries.notify)
	}
	return n, err
}

// webhookPresence remembers which event types some webhook of the
// database is subscribed to, so that an event no webhook wants (every
// event of a new sandbox and of most load tests; order events where the
// webhooks want bills) skips the statement that looks for its
// subscribers: that statement cost as much as inserting the event. Only
// the writer changes it: InsertWebhook adds its types, a restore forgets
// them all, and the first QueueDeliveries after that reads them from the
// table. What it holds may be more than the webhooks want (a webhook
// deleted, or inserted by a transaction that then rolled back), never
// less: an event of a type it holds merely finds no subscriber.
type webhookPresence struct {
	types atomic.Pointer[webhookTypes] // nil: not known
}

// webhookTypes is a set of event types; all stands for "*".
type webhookTypes struct {
	all   bool
	types map[string]bool
}

func (w *webhookTypes) wants(typ string) bool { return w.all || w.types[typ] }

// with returns the set with types added, a new one: readers may hold w.
func (w *webhookTypes) with(types []string) *webhookTypes {
	out := &webhookTypes{all: w.all, types: make(map[string]bool, len(w.types)+len(types))}
	for t := range w.types {
		out.types[t] = true
	}
	for _, t := range types {
		if t == "*" {
			out.all = true
		}
		out.types[t] = true
	}
	return out
}

// forget makes the next QueueDeliveries read the types from the table.
func (p *webhookPresence) forget() { p.types.Store(nil) }

// add adds the types of a webhook subscribed to eventsJSON (a JSON array
// of types). When they cannot be read, the set is forgotten and read
// again from the table, where the webhook's own statement put them.
func (p *webhookPresence) add(eventsJSON string) {
	known := p.types.Load()
	if known == nil {
		return
	}
	var types []string
	if err := json.Unmarshal([]byte(eventsJSON), &types); err != nil {
		p.forget()
		return
	}
	p.types.Store(known.with(types))
}

// wantsType reports whether some webhook of the database may be
// subscribed to events of type typ.
func (tx *Tx) wantsType(typ string) (bool, error) {
	if known := tx.db.webhooks.types.Load(); known != nil {
		return known.wants(typ), nil
	}
	rows, err := tx.query(`SELECT DISTINCT t.value FROM webhooks w, json_each(w.events_json) t`)
	if err != nil {
		return false, fmt.Errorf("queue deliveries: %w", err)
	}
	types, err := collect(rows, scanString)
	if err != nil {
		return false, fmt.Errorf("queue deliveries: %w", err)
	}
	known := (&webhookTypes{}).with(types)
	tx.db.webhooks.types.Store(known)
	return known.wants(typ), nil
}

// QueueDelivery makes a pending delivery, due at once, of the event seq to
// one webhook, whatever it subscribed to (a ping).
func (tx *Tx) QueueDelivery(seq int64, webhookID string) error {
	now := tx.Unix()
	_, err := tx.exec(`INSERT INTO webhook_deliveries (delivery_id, webhook_id, event_seq, status, next_attempt_at, created_at)
		VALUES (`+newDeliveryID+`, ?, ?, 'pending', ?, ?)`, deliveryIDPrefix(time.Now()), webhookID, seq, now, now)
	if err != nil {
		return fmt.Errorf("queue delivery: %w", err)
	}
	tx.AfterCommit(tx.db.deliveries.notify)
	return nil
}

// Delivery is a row of webhook_deliveries with its event's id and type.
type Delivery struct {
	DeliveryID     string
	WebhookID      string
	EventSeq       int64
	EventID        string
	EventType      string
	Status         string
	Attempts       int
	LastStatusCode *int64
	LastError      *string
	NextAttemptAt  *int64
	CreatedAt      int64
}

const deliveryColumns = `d.delivery_id, d.webhook_id, d.event_seq, e.event_id, e.type, d.status, d.attempts,
	d.last_status_code, d.last_error, d.next_attempt_at, d.created_at`

func scanDelivery(sc scanner, d *Delivery) error {
	return sc.Scan(&d.DeliveryID, &d.WebhookID, &d.EventSeq, &d.EventID, &d.EventType, &d.Status, &d.Attempts,
		&d.LastStatusCode, &d.LastError, &d.NextAttemptAt, &d.CreatedAt)
}

// ListDeliveries returns up to limit deliveries of a webhook, newest
// first; status "" lists every status.
func (tx *Tx) ListDeliveries(webhookID, status string, limit int) ([]Delivery, error) {
	rows, err := tx.query(`SELECT `+deliveryColumns+` FROM webhook_deliveries d JOIN events e ON e.seq = d.event_seq
		WHERE d.webhook_id = ? AND (? = '' OR d.status = ?)
		ORDER BY d.created_at DESC, d.event_seq DESC, d.delivery_id DESC LIMIT ?`, webhookID, status, status, limit)
	if err != nil {
		return nil, fmt.Errorf("list deliveries: %w", err)
	}
	defer rows.Close()
	var out []Delivery
	for rows.Next() {
		var d Delivery
		if err := scanDelivery(rows, &d); err != nil {
			return nil, fmt.Errorf("list deliveries: %w", err)
		}
		out = append(out, d)
	}
	return out, rows.Err()
}

// DeliveryTarget is a delivery with what an attempt needs: its webhook and
// its event.
type DeliveryTarget struct {
	Delivery
	Webhook Webhook
	Event   Event
}

// GetDeliveryTarget returns a delivery with its webhook and event, or
// ErrNotFound. Every attempt at a delivery reads it, so it is one query.
func (tx *Tx) GetDeliveryTarget(deliveryID string) (DeliveryTarget, error) {
	var t DeliveryTarget
	d, w, e := &t.Delivery, &t.Webhook, &t.Event
	err := tx.queryRow(`SELECT `+deliveryColumns+`,
		w.webhook_id, w.key_id, w.url, w.events_json, w.description, w.secret_sealed, w.created_at,
		e.seq, e.event_id, e.type, e.created_at, e.location_id, e.owner_key_id, e.data_json
		FROM webhook_deliveries d JOIN events e ON e.seq = d.event_seq JOIN webhooks w ON w.webhook_id = d.webhook_id
		WHERE d.delivery_id = ?`, deliveryID).Scan(
		&d.DeliveryID, &d.WebhookID, &d.EventSeq, &d.EventID, &d.EventType, &d.Status, &d.Attempts,
		&d.LastStatusCode, &d.LastError, &d.NextAttemptAt, &d.CreatedAt,
		&w.WebhookID, &w.KeyID, &w.URL, &w.EventsJSON, &w.Description, &w.SecretSealed, &w.CreatedAt,
		&e.Seq, &e.EventID, &e.Type, &e.CreatedAt, &e.LocationID, &e.OwnerKeyID, &e.DataJSON)
	return t, notFound(err)
}

// DueDelivery is a pending delivery whose next attempt is due, and the API
// key whose webhook it is for.
type DueDelivery struct {
	DeliveryID string
	KeyID      int64
}

// DueDeliveries returns up to limit pending deliveries whose next attempt
// is due at the transaction's time, shared out fairly between the API
// keys: at most perKey(key) of each key, the longest-waiting first within
// a key, and the keys taking turns (every key's first, then every key's
// second, ...), so that one key's backlog never keeps another key's
// deliveries out of the list. It also returns next, the earliest
// next_attempt_at of all the pending deliveries (hasNext false when none
// is pending), for the dispatcher to know when to look again. Each look
// costs an index seek per webhook (dueWebhooksSQL) and one more per
// webhook with due deliveries, and reads no more of a key's queue than
// perKey asks for, however long it is. A delivery whose attempt is under
// way is not due, and has no next attempt yet (StartDeliveryAttempt).
func (tx *Tx) DueDeliveries(limit int, perKey func(keyID int64) int) (_ []DueDelivery, next int64, hasNext bool, _ error) {
	now := tx.Unix()
	rows, err := tx.query(dueWebhooksSQL)
	if err != nil {
		return nil, 0, false, fmt.Errorf("due deliveries: %w", err)
	}
	type hook struct {
		key int64
		id  string
		due sql.NullInt64
	}
	hooks, err := collect(rows, func(sc scanner, h *hook) error { return sc.Scan(&h.key, &h.id, &h.due) })
	if err != nil {
		return nil, 0, false, err
	}
	for _, h := range hooks {
		if h.due.Valid && (!hasNext || h.due.Int64 < next) {
			next, hasNext = h.due.Int64, true
		}
	}
	hooks = slices.DeleteFunc(hooks, func(h hook) bool { return !h.due.Valid || h.due.Int64 > now })
	type due struct {
		id      string
		at, seq int64
	}
	var (
		keys  []int64
		byKey = map[int64][]due{}
	)
	room := map[int64]int{}
	for _, h := range hooks {
		n, ok := room[h.key]
		if !ok {
			n = perKey(h.key)
			room[h.key] = n
		}
		if n <= 0 {
			continue
		}
		rows, err := tx.query(`SELECT delivery_id, next_attempt_at, event_seq FROM webhook_deliveries
			WHERE webhook_id = ? AND status = 'pending' AND next_attempt_at <= ?
			ORDER BY next_attempt_at, event_seq LIMIT ?`, h.id, now, n)
		if err != nil {
			return nil, 0, false, fmt.Errorf("due deliveries: %w", err)
		}
		if _, ok := byKey[h.key]; !ok {
			keys = append(keys, h.key)
		}
		list, err := collect(rows, func(sc scanner, d *due) error { return sc.Scan(&d.id, &d.at, &d.seq) })
		if err != nil {
			return nil, 0, false, err
		}
		byKey[h.key] = append(byKey[h.key], list...)
	}
	turns := 0
	for _, k := range keys {
		list := byKey[k]
		slices.SortFunc(list, func(a, b due) int { return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.seq, b.seq)) })
		byKey[k] = list[:min(len(list), room[k])]
		turns = max(turns, len(byKey[k]))
	}
	keys = slices.DeleteFunc(keys, func(k int64) bool { return len(byKey[k]) == 0 })
	// The key waiting longest goes first in each turn.
	slices.SortFunc(keys, func(a, b int64) int {
		x, y := byKey[a][0], byKey[b][0]
		return cmp.Or(cmp.Compare(x.at, y.at), cmp.Compare(x.seq, y.seq), cmp.Compare(a, b))
	})
	var out []DueDelivery
	for turn := 0; turn < turns && len(out) < limit; turn++ {
		for _, k := range keys {
			if list := byKey[k]; turn < len(list) && len(out) < limit {
				out = append(out, DueDelivery{DeliveryID: list[turn].id, KeyID: k})
			}
		}
	}
	return out, next, hasNext, nil
}

// dueWebhooksSQL lists every webhook with the earliest next_attempt_at of
// its pending deliveries (NULL when none is pending, or every pending one
// is under way): one seek of webhook_deliveries_webhook_due each, where a
// min over the table would step through every pending delivery's entry.
const dueWebhooksSQL = `SELECT w.key_id, w.webhook_id, (SELECT min(d.next_attempt_at) FROM webhook_deliveries d
	WHERE d.webhook_id = w.webhook_id AND d.status = 'pending') FROM webhooks w ORDER BY w.key_id`

// DeliveryAttempt is the outcome of one attempt at a delivery, to record.
type DeliveryAttempt struct {
	Attempts int
	// Status is DeliveryDelivered, DeliveryFailed, or DeliveryPending with
	// NextAttemptAt set.
	Status        string
	StatusCode    *int64
	Error         *string
	NextAttemptAt *int64
}

// ErrDeliveryGone is returned by RecordDeliveryAttempt when the delivery
// was removed (its webhook deleted, a reset) while the attempt was made.
var ErrDeliveryGone = errors.New("delivery is gone")

// StartDeliveryAttempt counts an attempt at a pending delivery as it
// starts, before the call, so that a list read while it is under way (or
// after the receiver answered, before the outcome is recorded) shows it:
// attempts counts it, and the last status and error, which belonged to
// the attempt before, are cleared until RecordDeliveryAttempt writes its
// own. Its next attempt time is cleared too: a delivery under way is not
// due (DueDeliveries reads past none of them), and none is scheduled until
// this attempt's outcome says. A server that stops before recording the
// outcome makes it due again when it next opens the database
// (reviveDeliveries). It returns ErrDeliveryGone when the delivery is no
// longer pending.
func (tx *Tx) StartDeliveryAttempt(deliveryID string) error {
	res, err := tx.exec(`UPDATE webhook_deliveries SET attempts = attempts + 1, last_status_code = NULL, last_error = NULL,
		next_attempt_at = NULL WHERE delivery_id = ? AND status = 'pending'`, deliveryID)
	if err != nil {
		return fmt.Errorf("start delivery attempt: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return err
	} else if n == 0 {
		return ErrDeliveryGone
	}
	return nil
}

// reviveDeliveries makes the deliveries whose attempt was under way when
// the database was last closed (or a copy of it made) due at once: pending
// with no next attempt time, their outcome was never recorded, so the
// attempt is made again (at least once).
func (tx *Tx) reviveDeliveries() error {
	if _, err := tx.exec(`UPDATE webhook_deliveries SET next_attempt_at = ?
		WHERE status = 'pending' AND next_attempt_at IS NULL`, tx.Unix()); err != nil {
		return fmt.Errorf("revive deliveries: %w", err)
	}
	return nil
}

// RecordDeliveryAttempt stores the outcome of an attempt at a delivery.
func (tx *Tx) RecordDeliveryAttempt(deliveryID string, a DeliveryAttempt) error {
	res, err := tx.exec(`UPDATE webhook_deliveries SET status = ?, attempts = ?, last_status_code = ?, last_error = ?,
		next_attempt_at = ? WHERE delivery_id = ?`, a.Status, a.Attempts, a.StatusCode, a.Error, a.NextAttemptAt, deliveryID)
	if err != nil {
		return fmt.Errorf("record delivery attempt: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return err
	} else if n == 0 {
		return ErrDeliveryGone
	}
	return nil
}

// Redeliver makes a delivery of the webhook pending and due at once,
// whatever its status, or returns ErrNotFound.
func (tx *Tx) Redeliver(webhookID, deliveryID string) error {
	res, err := tx.exec(`UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = ?
		WHERE delivery_id = ? AND webhook_id = ?`, tx.Unix(), deliveryID, webhookID)
	if err != nil {
		return fmt.Errorf("redeliver: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return err
	} else if n == 0 {
		return ErrNotFound
	}
	return nil
}
