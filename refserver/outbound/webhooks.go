package outbound

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"syscall"
	"time"

	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/hospo-dev/hospo-go/events"
	"github.com/hospo-dev/hospo-go/refserver/internal/seal"
	"github.com/hospo-dev/hospo-go/refserver/rules"
	"github.com/hospo-dev/hospo-go/refserver/store"
)

// Delivery of events to webhooks (contract.md section 8). A delivery
// waits in webhook_deliveries, status pending, with next_attempt_at, the
// Unix second its next attempt is due on the virtual clock. An attempt
// POSTs the event's envelope to the webhook's URL, signed with the
// webhook's secret; a 2xx answer within WebhookConfig.Timeout delivers it.
// Anything else is retried after 1 s, 2 s, 4 s ... at most an hour apart,
// webhookMaxTries attempts in all, and then the delivery has failed.
// While an attempt is under way its delivery has no next_attempt_at, so
// that a look at the queue reads past none of those in flight. Delivery is
// at least once: an attempt cut short by a shutdown is made again after
// the restart (the store makes such deliveries due when it opens the
// database), and receivers de-duplicate by event id.
const (
	webhookMaxTries  = 15
	webhookRetryBase = time.Second
	webhookRetryMax  = time.Hour
	// webhookConcurrency bounds the attempts in flight, webhookPerKey
	// those of one API key's webhooks: a vendor whose receivers are slow
	// holds at most a quarter of the places, and the due deliveries are
	// listed with every key taking turns (store.DueDeliveries), so other
	// vendors' deliveries go out meanwhile. A key's pace is at most its
	// places per call latency: at saturation on two cores a receiver's
	// answer takes 40-70 ms, so 16 places kept one key to about 300
	// deliveries a second while its events came at 400 and more, and the
	// claimed tries waited for a place for up to 1.7 s.
	webhookConcurrency = 256
	webhookPerKey      = 64
	webhookDueBatch    = 1024
	// webhookClaimAhead is how many times its places the webhook dispatcher
	// (and a key) claims ahead of its calls (DispatcherConfig.ClaimAhead):
	// 1,024 tries per key. A run claims when half of that is free, and the
	// claim waits for the writer, so a key's pace is at most 512 per write
	// latency: at saturation that latency is up to a few hundred
	// milliseconds, and the events come at over a thousand a second.
	webhookClaimAhead = 16
	// maxWebhookErrorDetail bounds the failure text kept per delivery.
	maxWebhookErrorDetail = 300
	// maxWebhookAnswer is how much of a receiver's answer is read (and
	// thrown away), so that the connection can be reused.
	maxWebhookAnswer = 64 << 10
	// maxWebhookAnswerHeaders bounds the headers of a receiver's answer:
	// past it the attempt has failed, whatever the status.
	maxWebhookAnswerHeaders = 64 << 10
)

// WebhookConfig is what the webhook dispatcher needs.
type WebhookConfig struct {
	DB *store.DB
	// Now is the virtual clock, which paces the retries; Real is the real
	// time, which the signatures carry.
	Now, Real func() time.Time
	// HTTPClient's transport carries the deliveries; redirects are not
	// followed (a 3xx is a failed attempt).
	HTTPClient *http.Client
	Logger     *slog.Logger
	// Secrets opens the webhooks' sealed secrets.
	Secrets *seal.Box
	// Timeout bounds one attempt.
	Timeout time.Duration
	// AllowLinkLocal lets deliveries reach link-local and cloud metadata
	// addresses (rules.ForbiddenTargetAddr), which are refused otherwise
	// whatever name the webhook's URL gives.
	AllowLinkLocal bool
	// Meter, when set, counts the attempts by outcome (MetricDeliveries).
	Meter metric.Meter
	// Tracer, when set, traces each try (DispatcherConfig.Tracer).
	Tracer trace.Tracer
	// Propagator, when set, puts the trace context of the try in each
	// delivery's headers (WithTraceContext).
	Propagator propagation.TextMapPropagator
}

