package refserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/refserver/store"
	"github.com/hospo-dev/hospo-go/universalpos"
)

// Delivery of orders to the universal POSes (contract.md section 7).
//
// The database is the queue: an order waits in status fulfillment_set or
// sent_to_pos with next_attempt_at, the Unix second its next send is due.
// The dispatcher polls for due orders, so orders in flight survive a
// restart, and is woken at once when a fulfillment is set, so a new order
// does not wait for the poll. Each send is one attempt of the POS client
// (no hidden retries), so the count of tries is exact: after a 5xx or a
// timeout the next try waits OrderRetryBase x 2^(tries-1), at most
// OrderRetryMax; after orderMaxAttempts tries, or at once on a 4xx, the
// order is failed. The POS de-duplicates by orderId, so sending an order
// again after a lost answer or a restart is safe.
const (
	// orderMaxAttempts is the number of tries before an order is failed.
	orderMaxAttempts = 10
	// orderPollInterval is the longest the dispatcher sleeps between looks
	// at the database. It bounds how late a retry is picked up after a
	// restart or a jump of the virtual clock.
	orderPollInterval = time.Second
	// orderSendTimeout bounds one send to a POS.
	orderSendTimeout = 10 * time.Second
	// orderSendConcurrency bounds the sends in flight, so one slow POS
	// cannot hold up every other location for long.
	orderSendConcurrency = 4
	// orderDueBatch is how many due orders one look at the database lists.
	orderDueBatch = 64
	// maxOrderErrorDetail bounds the failure text kept per order.
	maxOrderErrorDetail = 500
)

// wakeOrderDispatcher tells the dispatcher that an order became due. It
// never blocks: one pending wake is as good as many.
func (s *Server) wakeOrderDispatcher() {
	select {
	case s.orderWake <- struct{}{}:
	default:
	}
}

// orderBackoff is the wait after the n-th failed try (n >= 1).
func (s *Server) orderBackoff(n int) time.Duration {
	d := s.cfg.OrderRetryBase
	for i := 1; i < n && d < s.cfg.OrderRetryMax; i++ {
		d *= 2
	}
	return min(d, s.cfg.OrderRetryMax)
}

// sendResult is what a finished send tells the dispatcher loop.
type sendResult struct {
	orderID string
	// notBefore is the exact time of the next try after a temporary
	// failure (the zero time otherwise). next_attempt_at has whole seconds
	// only; this keeps sub-second backoffs (tests) exact in this process.
	notBefore time.Time
}

// dispatchOrders delivers orders to the locations' universal POSes
// until ctx ends, then waits for the sends in flight.
func (s *Server) dispatchOrders(ctx context.Context) {
	var wg sync.WaitGroup
	defer wg.Wait()
	inFlight := map[string]bool{}
	notBefore := map[string]time.Time{}
	// Buffered for every send in flight, so a send never blocks on it,
	// not even after the loop has stopped.
	done := make(chan sendResult, orderSendConcurrency)

	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.orderWake:
		case res := <-done:
			delete(inFlight, res.orderID)
			if res.notBefore.IsZero() {
				delete(notBefore, res.orderID)
			} else {
				notBefore[res.orderID] = res.notBefore
			}
		case <-timer.C:
		}
		// Since Go 1.23 Reset discards a value the timer may already hold.
		timer.Reset(s.startDueOrders(ctx, &wg, inFlight, notBefore, done))
	}
}

// startDueOrders starts a send for each due order that is not in flight and
// whose in-process backoff has passed, and returns how long to sleep before
// looking again.
func (s *Server) startDueOrders(ctx context.Context, wg *sync.WaitGroup, inFlight map[string]bool, notBefore map[string]time.Time, done chan<- sendResult) time.Duration {
	var (
		due  []string
		next int64
		have bool
	)
	err := s.db.Read(ctx, func(tx *store.Tx) error {
		var err error
		if due, err = tx.DueOrders(orderDueBatch); err != nil {
			return err
		}
		next, have, err = tx.NextOrderAttempt()
		return err
	})
	if err != nil {
		if ctx.Err() == nil {
			s.log.Error("order dispatcher: reading due orders", "err", err)
		}
		return orderPollInterval
	}
	now := s.clock.Now()
	wait := orderPollInterval
	if have {
		if d := time.Unix(next, 0).Sub(now); d > 0 {
			wait = min(wait, d)
		}
	}
	for _, id := range due {
		if inFlight[id] {
			continue
		}
		if nb, ok := notBefore[id]; ok && now.Before(nb) {
			wait = min(wait, nb.Sub(now))
			continue
		}
		if len(inFlight) >= orderSendConcurrency {
			break
		}
		inFlight[id] = true
		delete(notBefore, id)
		wg.Go(func() { done <- s.sendOrder(ctx, id) })
	}
	return wait
}

