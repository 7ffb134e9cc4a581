package events

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"
)

// The headers of a webhook delivery.
const (
	// HeaderSignature carries "t=<unix seconds>,v1=<hex HMAC-SHA256>"; see
	// Sign and Verifier.
	HeaderSignature = "Hospo-Signature"
	// HeaderEventID repeats the event's id.
	HeaderEventID = "Hospo-Event-Id"
	// HeaderWebhookID names the webhook the delivery is for.
	HeaderWebhookID = "Hospo-Webhook-Id"
)

// DefaultTolerance is how far a signature's timestamp may be from the
// receiver's clock, in either direction, unless WithTolerance says
// otherwise: 5 minutes, as the service recommends.
const DefaultTolerance = 5 * time.Minute

// maxHeaderLen bounds the signature header Verify parses: room for dozens
// of signatures, far more than a rotation needs.
const maxHeaderLen = 4096

// The reasons Verify refuses a delivery. Each error Verify returns wraps
// one of them (errors.Is), with a detail that never contains a secret or
// the header's values.
var (
	// ErrNoSignature: the request has no Hospo-Signature header.
	ErrNoSignature = errors.New("events: no " + HeaderSignature + " header")
	// ErrMalformedSignature: the header is not "t=<unix seconds>,v1=<hex>,...".
	ErrMalformedSignature = errors.New("events: malformed " + HeaderSignature + " header")
	// ErrNoMatchingSignature: no v1 signature of the header matches the
	// body under any of the secrets: the body was altered, the secret is
	// wrong, or the request was not sent by the service.
	ErrNoMatchingSignature = errors.New("events: no signature matches the body")
	// ErrTimestampOutOfTolerance: the signature is genuine but its
	// timestamp is further from the receiver's clock than the tolerance
	// (a replayed delivery, or a clock far off).
	ErrTimestampOutOfTolerance = errors.New("events: signature timestamp outside the tolerance")
	// ErrNoSecret: the Verifier has no (non-empty) secret to check with, a
	// configuration mistake.
	ErrNoSecret = errors.New("events: no webhook secret configured")
)

// Sign returns the Hospo-Signature header value for payload sent at t:
// "t=<unix seconds>,v1=<hex>", with one v1 per secret, each the hex
// HMAC-SHA256 keyed with the secret string as it is ("whsec_" included) of
// "<unix seconds>.<payload>". It is what the service sends; use it to test
// a receiver, or to sign with an old and a new secret during a rotation.
func Sign(payload []byte, t time.Time, secrets ...string) string {
	ts := strconv.FormatInt(t.Unix(), 10)
	var b strings.Builder
	b.WriteString("t=")
	b.WriteString(ts)
	for _, s := range secrets {
		b.WriteString(",v1=")
		b.WriteString(hex.EncodeToString(mac([]byte(s), ts, payload)))
	}
	return b.String()
}

// mac is the HMAC-SHA256 of "<ts>.<payload>" under key.
func mac(key []byte, ts string, payload []byte) []byte {
	h := hmac.New(sha256.New, key)
	h.Write([]byte(ts))
	h.Write([]byte{'.'})
	h.Write(payload)
	return h.Sum(nil)
}

// Option configures a Verifier (NewVerifier, Verify) or a Handler
// (NewHandler).
type Option func(*config)

type config struct {
	tolerance time.Duration
	now       func() time.Time
	maxBody   int64
	logger    *slog.Logger
}

func newConfig(opts []Option) config {
	c := config{tolerance: DefaultTolerance, now: time.Now, maxBody: DefaultMaxBodyBytes, logger: slog.New(slog.DiscardHandler)}
	for _, o := range opts {
		o(&c)
	}
	return c
}

// WithTolerance sets how far a signature's timestamp may be from the
// clock, in either direction. d of zero or less means DefaultTolerance:
// the check cannot be turned off, since it is what stops a captured
// delivery from being replayed later.
func WithTolerance(d time.Duration) Option {
	return func(c *config) {
		if d <= 0 {
			d = DefaultTolerance
		}
		c.tolerance = d
	}
}

// WithClock sets the clock the timestamp is checked against (time.Now by
// default), for tests and for checking a recorded delivery at the time it
// was made. nil means time.Now.
func WithClock(now func() time.Time) Option {
	return func(c *config) {
		if now == nil {
			now = time.Now
		}
		c.now = now
	}
}

// Verifier checks the signature of webhook deliveries against one or more
// secrets: several, so that a receiver accepts both the old and the new
// secret while a webhook's secret is being replaced. It is safe for
// concurrent use.
type Verifier struct {
	secrets   [][]byte
	tolerance time.Duration
	now       func() time.Time
}

// NewVerifier returns a Verifier that accepts a signature made with any of
// the secrets ("whsec_..." strings, as CreateWebhook returned them). Empty
// strings are ignored; with no secret left, every Verify fails with
// ErrNoSecret. Options other than WithTolerance and WithClock have no
// effect here.
func NewVerifier(secrets []string, opts ...Option) *Verifier {
	c := newConfig(opts)
	v := &Verifier{tolerance: c.tolerance, now: c.now}
	for _, s := range secrets {
		if s != "" {
			v.secrets = append(v.secrets, []byte(s))
		}
	}
	return v
}

