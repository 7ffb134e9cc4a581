package main

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/events"
	"github.com/hospo-dev/hospo-go/sandbox"

	_ "github.com/mattn/go-sqlite3" // the server's database, for -server-db with -webhook
)

// With -webhook the load runs with one webhook subscribed to every event
// type ("*") by a vendor API key scoped to all of the run's locations, so
// that each event the load makes (a bill closed, a payment made or
// accepted, a location online) is also delivered. The receiver lives in
// loadgen: it checks every delivery's signature with events.NewHandler and
// counts what it gets, which the report prints beside the push rate.

// hookReceiver is the webhook's receiving end.
type hookReceiver struct {
	srv       *http.Server
	webhookID string
	svc       *events.Service
	// db is the server's database (-server-db), where the pending
	// deliveries are counted; nil without it.
	db *sql.DB

	refused  atomic.Int64 // requests answered with an error
	verified atomic.Int64 // deliveries whose signature verified

	mu     sync.Mutex
	byType map[events.Type]int64
	// received holds when each event was first received, for the count
	// of the pending deliveries not received yet (with -server-db).
	received map[string]time.Time
}

// hookCounts are the receiver's tallies at one instant.
type hookCounts struct {
	refused, verified int64
	byType            map[events.Type]int64
}

// startWebhook makes the API key for locs, starts the receiver on a free
// loopback port and subscribes it to "*". serverDB, when not empty, is the
// server's database file, where the pending deliveries are counted.
func startWebhook(ctx context.Context, admin *client.Client, newClient func(...client.Option) (*client.Client, error), locs []location, serverDB string) (*hookReceiver, error) {
	ids := make([]int64, len(locs))
	for i, l := range locs {
		ids[i] = l.ID
	}
	key, err := sandbox.NewService(admin).CreateAPIKey(ctx, ids)
	if err != nil {
		return nil, fmt.Errorf("creating the API key: %w", err)
	}
	vendor, err := newClient(client.WithAPIKey(key.APIKey))
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	h := &hookReceiver{svc: events.NewService(vendor), byType: map[events.Type]int64{}, received: map[string]time.Time{}}
	if serverDB != "" {
		if h.db, err = openServerDB(serverDB); err != nil {
			ln.Close()
			return nil, err
		}
	}
	created, err := h.svc.CreateWebhook(ctx, events.CreateWebhookRequest{
		URL: "http://" + ln.Addr().String() + "/hooks", Events: []events.Type{events.AllTypes}, Description: "loadgen -webhook",
	})
	if err != nil {
		ln.Close()
		if h.db != nil {
			h.db.Close()
		}
		return nil, fmt.Errorf("subscribing the webhook: %w", err)
	}
	h.webhookID = created.Webhook.WebhookID
	verify := events.NewHandler([]string{created.Secret}, func(_ context.Context, ev events.Event) error {
		h.verified.Add(1)
		now := time.Now()
		h.mu.Lock()
		h.byType[ev.Type]++
		if _, ok := h.received[ev.ID]; !ok {
			h.received[ev.ID] = now
		}
		h.mu.Unlock()
		return nil
	})
	h.srv = &http.Server{
		// A refusal is counted once answered: counting requests as they
		// arrive would take those still being verified for refused.
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
			verify.ServeHTTP(sw, r)
			if sw.status >= 300 {
				h.refused.Add(1)
			}
		}),
		ReadHeaderTimeout: 10 * time.Second,
	}
	go func() { _ = h.srv.Serve(ln) }()
	return h, nil
}

// statusWriter remembers the status of the answer it carries.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

// counts returns the receiver's tallies now.
func (h *hookReceiver) counts() hookCounts {
	if h == nil {
		return hookCounts{}
	}
	c := hookCounts{refused: h.refused.Load(), verified: h.verified.Load(), byType: map[events.Type]int64{}}
	h.mu.Lock()
	for t, n := range h.byType {
		c.byType[t] = n
	}
	h.mu.Unlock()
	return c
}

// maxPendingListed is the most deliveries the deliveries list returns,
// so the most pending ones pending can count from it.
const maxPendingListed = 1000

// pending returns how many of the webhook's deliveries are pending, and
// whether that is all of them: counted in the server's database when
// loadgen was given it (-server-db), else listed (at most
// maxPendingListed, and then perhaps more).
func (h *hookReceiver) pending(ctx context.Context) (n int, exact bool, err error) {
	if h.db != nil {
		ids, err := pendingEvents(ctx, h.db, h.webhookID)
		return len(ids), true, err
	}
	ds, err := h.svc.ListDeliveries(ctx, h.webhookID, events.DeliveryQuery{Status: events.DeliveryPending, Limit: maxPendingListed})
	return len(ds), len(ds) < maxPendingListed, err
}

// countPending counts the webhook's pending deliveries in the server's
// database (-server-db), for the sampler.
func (h *hookReceiver) countPending(ctx context.Context) (int, error) {
	ids, err := pendingEvents(ctx, h.db, h.webhookID)
	return len(ids), err
}

// openServerDB opens the server's database file read-only, to count the
// webhook's pending deliveries there: the deliveries list shows at most
// maxPendingListed, and under load the backlog is longer. Reading it
// beside the server is safe (SQLite's WAL lets a reader in at any time)
// and costs the server nothing but a lock on the WAL while it reads.
func openServerDB(path string) (*sql.DB, error) {
	db, err := sql.Open("sqlite3", "file:"+path+"?mode=ro&_busy_timeout=5000")
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	return db, nil
}