// sendOrder makes one try at delivering an order and records its outcome.
func (s *Server) sendOrder(ctx context.Context, orderID string) sendResult {
	res := sendResult{orderID: orderID}
	var (
		target store.OrderTarget
		skip   bool
	)
	err := s.db.Write(ctx, func(tx *store.Tx) error {
		var err error
		if target, err = tx.GetOrderTarget(orderID); err != nil {
			return err
		}
		o := target.Order
		if (o.Status != store.OrderFulfillmentSet && o.Status != store.OrderSentToPOS) ||
			o.NextAttemptAt == nil || *o.NextAttemptAt > tx.Unix() {
			skip = true // settled or rescheduled since it was listed
			return nil
		}
		if target.POSURL == nil || target.POSToken == nil {
			skip = true
			return tx.MarkOrderFailed(orderID, o.Attempts, "the location has no universal POS")
		}
		return tx.MarkOrderSending(orderID)
	})
	if err != nil || skip {
		// ErrNotFound: the order is gone (a sandbox reset) since it was listed.
		if err != nil && ctx.Err() == nil && !errors.Is(err, store.ErrNotFound) {
			s.log.Error("order dispatcher: starting a send", "order_id", orderID, "err", err)
		}
		return res
	}

	tries := target.Attempts + 1
	posOrderID, sendErr := s.postOrder(ctx, target)
	if ctx.Err() != nil {
		// Shutting down: the try is not counted and the order stays due,
		// so the next start sends it again (the POS de-duplicates).
		return res
	}

	var detail string
	err = s.db.Write(ctx, func(tx *store.Tx) error {
		if sendErr == nil {
			return tx.MarkOrderAccepted(orderID, tries, posOrderID)
		}
		detail = orderFailureDetail(tries, sendErr)
		if !temporarySendError(sendErr) {
			return tx.MarkOrderFailed(orderID, tries, detail)
		}
		if tries >= orderMaxAttempts {
			return tx.MarkOrderFailed(orderID, tries, detail+"; giving up after "+strconv.Itoa(tries)+" tries")
		}
		delay := s.orderBackoff(tries)
		at := tx.Now().Add(delay)
		res.notBefore = at
		return tx.ScheduleOrderRetry(orderID, tries, at.Unix(), detail+"; next try in "+delay.String())
	})
	if err != nil {
		res.notBefore = time.Time{}
		// ErrOrderNotSending: the order was removed (a sandbox reset)
		// while the send was under way; there is nothing left to record.
		if ctx.Err() == nil && !errors.Is(err, store.ErrOrderNotSending) {
			s.log.Error("order dispatcher: recording a send", "order_id", orderID, "err", err)
		}
		return res
	}
	if sendErr != nil {
		s.log.Warn("order dispatcher: send failed", "order_id", orderID, "location_id", target.LocationID,
			"tries", tries, "detail", detail)
	}
	return res
}

// postOrder builds the universal order (contract.md section 7) and sends
// it with one attempt of the POS client.
func (s *Server) postOrder(ctx context.Context, t store.OrderTarget) (string, error) {
	var items []universalpos.OrderItem
	if err := json.Unmarshal([]byte(t.ItemsJSON), &items); err != nil {
		return "", &universalpos.Error{Message: "stored items do not decode", Err: err}
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
	c := s.posClient(*t.POSURL, *t.POSToken,
		universalpos.WithTimeout(orderSendTimeout),
		universalpos.WithRetries(0), // the dispatcher counts and paces the tries
	)
	return c.SendOrder(ctx, order)
}

// temporarySendError reports whether a failed send may succeed later: a
// 5xx, a timeout or a broken connection. A 4xx is final.
func temporarySendError(err error) bool {
	var pe *universalpos.Error
	if errors.As(err, &pe) {
		return pe.Temporary()
	}
	return true
}

// orderFailureDetail describes a failed try for last_error and the order's
// timeline. The POS client's errors carry the status and the POS's
// message, never the bearer token.
func orderFailureDetail(try int, err error) string {
	d := fmt.Sprintf("try %d: %v", try, err)
	if len(d) > maxOrderErrorDetail {
		d = strings.ToValidUTF8(d[:maxOrderErrorDetail], "") + "..."
	}
	return d
}