// webhookPolicy is how deliveries are retried: every failure may pass.
func webhookPolicy() Policy {
	return Policy{
		MaxTries: webhookMaxTries,
		Base:     webhookRetryBase,
		Max:      webhookRetryMax,
		Temporary: func(err error) bool {
			return !errors.Is(err, errSecretUnavailable) && !errors.Is(err, errForbiddenTarget)
		},
		MaxDetail: maxWebhookErrorDetail,
	}
}

// NewWebhookDispatcher returns the dispatcher that delivers events to
// webhooks. Wake it when events were committed, a delivery was made due
// (a redelivery) or the virtual clock moved.
func NewWebhookDispatcher(cfg WebhookConfig) *Dispatcher {
	hc := &http.Client{
		Transport:     webhookTransport(cfg.HTTPClient.Transport, cfg.AllowLinkLocal),
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	if cfg.Propagator != nil {
		hc = WithTraceContext(hc, cfg.Propagator)
	}
	return NewDispatcher(DispatcherConfig{
		Name:        "webhook dispatcher",
		Queue:       &webhookQueue{cfg: cfg, http: hc},
		Policy:      webhookPolicy(),
		Now:         cfg.Now,
		Logger:      cfg.Logger,
		Concurrency: webhookConcurrency,
		PerGroup:    webhookPerKey,
		Batch:       webhookDueBatch,
		ClaimAhead:  webhookClaimAhead,
		Meter:       cfg.Meter,
		Tracer:      cfg.Tracer,
	})
}

// webhookTransport returns the transport of the deliveries: rt (an
// *http.Transport, or http.DefaultTransport when nil) with the answer's
// headers bounded, a connection kept per attempt in flight, and, unless
// allowLinkLocal, dialing that refuses forbidden addresses after the name
// is resolved. A transport of another kind (a test's) is used as it is.
func webhookTransport(rt http.RoundTripper, allowLinkLocal bool) http.RoundTripper {
	if rt == nil {
		rt = http.DefaultTransport
	}
	t, ok := rt.(*http.Transport)
	if !ok {
		return rt
	}
	t = t.Clone()
	t.MaxResponseHeaderBytes = maxWebhookAnswerHeaders
	t.MaxIdleConnsPerHost = webhookConcurrency
	if !allowLinkLocal {
		d := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second, Control: refuseForbiddenTarget}
		t.DialContext = d.DialContext
	}
	return t
}

// errForbiddenTarget fails an attempt whose address is one deliveries may
// not reach. Retrying cannot help.
var errForbiddenTarget = errors.New("the webhook's address is link-local or a cloud metadata address, which the server does not call (see -webhook-allow-link-local)")

// refuseForbiddenTarget is a net.Dialer's Control: it refuses to connect to
// a forbidden address, which it sees resolved.
func refuseForbiddenTarget(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil || rules.ForbiddenTargetAddr(ap.Addr()) {
		return errForbiddenTarget
	}
	return nil
}

// webhookQueue is the webhook_deliveries table seen as a Queue.
type webhookQueue struct {
	cfg  WebhookConfig
	http *http.Client
}

func (q *webhookQueue) Due(ctx context.Context, limit int, room func(string) int) ([]Due, time.Time, error) {
	var (
		due  []Due
		next time.Time
	)
	err := q.cfg.DB.Read(ctx, func(tx *store.Tx) error {
		list, at, ok, err := tx.DueDeliveries(limit, func(key int64) int { return room(strconv.FormatInt(key, 10)) })
		if err != nil {
			return err
		}
		for _, d := range list {
			due = append(due, Due{ID: d.DeliveryID, Group: strconv.FormatInt(d.KeyID, 10)})
		}
		if ok {
			next = time.Unix(at, 0)
		}
		return nil
	})
	return due, next, err
}