// pendingEvents returns the event ids of the pending deliveries of
// webhook webhookID, those under way included, in the server's database
// db.
func pendingEvents(ctx context.Context, db *sql.DB, webhookID string) ([]string, error) {
	rows, err := db.QueryContext(ctx, `SELECT e.event_id FROM webhook_deliveries d JOIN events e ON e.seq = d.event_seq
		WHERE d.webhook_id = ? AND d.status = 'pending'`, webhookID)
	if err != nil {
		return nil, fmt.Errorf("reading pending deliveries in the server's database: %w", err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("reading pending deliveries in the server's database: %w", err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reading pending deliveries in the server's database: %w", err)
	}
	return ids, nil
}

// unreceived counts the events of ids the receiver had not received by
// at: a delivery still pending in the server's database may have reached
// the receiver already (its outcome waits for the server's writer).
func (h *hookReceiver) unreceived(ids []string, at time.Time) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, id := range ids {
		if t, ok := h.received[id]; !ok || t.After(at) {
			n++
		}
	}
	return n
}

// backlog is how far the deliveries were behind at the end of the window.
type backlog struct {
	// pending were the deliveries pending then, all of them when exact,
	// and drained how long after the load stopped the last of them went.
	pending int
	exact   bool
	counted bool // in the server's database
	// unreceived were those of them the receiver had not had (counted
	// only with the database).
	unreceived int
	drained    time.Duration
	err        error
	// sampled are the pending deliveries counted through the window
	// (sampler), every interval.
	sampled  []int
	interval time.Duration
}

// measureBacklog counts the pending deliveries now; measureDrain, called
// once the load has stopped, waits (up to a minute) until none is pending.
func (h *hookReceiver) measureBacklog(ctx context.Context) backlog {
	if h.db != nil {
		at := time.Now()
		ids, err := pendingEvents(ctx, h.db, h.webhookID)
		return backlog{pending: len(ids), exact: true, counted: true, unreceived: h.unreceived(ids, at), err: err}
	}
	n, exact, err := h.pending(ctx)
	return backlog{pending: n, exact: exact, err: err}
}

func (h *hookReceiver) measureDrain(ctx context.Context, b *backlog) {
	if b.err != nil {
		return
	}
	start := time.Now()
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	for {
		n, _, err := h.pending(ctx)
		if err != nil {
			b.err = err
			return
		}
		if n == 0 {
			b.drained = time.Since(start)
			return
		}
		select {
		case <-ctx.Done():
			b.err = fmt.Errorf("%d deliveries still pending a minute after the load stopped", n)
			return
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// stop deletes the webhook, so that the server stops delivering to a
// receiver that is gone, and closes the receiver.
func (h *hookReceiver) stop(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	err := h.svc.DeleteWebhook(ctx, h.webhookID)
	_ = h.srv.Close()
	if h.db != nil {
		_ = h.db.Close()
	}
	return err
}

// reportWebhook prints what the receiver got during the window.
// closed is how many checks the tills closed in the window: each push of
// one makes a bill.closed event.
func reportWebhook(w io.Writer, before, after hookCounts, closed int64, secs float64) {
	n := after.verified - before.verified
	fmt.Fprintf(w, "webhook: %d deliveries verified (%.0f/s), %d refused, over the window; by type:",
		n, float64(n)/secs, after.refused-before.refused)
	types := make([]string, 0, len(after.byType))
	for t := range after.byType {
		types = append(types, string(t))
	}
	slices.Sort(types)
	for _, t := range types {
		fmt.Fprintf(w, " %s %d", t, after.byType[events.Type(t)]-before.byType[events.Type(t)])
	}
	fmt.Fprintf(w, "\nwebhook: the tills closed %d checks in the window (each makes a bill.closed event once its push is sent)\n", closed)
}

// reportBacklog prints how far the deliveries were behind the events at
// the end of the window: the deliveries pending then, as seconds of the
// window's delivery rate, and how long they took to drain once the load
// stopped.
func reportBacklog(w io.Writer, b backlog, before, after hookCounts, secs float64) {
	if b.err != nil {
		fmt.Fprintln(w, "webhook: backlog:", b.err)
		return
	}
	more, source := "", ""
	if !b.exact {
		more = " or more"
	}
	if b.counted {
		source = " (counted in the server's database)"
	}
	rate := float64(after.verified-before.verified) / secs
	lagOf := func(n int) string {
		if rate <= 0 {
			return "n/a"
		}
		return fmt.Sprintf("%.2f s%s", float64(n)/rate, more)
	}
	fmt.Fprintf(w, "webhook: at the end of the window %d%s deliveries were pending%s: a lag of %s at the window's delivery rate; drained %s after the load stopped\n",
		b.pending, more, source, lagOf(b.pending), b.drained.Round(time.Millisecond))
	if b.counted {
		fmt.Fprintf(w, "webhook: of those, %d had not reached the receiver (the others waited for their outcome to be written): a lag of %s\n",
			b.unreceived, lagOf(b.unreceived))
	}
	if len(b.sampled) > 0 {
		sorted := slices.Sorted(slices.Values(b.sampled))
		median, most := sorted[len(sorted)/2], sorted[len(sorted)-1]
		fmt.Fprintf(w, "webhook: pending, counted every %s through the window and at its end (%d counts): median %d, most %d: a lag of %s and %s\n",
			b.interval, len(sorted), median, most, lagOf(median), lagOf(most))
	}
}

// reportDrained prints what the receiver got from the webhook's start to
// the end of the drain, beside the payments the customers made in all:
// each payment makes one payment.created event, so once nothing is
// pending every payment has been delivered at least once.
func reportDrained(w io.Writer, c hookCounts, paymentsMade int64) {
	fmt.Fprintf(w, "webhook: after the drain, %d deliveries verified in all, %d refused; payment.created %d for %d payments made in all\n",
		c.verified, c.refused, c.byType[events.TypePaymentCreated], paymentsMade)
}
