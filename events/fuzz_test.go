package events

import (
	"encoding/hex"
	"strings"
	"testing"
	"time"
)

// FuzzParseSignature checks the header parser on any input: it never
// panics, what it accepts has a timestamp of digits and 32-byte v1
// signatures, and Verify accepts a header only when it carries the body's
// true signature.
func FuzzParseSignature(f *testing.F) {
	const secret = "whsec_fuzz"
	body := []byte(`{"id":"evt_1","type":"ping","createdAt":1700000000,"locationId":null,"data":{"webhookId":"wh_1"}}`)
	for _, seed := range []string{
		Sign(body, time.Unix(1700000000, 0), secret),
		Sign(body, time.Unix(1700000000, 0), "whsec_old", secret),
		"t=1700000000,v1=" + strings.Repeat("0", 64),
		"t=1700000000, v1=" + strings.Repeat("a", 64) + ", v0=x",
		"t=-1,v1=",
		"t=1,t=2",
		"v1=abc",
		",,,",
		"=",
		"t=00000000000000000001700000000,v1=" + strings.Repeat("f", 64),
		"",
	} {
		f.Add(seed, body)
	}
	f.Fuzz(func(t *testing.T, header string, payload []byte) {
		sig, err := parseSignature(header)
		if err == nil {
			if sig.ts == "" || strings.Trim(sig.ts, "0123456789") != "" || sig.unix < 0 {
				t.Fatalf("accepted timestamp %q (%d)", sig.ts, sig.unix)
			}
			if len(sig.v1) == 0 {
				t.Fatal("accepted a header without v1")
			}
			for _, v := range sig.v1 {
				if len(v) != 32 {
					t.Fatalf("accepted a v1 of %d bytes", len(v))
				}
			}
		}
		v := NewVerifier([]string{secret}, WithClock(func() time.Time { return time.Unix(sig.unix, 0) }))
		if v.Verify(payload, header) == nil {
			want := hex.EncodeToString(mac([]byte(secret), sig.ts, payload))
			if !strings.Contains(strings.ToLower(header), want) {
				t.Fatalf("accepted header %q without the body's signature %s", header, want)
			}
		}
		// A header Sign made always verifies, whatever the payload.
		signed := Sign(payload, time.Unix(1700000000, 0), secret)
		v = NewVerifier([]string{secret}, WithClock(func() time.Time { return time.Unix(1700000000, 0) }))
		if err := v.Verify(payload, signed); err != nil {
			t.Fatalf("Verify of Sign's header: %v", err)
		}
	})
}
