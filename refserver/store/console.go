package store

import (
	"fmt"
	"strings"
)

// The read-only queries of the sandbox console. They cross every area, so
// they live together here rather than in the areas' files, and they read
// the schema's columns directly. None of them selects a credential: no
// token hash, no provider token, no universal POS bearer token.

// ConsoleLocation is a location as the console lists it.
type ConsoleLocation struct {
	LocationID    int64
	Name          string
	Gateway       string
	LastHeartbeat *int64
	// POSURL is the registered universal POS, nil when none is.
	POSURL             *string
	POSHealth          *string // OK, FAILED or UNREACHABLE; nil before the first check
	POSHealthMessage   *string
	POSHealthCheckedAt *int64
	MenuSyncedAt       *int64
	OpenBills          int64 // bills whose latest push is open
	PendingPayments    int64 // payments the POS has not accepted yet
}

const consoleLocationQuery = `SELECT l.location_id, l.name, l.gateway, l.last_heartbeat, l.pos_url,
	l.pos_health, l.pos_health_message, l.pos_health_checked_at, l.menu_synced_at,
	(SELECT count(*) FROM bills b WHERE b.location_id = l.location_id AND b.status = 'open'),
	(SELECT count(*) FROM payments p WHERE p.location_id = l.location_id AND p.status = 'pending')
	FROM locations l`

func scanConsoleLocation(sc scanner) (ConsoleLocation, error) {
	var l ConsoleLocation
	err := sc.Scan(&l.LocationID, &l.Name, &l.Gateway, &l.LastHeartbeat, &l.POSURL,
		&l.POSHealth, &l.POSHealthMessage, &l.POSHealthCheckedAt, &l.MenuSyncedAt,
		&l.OpenBills, &l.PendingPayments)
	return l, err
}

// ConsoleLocations returns every location, by id.
func (tx *Tx) ConsoleLocations() ([]ConsoleLocation, error) {
	rows, err := tx.query(consoleLocationQuery + ` ORDER BY l.location_id`)
	if err != nil {
		return nil, fmt.Errorf("console locations: %w", err)
	}
	defer rows.Close()
	out := []ConsoleLocation{}
	for rows.Next() {
		l, err := scanConsoleLocation(rows)
		if err != nil {
			return nil, fmt.Errorf("console locations: %w", err)
		}
		out = append(out, l)
	}
	return out, rows.Err()
}

// ConsoleLocation returns one location or ErrNotFound.
func (tx *Tx) ConsoleLocation(locationID int64) (ConsoleLocation, error) {
	l, err := scanConsoleLocation(tx.queryRow(consoleLocationQuery+` WHERE l.location_id = ?`, locationID))
	return l, notFound(err)
}

// ConsoleBill is a bill (the latest push of a check) as the console shows
// it, with its version and when it was first pushed. Money is in cents.
type ConsoleBill struct {
	Bill
	Version   int64
	CreatedAt int64
}

// ConsoleBills returns up to limit bills of a location, the most recently
// updated first. It reads Bill's columns, check_json included, so that a
// bill's columns are listed once; a page holds at most a few hundred.
func (tx *Tx) ConsoleBills(locationID int64, limit int) ([]ConsoleBill, error) {
	rows, err := tx.query(`SELECT `+billColumns+`, version, created_at
		FROM bills WHERE location_id = ? ORDER BY last_updated DESC, check_number DESC LIMIT ?`, locationID, limit)
	if err != nil {
		return nil, fmt.Errorf("console bills: %w", err)
	}
	out, err := collect(rows, func(sc scanner, b *ConsoleBill) error {
		return scanBill(sc, &b.Bill, &b.Version, &b.CreatedAt)
	})
	if err != nil {
		return nil, fmt.Errorf("console bills: %w", err)
	}
	return out, nil
}

// ConsolePayment is a payment with the last four digits of the card that
// made it. Money is in cents.
type ConsolePayment struct {
	PaymentID   int64
	CheckNumber int64
	BillID      string
	UserID      int64
	CardID      int64
	CardLast4   string
	Amount      int64 // tip excluded
	Tip         int64
	Status      string // pending or accepted
	CreatedAt   int64
	AcceptedAt  *int64
}

