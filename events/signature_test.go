package events_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hospo-dev/hospo-go/events"
)

const (
	testSecret = "whsec_test"
	oldSecret  = "whsec_old"
)

var (
	testBody = []byte(`{"id":"evt_1","type":"ping"}`)
	signedAt = time.Unix(1700000000, 0)
)

// clock returns a fixed clock at t.
func clock(t time.Time) events.Option { return events.WithClock(func() time.Time { return t }) }

// TestSignKnownVector pins the signed text and the key: an HMAC-SHA256
// computed outside Go, keyed with the whole secret ("whsec_" included),
// of "<t>.<body>".
func TestSignKnownVector(t *testing.T) {
	t.Parallel()
	want := "t=1700000000,v1=33ff6664879612e191c4e01184f3da32597a3c9b33ca2655fac317d01c5abc3f"
	if got := events.Sign(testBody, signedAt, testSecret); got != want {
		t.Errorf("Sign = %s\nwant %s", got, want)
	}
	if err := events.Verify(testBody, want, testSecret, clock(signedAt)); err != nil {
		t.Errorf("Verify of the known vector: %v", err)
	}
}

func TestVerify(t *testing.T) {
	t.Parallel()
	valid := events.Sign(testBody, signedAt, testSecret)
	otherSig := events.Sign(testBody, signedAt, "whsec_other")
	_, otherV1, _ := strings.Cut(otherSig, ",")
	_, validV1, _ := strings.Cut(valid, ",")
	for _, tc := range []struct {
		name    string
		body    []byte
		header  string
		secrets []string
		now     time.Time
		opts    []events.Option
		want    error // nil: accepted
	}{
		{name: "valid", header: valid},
		{name: "valid with spaces", header: strings.ReplaceAll(valid, ",", " , ")},
		{name: "tampered body", body: []byte(`{"id":"evt_1","type":"pinG"}`), header: valid, want: events.ErrNoMatchingSignature},
		{name: "body with a trailing newline", body: append(append([]byte{}, testBody...), '\n'), header: valid, want: events.ErrNoMatchingSignature},
		{name: "tampered timestamp", header: strings.Replace(valid, "t=1700000000", "t=1700000001", 1), now: signedAt.Add(time.Second), want: events.ErrNoMatchingSignature},
		{name: "wrong secret", header: valid, secrets: []string{"whsec_other"}, want: events.ErrNoMatchingSignature},
		{name: "secret without its prefix", header: valid, secrets: []string{"test"}, want: events.ErrNoMatchingSignature},
		{name: "at the tolerance", header: valid, now: signedAt.Add(events.DefaultTolerance)},
		{name: "too old", header: valid, now: signedAt.Add(events.DefaultTolerance + time.Second), want: events.ErrTimestampOutOfTolerance},
		{name: "in the future within tolerance", header: valid, now: signedAt.Add(-events.DefaultTolerance)},
		{name: "too far in the future", header: valid, now: signedAt.Add(-events.DefaultTolerance - time.Second), want: events.ErrTimestampOutOfTolerance},
		{name: "wider tolerance", header: valid, now: signedAt.Add(time.Hour), opts: []events.Option{events.WithTolerance(2 * time.Hour)}},
		{name: "narrower tolerance", header: valid, now: signedAt.Add(2 * time.Second), opts: []events.Option{events.WithTolerance(time.Second)}, want: events.ErrTimestampOutOfTolerance},
		{name: "zero tolerance means the default", header: valid, now: signedAt.Add(time.Hour), opts: []events.Option{events.WithTolerance(0)}, want: events.ErrTimestampOutOfTolerance},
		{name: "matching v1 second", header: "t=1700000000," + otherV1 + "," + validV1},
		{name: "matching v1 first", header: valid + "," + otherV1},
		{name: "unknown scheme ignored", header: valid + ",v0=abc,v2=zz"},
		{name: "rotation: old secret", header: events.Sign(testBody, signedAt, oldSecret), secrets: []string{testSecret, oldSecret}},
		{name: "rotation: new secret", header: valid, secrets: []string{oldSecret, testSecret}},
		{name: "rotation: signed with both", header: events.Sign(testBody, signedAt, oldSecret, testSecret), secrets: []string{testSecret}},
		{name: "empty secrets ignored", header: valid, secrets: []string{"", testSecret}},
		{name: "no secret", header: valid, secrets: []string{""}, want: events.ErrNoSecret},
		{name: "no header", header: "", want: events.ErrNoSignature},
		{name: "no v1", header: "t=1700000000", want: events.ErrMalformedSignature},
		{name: "only other schemes", header: "t=1700000000,v2=" + strings.Repeat("a", 64), want: events.ErrMalformedSignature},
		{name: "no t", header: validV1, want: events.ErrMalformedSignature},
		{name: "two t", header: "t=1700000000," + valid, want: events.ErrMalformedSignature},
		{name: "negative t", header: "t=-1," + validV1, want: events.ErrMalformedSignature},
		{name: "signed t", header: "t=+1700000000," + validV1, want: events.ErrMalformedSignature},
		{name: "t not a number", header: "t=now," + validV1, want: events.ErrMalformedSignature},
		{name: "t in milliseconds overflowing", header: "t=1700000000000000000000," + validV1, want: events.ErrMalformedSignature},
		{name: "empty t", header: "t=," + validV1, want: events.ErrMalformedSignature},
		{name: "short v1", header: valid[:len(valid)-2], want: events.ErrMalformedSignature},
		{name: "v1 not hex", header: valid[:len(valid)-1] + "g", want: events.ErrMalformedSignature},
		{name: "item without =", header: valid + ",v1", want: events.ErrMalformedSignature},
		{name: "empty item", header: valid + ",", want: events.ErrMalformedSignature},
		{name: "empty key", header: "=x," + valid, want: events.ErrMalformedSignature},
		{name: "semicolons", header: strings.ReplaceAll(valid, ",", ";"), want: events.ErrMalformedSignature},
		{name: "too long", header: valid + strings.Repeat(","+validV1, 100), want: events.ErrMalformedSignature},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			body, secrets, now := tc.body, tc.secrets, tc.now
			if body == nil {
				body = testBody
			}
			if secrets == nil {
				secrets = []string{testSecret}
			}
			if now.IsZero() {
				now = signedAt
			}
			v := events.NewVerifier(secrets, append([]events.Option{clock(now)}, tc.opts...)...)
			err := v.Verify(body, tc.header)
			if tc.want == nil {
				if err != nil {
					t.Fatalf("Verify = %v, want nil", err)
				}
				return
			}
			if !errors.Is(err, tc.want) {
				t.Fatalf("Verify = %v, want %v", err, tc.want)
			}
			for _, s := range secrets {
				if s != "" && strings.Contains(err.Error(), s) {
					t.Errorf("error %q reveals a secret", err)
				}
			}
		})
	}
}

