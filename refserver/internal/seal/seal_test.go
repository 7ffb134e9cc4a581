package seal

import (
	"bytes"
	"errors"
	"testing"
)

func TestSealOpen(t *testing.T) {
	b := New("admin-key", "webhook-secret")
	sealed := b.Seal([]byte("whsec_abc"), "wh_1")
	if bytes.Contains(sealed, []byte("whsec_abc")) {
		t.Fatal("sealed bytes hold the secret in the clear")
	}
	got, err := b.Open(sealed, "wh_1")
	if err != nil || string(got) != "whsec_abc" {
		t.Fatalf("Open = %q, %v", got, err)
	}
	for name, open := range map[string]func() ([]byte, error){
		"other binding":   func() ([]byte, error) { return b.Open(sealed, "wh_2") },
		"other admin key": func() ([]byte, error) { return New("other", "webhook-secret").Open(sealed, "wh_1") },
		"other purpose":   func() ([]byte, error) { return New("admin-key", "other").Open(sealed, "wh_1") },
		"truncated":       func() ([]byte, error) { return b.Open(sealed[:5], "wh_1") },
	} {
		if _, err := open(); !errors.Is(err, ErrOpen) {
			t.Errorf("%s: err = %v, want ErrOpen", name, err)
		}
	}
}