// Verify checks a delivery: header is its Hospo-Signature header and
// payload its body, byte for byte as received. It returns nil when one of
// the header's v1 signatures is the HMAC of the payload under one of the
// secrets and the header's timestamp is within the tolerance of the clock.
// Otherwise the error wraps ErrNoSignature, ErrMalformedSignature,
// ErrNoMatchingSignature, ErrTimestampOutOfTolerance or ErrNoSecret.
//
// Signatures are compared in constant time. Unknown schemes in the header
// (anything but t and v1) are ignored, so a later signature scheme can be
// sent beside v1.
func (v *Verifier) Verify(payload []byte, header string) error {
	if len(v.secrets) == 0 {
		return ErrNoSecret
	}
	if header == "" {
		return ErrNoSignature
	}
	sig, err := parseSignature(header)
	if err != nil {
		return err
	}
	if !v.matches(sig, payload) {
		return ErrNoMatchingSignature
	}
	// Checked after the signature, so that this error says the delivery is
	// genuine and only late (or the clocks disagree).
	now := v.now()
	signed := time.Unix(sig.unix, 0)
	switch {
	case now.Sub(signed) > v.tolerance:
		return fmt.Errorf("%w: signed %s ago, tolerance %s", ErrTimestampOutOfTolerance, now.Sub(signed).Truncate(time.Second), v.tolerance)
	case signed.Sub(now) > v.tolerance:
		return fmt.Errorf("%w: signed %s in the future, tolerance %s", ErrTimestampOutOfTolerance, signed.Sub(now).Truncate(time.Second), v.tolerance)
	}
	return nil
}

// matches reports whether one of sig's v1 values is the payload's HMAC
// under one of the secrets. Every pair is compared, without stopping at the
// first match, so the time taken does not depend on which one matched.
func (v *Verifier) matches(sig signature, payload []byte) bool {
	ok := false
	for _, secret := range v.secrets {
		want := mac(secret, sig.ts, payload)
		for _, got := range sig.v1 {
			if hmac.Equal(want, got) {
				ok = true
			}
		}
	}
	return ok
}

// Verify checks a delivery against one secret; see Verifier.Verify.
func Verify(payload []byte, header, secret string, opts ...Option) error {
	return NewVerifier([]string{secret}, opts...).Verify(payload, header)
}

// signature is a parsed Hospo-Signature header.
type signature struct {
	ts   string // the timestamp as it was sent: it is part of the signed text
	unix int64
	v1   [][]byte
}

// parseSignature parses "t=<unix seconds>,v1=<hex>[,v1=<hex>...]". Items
// are separated by commas, with optional spaces around them; exactly one t
// (decimal digits) and at least one v1 (64 hex digits) are required, and
// items of other schemes are skipped. Errors wrap ErrMalformedSignature.
func parseSignature(header string) (signature, error) {
	var sig signature
	if len(header) > maxHeaderLen {
		return sig, fmt.Errorf("%w: longer than %d bytes", ErrMalformedSignature, maxHeaderLen)
	}
	seenT := false
	for item := range strings.SplitSeq(header, ",") {
		key, val, ok := strings.Cut(strings.TrimSpace(item), "=")
		if !ok || key == "" {
			return sig, fmt.Errorf("%w: want comma-separated key=value items", ErrMalformedSignature)
		}
		switch key {
		case "t":
			if seenT {
				return sig, fmt.Errorf("%w: more than one t", ErrMalformedSignature)
			}
			seenT = true
			n, err := parseUnix(val)
			if err != nil {
				return sig, err
			}
			sig.ts, sig.unix = val, n
		case "v1":
			if len(val) != 2*sha256.Size {
				return sig, fmt.Errorf("%w: a v1 signature is not %d hex digits", ErrMalformedSignature, 2*sha256.Size)
			}
			b, err := hex.DecodeString(val)
			if err != nil {
				return sig, fmt.Errorf("%w: a v1 signature is not hex", ErrMalformedSignature)
			}
			sig.v1 = append(sig.v1, b)
		}
	}
	if !seenT {
		return sig, fmt.Errorf("%w: no timestamp t", ErrMalformedSignature)
	}
	if len(sig.v1) == 0 {
		return sig, fmt.Errorf("%w: no v1 signature", ErrMalformedSignature)
	}
	return sig, nil
}

// parseUnix parses t's value: decimal digits only (no sign), Unix seconds.
func parseUnix(s string) (int64, error) {
	if s == "" || len(s) > 18 {
		return 0, fmt.Errorf("%w: t is not Unix seconds", ErrMalformedSignature)
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, fmt.Errorf("%w: t is not Unix seconds", ErrMalformedSignature)
		}
	}
	n, err := strconv.ParseInt(s, 10, 64) // at most 18 digits: never overflows
	if err != nil {
		return 0, fmt.Errorf("%w: t is not Unix seconds", ErrMalformedSignature)
	}
	return n, nil
}
