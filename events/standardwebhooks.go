package events

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"strconv"
	"strings"
	"time"
)

// The Standard Webhooks headers (standardwebhooks.com) that every delivery
// carries beside Hospo-Signature, so that a receiver can verify deliveries
// with that specification's libraries and the webhook's secret as it is.
const (
	// HeaderStandardID is the message id: the event's id, the same on every
	// attempt.
	HeaderStandardID = "webhook-id"
	// HeaderStandardTimestamp is the Unix seconds of the attempt, as in
	// Hospo-Signature's t.
	HeaderStandardTimestamp = "webhook-timestamp"
	// HeaderStandardSignature is "v1,<base64 HMAC-SHA256>"; see
	// SignStandard.
	HeaderStandardSignature = "webhook-signature"
)

// ErrSecretNotBase64 is SignStandard's answer for a secret whose part after
// "whsec_" is not base64, which Standard Webhooks keys are.
var ErrSecretNotBase64 = errors.New("events: webhook secret is not base64 after whsec_")

// SignStandard returns the webhook-signature header value for payload sent
// at t as message id: "v1,<base64 HMAC-SHA256 of "<id>.<unix seconds>.<payload>">",
// one space-separated entry per secret. The key is the secret without its
// "whsec_" prefix, base64-decoded, as Standard Webhooks defines it; the
// service's secrets ("whsec_" and 64 hex digits) decode as they are, so a
// receiver hands the same secret to a Standard Webhooks library as to
// Verifier. Hospo-Signature, by contrast, keys its HMAC with the whole
// secret string (see Sign).
func SignStandard(id string, payload []byte, t time.Time, secrets ...string) (string, error) {
	ts := strconv.FormatInt(t.Unix(), 10)
	var b strings.Builder
	for i, s := range secrets {
		key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(s, "whsec_"))
		if err != nil {
			return "", ErrSecretNotBase64
		}
		h := hmac.New(sha256.New, key)
		h.Write([]byte(id))
		h.Write([]byte{'.'})
		h.Write([]byte(ts))
		h.Write([]byte{'.'})
		h.Write(payload)
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString("v1,")
		b.WriteString(base64.StdEncoding.EncodeToString(h.Sum(nil)))
	}
	return b.String(), nil
}
