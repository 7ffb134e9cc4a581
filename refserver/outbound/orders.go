package outbound

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/refserver/rules"
	"github.com/hospo-dev/hospo-go/refserver/store"
	"github.com/hospo-dev/hospo-go/universalpos"
)

// Delivery of orders to the universal POSes (contract.md section 7). An
// order waits in status fulfillment_set or sent_to_pos with
// next_attempt_at, the Unix second its next send is due. Each send is one
// attempt of the POS client; after a 5xx or a timeout the next try waits
// OrderConfig.RetryBase x 2^(tries-1), at most RetryMax; after
// orderMaxTries tries, or at once on a 4xx, the order is failed. The POS
// de-duplicates by orderId, so sending an order again after a lost answer
// or a restart is safe.
const (
	// orderMaxTries is the number of tries before an order is failed.
	orderMaxTries = 10
	// orderSendTimeout bounds one send to a POS.
	orderSendTimeout = 10 * time.Second
	// orderSendConcurrency bounds the sends in flight.
	orderSendConcurrency = 4
	// orderDueBatch is how many due orders one look at the database lists.
	orderDueBatch = 64
	// maxOrderErrorDetail bounds the failure text kept per order.
	maxOrderErrorDetail = 500
)

// OrderConfig is what the order dispatcher needs.
type OrderConfig struct {
	DB *store.DB
	// Now is the virtual clock.
	Now func() time.Time
	// HTTPClient calls the POSes.
	HTTPClient *http.Client
	// Tokens opens the POSes' sealed bearer tokens.
	Tokens store.POSTokens
	Logger *slog.Logger
	// RetryBase and RetryMax bound the backoff between tries.
	RetryBase, RetryMax time.Duration
	// Meter, when set, counts the tries by outcome (MetricDeliveries).
	Meter metric.Meter
	// Tracer, when set, traces each try (DispatcherConfig.Tracer).
	Tracer trace.Tracer
}

// orderPolicy is how orders are retried.
func orderPolicy(base, max time.Duration) Policy {
	return Policy{
		MaxTries:  orderMaxTries,
		Base:      base,
		Max:       max,
		Temporary: temporaryPOSError,
		MaxDetail: maxOrderErrorDetail,
	}
}

// NewOrderDispatcher returns the dispatcher that sends orders to their
// locations' universal POSes. Wake it when an order's fulfillment is set.
func NewOrderDispatcher(cfg OrderConfig) *Dispatcher {
	return NewDispatcher(DispatcherConfig{
		Name:        "order dispatcher",
		Queue:       &orderQueue{db: cfg.DB, http: cfg.HTTPClient, tokens: cfg.Tokens, log: cfg.Logger},
		Policy:      orderPolicy(cfg.RetryBase, cfg.RetryMax),
		Now:         cfg.Now,
		Logger:      cfg.Logger,
		Concurrency: orderSendConcurrency,
		Batch:       orderDueBatch,
		Meter:       cfg.Meter,
		Tracer:      cfg.Tracer,
	})
}

// orderQueue is the orders table seen as a Queue.
type orderQueue struct {
	db     *store.DB
	http   *http.Client
	tokens store.POSTokens
	log    *slog.Logger
}

func (q *orderQueue) Due(ctx context.Context, limit int, _ func(string) int) ([]Due, time.Time, error) {
	var (
		due  []Due
		next time.Time
	)
	err := q.db.Read(ctx, func(tx *store.Tx) error {
		ids, err := tx.DueOrders(limit)
		if err != nil {
			return err
		}
		for _, id := range ids {
			due = append(due, Due{ID: id})
		}
		at, ok, err := tx.NextOrderAttempt()
		if ok {
			next = time.Unix(at, 0)
		}
		return err
	})
	return due, next, err
}