// ConsolePayments returns up to limit payments of a location: pending
// ones first, then the newest.
func (tx *Tx) ConsolePayments(locationID int64, limit int) ([]ConsolePayment, error) {
	rows, err := tx.query(`SELECT p.payment_id, p.check_number, p.bill_id, p.user_id, p.card_id, c.last4,
		p.amount, p.tip, p.status, p.created_at, p.accepted_at
		FROM payments p JOIN cards c ON c.card_id = p.card_id
		WHERE p.location_id = ?
		ORDER BY p.status = 'pending' DESC, p.payment_id DESC LIMIT ?`, locationID, limit)
	if err != nil {
		return nil, fmt.Errorf("console payments: %w", err)
	}
	defer rows.Close()
	out := []ConsolePayment{}
	for rows.Next() {
		var p ConsolePayment
		if err := rows.Scan(&p.PaymentID, &p.CheckNumber, &p.BillID, &p.UserID, &p.CardID, &p.CardLast4,
			&p.Amount, &p.Tip, &p.Status, &p.CreatedAt, &p.AcceptedAt); err != nil {
			return nil, fmt.Errorf("console payments: %w", err)
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// ConsoleOrder is an order with its status timeline. Money is in cents.
type ConsoleOrder struct {
	Order
	Events []OrderEvent // oldest first
}

// ConsoleOrders returns up to limit orders of a location, newest first,
// each with its timeline.
func (tx *Tx) ConsoleOrders(locationID int64, limit int) ([]ConsoleOrder, error) {
	rows, err := tx.query(`SELECT `+orderColumns+`
		FROM orders WHERE location_id = ? ORDER BY created_at DESC, rowid DESC LIMIT ?`, locationID, limit)
	if err != nil {
		return nil, fmt.Errorf("console orders: %w", err)
	}
	out := []ConsoleOrder{}
	index := map[string]int{}
	for rows.Next() {
		var o ConsoleOrder
		if err := scanOrder(rows, &o.Order); err != nil {
			rows.Close()
			return nil, fmt.Errorf("console orders: %w", err)
		}
		index[o.OrderID] = len(out)
		out = append(out, o)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("console orders: %w", err)
	}
	if len(out) == 0 {
		return out, nil
	}
	// One query for every timeline rather than one per order.
	args := make([]any, len(out))
	for i, o := range out {
		args[i] = o.OrderID
	}
	evRows, err := tx.query(`SELECT event_id, order_id, status, detail, at FROM order_events
		WHERE order_id IN (?`+strings.Repeat(", ?", len(out)-1)+`) ORDER BY event_id`, args...)
	if err != nil {
		return nil, fmt.Errorf("console order events: %w", err)
	}
	defer evRows.Close()
	for evRows.Next() {
		var e OrderEvent
		if err := evRows.Scan(&e.EventID, &e.OrderID, &e.Status, &e.Detail, &e.At); err != nil {
			return nil, fmt.Errorf("console order events: %w", err)
		}
		o := &out[index[e.OrderID]]
		o.Events = append(o.Events, e)
	}
	return out, evRows.Err()
}

// ConsoleUser is a user with their wallet entries.
type ConsoleUser struct {
	UserID        int64
	UserStatus    int
	DefaultCardID *int64
	DateCreated   int64
	LastUpdated   int64
	Cards         []ConsoleCard
}

// ConsoleCard is a wallet entry as the console shows it: the first six and
// last four digits the wallet keeps anyway (never more: the full number
// is not stored) and which providers hold a token for it.
type ConsoleCard struct {
	CardID       int64
	First6       string
	Last4        string
	Nickname     string
	CardTypeID   int
	CardStatusID int
	ExpiryMonth  string
	ExpiryYear   string
	CreatedAt    int64
	Providers    []string // providers holding a token, in name order
}

// ConsoleUsers returns up to limit users, newest first, with their
// wallet entries in id order.
func (tx *Tx) ConsoleUsers(limit int) ([]ConsoleUser, error) {
	rows, err := tx.query(`SELECT user_id, user_status, default_card_id, date_created, last_updated
		FROM users ORDER BY user_id DESC LIMIT ?`, limit)
	if err != nil {
		return nil, fmt.Errorf("console users: %w", err)
	}
	out := []ConsoleUser{}
	index := map[int64]int{}
	for rows.Next() {
		var u ConsoleUser
		if err := rows.Scan(&u.UserID, &u.UserStatus, &u.DefaultCardID, &u.DateCreated, &u.LastUpdated); err != nil {
			rows.Close()
			return nil, fmt.Errorf("console users: %w", err)
		}
		index[u.UserID] = len(out)
		out = append(out, u)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("console users: %w", err)
	}
	if len(out) == 0 {
		return out, nil
	}
	// Only the provider names of card_tokens are read, never the tokens.
	cardRows, err := tx.query(`SELECT c.user_id, c.card_id, c.first6, c.last4, c.nickname, c.card_type_id,
		c.card_status_id, c.expiry_month, c.expiry_year, c.created_at,
		COALESCE((SELECT group_concat(provider, ',') FROM
			(SELECT provider FROM card_tokens t WHERE t.card_id = c.card_id ORDER BY provider)), '')
		FROM cards c WHERE c.user_id >= ? ORDER BY c.card_id`, out[len(out)-1].UserID)
	if err != nil {
		return nil, fmt.Errorf("console cards: %w", err)
	}
	defer cardRows.Close()
	for cardRows.Next() {
		var (
			userID    int64
			c         ConsoleCard
			providers string
		)
		if err := cardRows.Scan(&userID, &c.CardID, &c.First6, &c.Last4, &c.Nickname, &c.CardTypeID,
			&c.CardStatusID, &c.ExpiryMonth, &c.ExpiryYear, &c.CreatedAt, &providers); err != nil {
			return nil, fmt.Errorf("console cards: %w", err)
		}
		i, ok := index[userID]
		if !ok {
			continue
		}
		if providers != "" {
			c.Providers = strings.Split(providers, ",")
		}
		out[i].Cards = append(out[i].Cards, c)
	}
	return out, cardRows.Err()
}

// ConsoleEventQuery selects the events the console's events page lists.
type ConsoleEventQuery struct {
	// Type is the one type to list; "" lists every type.
	Type string
	// LocationID is the one location to list; 0 lists every event, those
	// of no location (pings) included.
	LocationID int64
	Limit      int
}

// ConsoleEvents returns up to q.Limit events, newest first. A location's
// events are read by the index on (location_id, seq), the others backwards
// by seq; the table holds only the retention window's events.
func (tx *Tx) ConsoleEvents(q ConsoleEventQuery) ([]Event, error) {
	where, args := []string{"1"}, []any{}
	if q.LocationID != 0 {
		where, args = append(where, "location_id = ?"), append(args, q.LocationID)
	}
	if q.Type != "" {
		where, args = append(where, "type = ?"), append(args, q.Type)
	}
	rows, err := tx.query(`SELECT `+eventColumns+` FROM events WHERE `+strings.Join(where, " AND ")+
		` ORDER BY seq DESC LIMIT ?`, append(args, q.Limit)...)
	if err != nil {
		return nil, fmt.Errorf("console events: %w", err)
	}
	defer rows.Close()
	out := []Event{}
	for rows.Next() {
		var e Event
		if err := scanEvent(rows, &e); err != nil {
			return nil, fmt.Errorf("console events: %w", err)
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// ConsoleWebhook is a webhook as the console shows it: never its secret,
// which is not even selected.
type ConsoleWebhook struct {
	WebhookID   string
	KeyID       int64
	URL         string
	EventsJSON  string
	Description string
	CreatedAt   int64
	// Pending and Failed count its deliveries in those statuses.
	Pending int64
	Failed  int64
}

const consoleWebhookQuery = `SELECT w.webhook_id, w.key_id, w.url, w.events_json, w.description, w.created_at,
	(SELECT count(*) FROM webhook_deliveries d WHERE d.webhook_id = w.webhook_id AND d.status = 'pending'),
	(SELECT count(*) FROM webhook_deliveries d WHERE d.webhook_id = w.webhook_id AND d.status = 'failed')
	FROM webhooks w`

func scanConsoleWebhook(sc scanner) (ConsoleWebhook, error) {
	var w ConsoleWebhook
	err := sc.Scan(&w.WebhookID, &w.KeyID, &w.URL, &w.EventsJSON, &w.Description, &w.CreatedAt, &w.Pending, &w.Failed)
	return w, err
}

// ConsoleWebhooks returns up to limit webhooks of every API key, newest
// first.
func (tx *Tx) ConsoleWebhooks(limit int) ([]ConsoleWebhook, error) {
	rows, err := tx.query(consoleWebhookQuery+` ORDER BY w.created_at DESC, w.webhook_id DESC LIMIT ?`, limit)
	if err != nil {
		return nil, fmt.Errorf("console webhooks: %w", err)
	}
	defer rows.Close()
	out := []ConsoleWebhook{}
	for rows.Next() {
		w, err := scanConsoleWebhook(rows)
		if err != nil {
			return nil, fmt.Errorf("console webhooks: %w", err)
		}
		out = append(out, w)
	}
	return out, rows.Err()
}

// ConsoleWebhook returns one webhook of any API key, or ErrNotFound.
func (tx *Tx) ConsoleWebhook(webhookID string) (ConsoleWebhook, error) {
	w, err := scanConsoleWebhook(tx.queryRow(consoleWebhookQuery+` WHERE w.webhook_id = ?`, webhookID))
	return w, notFound(err)
}
