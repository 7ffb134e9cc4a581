package events

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
)

// DefaultMaxBodyBytes is the largest delivery body NewHandler reads unless
// WithMaxBodyBytes says otherwise: 1 MiB, the service's own limit.
const DefaultMaxBodyBytes = 1 << 20

// WithMaxBodyBytes bounds the body a Handler reads; a larger one is
// answered 413 without being verified. n of zero or less means
// DefaultMaxBodyBytes. Handler only.
func WithMaxBodyBytes(n int64) Option {
	return func(c *config) {
		if n <= 0 {
			n = DefaultMaxBodyBytes
		}
		c.maxBody = n
	}
}

// WithLogger makes a Handler log refused deliveries (at warning level) and
// the errors of its function (at error level), with the event's id and
// type. Secrets and signatures are never logged. A Handler is silent
// without it. Handler only.
func WithLogger(l *slog.Logger) Option {
	return func(c *config) {
		if l == nil {
			l = slog.New(slog.DiscardHandler)
		}
		c.logger = l
	}
}

// NewHandler returns the receiving end of a webhook: an http.Handler that
// takes the service's POST deliveries, checks their signature against the
// secrets (see Verifier; several while a secret is being replaced), decodes
// the event and calls fn with the request's context.
//
// Its answers tell the service what to do next:
//
//   - 204 when fn returned nil: the delivery is done.
//   - 500 when fn returned an error (or the handler has no secret): the
//     service tries again later, with backoff, so fn must be safe to call
//     again for the same event (deduplicate by Event.ID).
//   - 400 when the signature is missing, malformed, wrong or out of
//     tolerance, or the body is not an event; fn is not called.
//   - 413 over the body limit (WithMaxBodyBytes), 405 for a method other
//     than POST; fn is not called.
//
// The service counts an answer after 10 seconds as failed: keep fn short,
// or hand the event to a queue and return. Error bodies are short fixed
// texts; fn's error is never sent back (it may go to WithLogger's logger).
//
//	http.Handle("POST /hooks/hospo", events.NewHandler([]string{secret},
//		func(ctx context.Context, ev events.Event) error {
//			return process(ctx, ev)
//		}))
func NewHandler(secrets []string, fn func(context.Context, Event) error, opts ...Option) http.Handler {
	c := newConfig(opts)
	return &handler{
		v:       NewVerifier(secrets, opts...),
		fn:      fn,
		maxBody: c.maxBody,
		log:     c.logger,
	}
}

type handler struct {
	v       *Verifier
	fn      func(context.Context, Event) error
	maxBody int64
	log     *slog.Logger
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "webhook deliveries are POST requests", http.StatusMethodNotAllowed)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, h.maxBody))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			h.refuse(r, w, http.StatusRequestEntityTooLarge, "body too large", err)
			return
		}
		h.refuse(r, w, http.StatusBadRequest, "could not read the body", err)
		return
	}
	if err := h.v.Verify(body, r.Header.Get(HeaderSignature)); err != nil {
		if errors.Is(err, ErrNoSecret) {
			// Not the sender's fault: a 500 makes the service try again
			// once the receiver is configured.
			h.log.ErrorContext(r.Context(), "events: webhook handler has no secret; delivery refused")
			http.Error(w, "receiver not configured", http.StatusInternalServerError)
			return
		}
		h.refuse(r, w, http.StatusBadRequest, "invalid signature", err)
		return
	}
	ev, err := decodeEvent(body)
	if err != nil {
		h.refuse(r, w, http.StatusBadRequest, "body is not an event", err)
		return
	}
	if err := h.fn(r.Context(), ev); err != nil {
		h.log.ErrorContext(r.Context(), "events: webhook function failed; the service will redeliver",
			slog.String("eventId", ev.ID), slog.String("type", string(ev.Type)), slog.Any("error", err))
		http.Error(w, "event not processed", http.StatusInternalServerError)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// refuse answers a delivery that fn never sees, with a fixed text.
func (h *handler) refuse(r *http.Request, w http.ResponseWriter, status int, text string, err error) {
	h.log.WarnContext(r.Context(), "events: webhook delivery refused",
		slog.Int("status", status), slog.String("eventId", r.Header.Get(HeaderEventID)), slog.Any("error", err))
	http.Error(w, text, status)
}

// ErrNotAnEvent is returned (wrapped) by VerifyEvent for a body that is not
// an event envelope with an id and a type.
var ErrNotAnEvent = errors.New("events: body is not an event")

// decodeEvent decodes a delivery body into an Event.
func decodeEvent(body []byte) (Event, error) {
	var ev Event
	if err := json.Unmarshal(body, &ev); err != nil {
		return Event{}, fmt.Errorf("%w: %w", ErrNotAnEvent, err)
	}
	if ev.ID == "" || ev.Type == "" {
		return Event{}, fmt.Errorf("%w: no id or type", ErrNotAnEvent)
	}
	return ev, nil
}

// VerifyEvent checks a delivery as Verify does and decodes its body into an
// Event, for receivers that do not use NewHandler (another router, a
// queue consumer that received the raw request). Errors wrap those of
// Verify, or ErrNotAnEvent.
func (v *Verifier) VerifyEvent(payload []byte, header string) (Event, error) {
	if err := v.Verify(payload, header); err != nil {
		return Event{}, err
	}
	return decodeEvent(payload)
}