// Claim starts the sends of the orders ids in one write: each is marked
// sent_to_pos (with its event) unless it already was, and an order whose
// location cannot be sent to fails unsent.
func (q *orderQueue) Claim(ctx context.Context, ids []string) ([]Attempt, error) {
	out := make([]Attempt, len(ids))
	err := q.db.Write(ctx, func(tx *store.Tx) error {
		for i, id := range ids {
			a, err := q.claim(tx, id)
			if err != nil {
				return err
			}
			if a != nil {
				out[i] = a
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// claim starts the send of order orderID in tx, or returns nil when there
// is nothing to send.
func (q *orderQueue) claim(tx *store.Tx, orderID string) (*orderAttempt, error) {
	target, err := tx.GetOrderTarget(orderID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil // the order is gone (a sandbox reset) since it was listed
	}
	if err != nil {
		return nil, err
	}
	o := target.Order
	if (o.Status != store.OrderFulfillmentSet && o.Status != store.OrderSentToPOS) ||
		o.NextAttemptAt == nil || *o.NextAttemptAt > tx.Unix() {
		return nil, nil // settled or rescheduled since it was listed
	}
	reason, token := "the location has no universal POS", ""
	if target.POSURL != nil && target.POSTokenSealed != nil {
		// A token that does not open fails the order unsent: no retry can
		// help, and the POS must not get another location's token.
		if token, err = q.tokens.Open(o.LocationID, target.POSTokenSealed); err == nil {
			reason = ""
		} else {
			reason = err.Error()
		}
	}
	if reason != "" {
		if err := tx.MarkOrderFailed(orderID, o.Attempts, reason); err != nil {
			return nil, err
		}
		return nil, rules.OrderStatusChanged(tx, orderID, o.LocationID, o.Status, store.OrderFailed, nil, &reason)
	}
	a := &orderAttempt{q: q, target: target, token: token}
	if o.Status != store.OrderFulfillmentSet {
		return a, nil // a retry: already sent_to_pos
	}
	if err := tx.MarkOrderSending(orderID); err != nil {
		return nil, err
	}
	return a, rules.OrderStatusChanged(tx, orderID, o.LocationID, o.Status, store.OrderSentToPOS, nil, nil)
}

// orderAttempt is one send of an order.
type orderAttempt struct {
	q          *orderQueue
	target     store.OrderTarget
	token      string // the POS's bearer token, opened
	posOrderID string // the POS's id for the order, once it accepted it
}

func (a *orderAttempt) Try() int { return a.target.Attempts + 1 }

// Call builds the universal order (contract.md section 7) and sends it
// with one attempt of the POS client.
func (a *orderAttempt) Call(ctx context.Context) error {
	t := a.target
	var items []universalpos.OrderItem
	if err := json.Unmarshal([]byte(t.ItemsJSON), &items); err != nil {
		return &universalpos.Error{Message: "stored items do not decode", Err: err}
	}
	order := universalpos.Order{
		OrderID:       t.OrderID,
		POSLocationID: strconv.FormatInt(t.LocationID, 10),
		Items:         items,
		Total:         client.MoneyFromCents(t.Total),
		CreatedAt:     client.UnixTime{Time: time.Unix(t.CreatedAt, 0).UTC()},
	}
	if t.FulfillmentType != nil {
		order.FulfillmentType = universalpos.FulfillmentType(*t.FulfillmentType)
	}
	if t.FulfillmentJSON != nil {
		order.Fulfillment = json.RawMessage(*t.FulfillmentJSON)
	}
	c := newPOSClient(a.q.http, *t.POSURL, a.token,
		universalpos.WithTimeout(orderSendTimeout),
		universalpos.WithRetries(0), // the dispatcher counts and paces the tries
	)
	var err error
	a.posOrderID, err = c.SendOrder(ctx, order)
	return err
}

func (a *orderAttempt) Record(ctx context.Context, o Outcome) (time.Time, error) {
	id := a.target.OrderID
	var at time.Time
	err := a.q.db.Write(ctx, func(tx *store.Tx) error {
		loc := a.target.LocationID
		switch {
		case o.Err == nil:
			if err := tx.MarkOrderAccepted(id, o.Try, a.posOrderID); err != nil {
				return err
			}
			return rules.OrderStatusChanged(tx, id, loc, store.OrderSentToPOS, store.OrderAcceptedByPOS, &a.posOrderID, nil)
		case o.RetryIn == 0:
			if err := tx.MarkOrderFailed(id, o.Try, o.Detail); err != nil {
				return err
			}
			return rules.OrderStatusChanged(tx, id, loc, store.OrderSentToPOS, store.OrderFailed, nil, &o.Detail)
		}
		at = tx.Now().Add(o.RetryIn)
		return tx.ScheduleOrderRetry(id, o.Try, at.Unix(), o.Detail)
	})
	if errors.Is(err, store.ErrOrderNotSending) {
		// The order was removed (a sandbox reset) while the send was under
		// way; there is nothing left to record.
		return time.Time{}, nil
	}
	if err != nil {
		return time.Time{}, err
	}
	if o.Err != nil {
		a.q.log.Warn("order dispatcher: send failed", "order_id", id, "location_id", a.target.LocationID,
			"tries", o.Try, "detail", o.Detail)
	}
	return at, nil
}

// temporaryPOSError reports whether a failed call to a POS may succeed
// later: a 5xx, a timeout or a broken connection. A 4xx is final.
func temporaryPOSError(err error) bool {
	var pe *universalpos.Error
	if errors.As(err, &pe) {
		return pe.Temporary()
	}
	return true
}