// A too-old signature made with another secret is reported as not
// matching: only a genuine delivery is told that it is late.
func TestVerifySignatureBeforeTime(t *testing.T) {
	t.Parallel()
	h := events.Sign(testBody, signedAt, "whsec_other")
	err := events.Verify(testBody, h, testSecret, clock(signedAt.Add(time.Hour)))
	if !errors.Is(err, events.ErrNoMatchingSignature) {
		t.Errorf("Verify = %v, want ErrNoMatchingSignature", err)
	}
}

func TestVerifyEvent(t *testing.T) {
	t.Parallel()
	v := events.NewVerifier([]string{testSecret}, clock(signedAt))
	ev, err := v.VerifyEvent(testBody, events.Sign(testBody, signedAt, testSecret))
	if err != nil || ev.ID != "evt_1" || ev.Type != events.TypePing {
		t.Fatalf("VerifyEvent = %+v, %v", ev, err)
	}
	for _, body := range []string{`[]`, `{"id":"evt_1"}`, `{"type":"ping"}`, `not json`} {
		_, err := v.VerifyEvent([]byte(body), events.Sign([]byte(body), signedAt, testSecret))
		if !errors.Is(err, events.ErrNotAnEvent) {
			t.Errorf("VerifyEvent(%s) = %v, want ErrNotAnEvent", body, err)
		}
	}
	if _, err := v.VerifyEvent(testBody, ""); !errors.Is(err, events.ErrNoSignature) {
		t.Errorf("VerifyEvent without a signature = %v", err)
	}
}