// Claim reads the deliveries and counts their attempts in the table
// before they are made (store.StartDeliveryAttempt), all in one write, so
// that the deliveries list is true while the calls are under way. The
// dispatcher runs one attempt per delivery at a time, so nothing else
// needs marking.
func (q *webhookQueue) Claim(ctx context.Context, ids []string) ([]Attempt, error) {
	out := make([]Attempt, len(ids))
	err := q.cfg.DB.Write(ctx, func(tx *store.Tx) error {
		for i, id := range ids {
			t, err := tx.GetDeliveryTarget(id)
			if errors.Is(err, store.ErrNotFound) {
				continue // the webhook was deleted, or a reset, since it was listed
			}
			if err != nil {
				return err
			}
			if t.Status != store.DeliveryPending || t.NextAttemptAt == nil || *t.NextAttemptAt > tx.Unix() {
				continue // settled or rescheduled since it was listed
			}
			if err := tx.StartDeliveryAttempt(id); err != nil {
				return err
			}
			t.Attempts++
			out[i] = &webhookAttempt{q: q, t: t}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// errSecretUnavailable fails a delivery whose webhook's secret cannot be
// opened: it was sealed under another admin key. Retrying cannot help.
var errSecretUnavailable = errors.New("the webhook's secret cannot be used (the server's admin key has changed); delete the webhook and create it again")

// webhookAttempt is one attempt at a delivery.
type webhookAttempt struct {
	q *webhookQueue
	t store.DeliveryTarget
	// status is the receiver's HTTP status, 0 when none came.
	status int
}

// Try is the attempt's number, counted when it was claimed.
func (a *webhookAttempt) Try() int { return a.t.Attempts }

// Call POSTs the envelope, signed, to the webhook's URL.
func (a *webhookAttempt) Call(ctx context.Context) error {
	secret, err := a.q.cfg.Secrets.Open(a.t.Webhook.SecretSealed, a.t.WebhookID)
	if err != nil {
		return errSecretUnavailable
	}
	body, err := json.Marshal(rules.EventEnvelope(a.t.Event))
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, a.q.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, a.t.Webhook.URL, bytes.NewReader(body))
	if err != nil {
		return errors.New("the webhook's URL cannot be requested")
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "hospo-refserver-webhooks")
	req.Header.Set(events.HeaderEventID, a.t.EventID)
	req.Header.Set(events.HeaderWebhookID, a.t.WebhookID)
	now := a.q.cfg.Real()
	req.Header.Set(events.HeaderSignature, events.Sign(body, now, string(secret)))
	// The same signature in Standard Webhooks' form, for its libraries.
	std, err := events.SignStandard(a.t.EventID, body, now, string(secret))
	if err != nil {
		return err
	}
	req.Header.Set(events.HeaderStandardID, a.t.EventID)
	req.Header.Set(events.HeaderStandardTimestamp, strconv.FormatInt(now.Unix(), 10))
	req.Header.Set(events.HeaderStandardSignature, std)
	resp, err := a.q.http.Do(req)
	if err != nil {
		if ctx.Err() != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return fmt.Errorf("no answer within %s", a.q.cfg.Timeout)
		}
		// The URL stays out of the record and the log: only what went wrong.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return err
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxWebhookAnswer))
	resp.Body.Close()
	a.status = resp.StatusCode
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("HTTP %d", resp.StatusCode)
	}
	return nil
}

func (a *webhookAttempt) Record(ctx context.Context, o Outcome) (time.Time, error) {
	rec := store.DeliveryAttempt{Attempts: o.Try, Status: store.DeliveryDelivered}
	if a.status != 0 {
		code := int64(a.status)
		rec.StatusCode = &code
	}
	var at time.Time
	err := a.q.cfg.DB.Write(ctx, func(tx *store.Tx) error {
		if o.Err != nil {
			rec.Status = store.DeliveryFailed
			rec.Error = &o.Detail
			if o.RetryIn > 0 {
				at = tx.Now().Add(o.RetryIn)
				next := at.Unix()
				rec.Status, rec.NextAttemptAt = store.DeliveryPending, &next
			}
		}
		return tx.RecordDeliveryAttempt(a.t.DeliveryID, rec)
	})
	if errors.Is(err, store.ErrDeliveryGone) {
		return time.Time{}, nil
	}
	if err != nil {
		return time.Time{}, err
	}
	if o.Err != nil {
		a.q.cfg.Logger.Warn("webhook dispatcher: delivery failed", "webhook_id", a.t.WebhookID,
			"delivery_id", a.t.DeliveryID, "event_id", a.t.EventID, "detail", o.Detail)
	}
	return at, nil
}
