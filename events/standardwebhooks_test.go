package events_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hospo-dev/hospo-go/events"
)

// One entry per secret, each "v1," and a base64 HMAC-SHA256 (44
// characters); the entries differ with the secret, the message id, the time
// and the body. A library of the specification verifies a real delivery in
// the genclient module's flow test.
func TestSignStandard(t *testing.T) {
	t.Parallel()
	at := time.Unix(1_700_000_000, 0)
	body := []byte(`{"id":"evt_1"}`)
	a := "whsec_" + strings.Repeat("ab", 32)
	b := "whsec_" + strings.Repeat("cd", 32)
	both, err := events.SignStandard("evt_1", body, at, a, b)
	if err != nil {
		t.Fatal(err)
	}
	parts := strings.Split(both, " ")
	if len(parts) != 2 || parts[0] == parts[1] {
		t.Fatalf("SignStandard with two secrets = %q", both)
	}
	for _, p := range parts {
		if !strings.HasPrefix(p, "v1,") || len(p) != len("v1,")+44 {
			t.Errorf("entry %q is not v1,<base64 of 32 bytes>", p)
		}
	}
	one, _ := events.SignStandard("evt_1", body, at, a)
	if one != parts[0] {
		t.Errorf("one secret = %q, want the first entry %q", one, parts[0])
	}
	for name, other := range map[string]func() (string, error){
		"id":   func() (string, error) { return events.SignStandard("evt_2", body, at, a) },
		"time": func() (string, error) { return events.SignStandard("evt_1", body, at.Add(time.Second), a) },
		"body": func() (string, error) { return events.SignStandard("evt_1", append(body, ' '), at, a) },
	} {
		if got, _ := other(); got == one {
			t.Errorf("another %s signs the same: %q", name, got)
		}
	}
	if _, err := events.SignStandard("evt_1", body, at, "whsec_not base64!"); !errors.Is(err, events.ErrSecretNotBase64) {
		t.Errorf("a secret that is not base64: %v, want ErrSecretNotBase64", err)
	}
}
