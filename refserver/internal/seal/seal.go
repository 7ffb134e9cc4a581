// Package seal keeps a secret that the server must use again later (a
// webhook's signing secret, a universal POS's bearer token, a stored
// response that may show a credential) in the database in a form that is
// useless without the server's admin key: AES-256-GCM under a key derived
// from the admin key, bound to the row it belongs to.
package seal

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"errors"
)

// ErrOpen is returned by Open when the sealed bytes were not sealed by a
// Box with the same admin key and purpose for the same binding (the admin
// key changed, or the bytes were tampered with).
var ErrOpen = errors.New("seal: cannot open (sealed under another key)")

// A Box seals and opens secrets for one purpose. It is safe for concurrent
// use.
type Box struct {
	aead cipher.AEAD
}

// New returns the Box of purpose (a fixed string naming what is sealed,
// so that two purposes never share a key) under adminKey.
func New(adminKey, purpose string) *Box {
	return NewLabelled(adminKey, "hospo-refserver/seal/"+purpose)
}

// NewLabelled returns the Box whose key is derived from adminKey with
// label as it is (HMAC-SHA256). It is for what was sealed before this
// package named its keys: the idempotency records keep their label, so
// that the records stored under it still open. New code uses New.
func NewLabelled(adminKey, label string) *Box {
	m := hmac.New(sha256.New, []byte(adminKey))
	m.Write([]byte(label))
	block, err := aes.NewCipher(m.Sum(nil))
	if err != nil {
		panic(err) // a 32-byte key is always valid
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		panic(err)
	}
	return &Box{aead: aead}
}

// Seal returns secret sealed and bound to binding (the id of the row that
// keeps it), so that sealed bytes copied to another row do not open.
func (b *Box) Seal(secret []byte, binding string) []byte {
	nonce := make([]byte, b.aead.NonceSize())
	_, _ = rand.Read(nonce) // crypto/rand.Read never fails
	return b.aead.Seal(nonce, nonce, secret, []byte(binding))
}

// Open returns the secret that Seal sealed for binding, or ErrOpen.
func (b *Box) Open(sealed []byte, binding string) ([]byte, error) {
	n := b.aead.NonceSize()
	if len(sealed) < n {
		return nil, ErrOpen
	}
	plain, err := b.aead.Open(nil, sealed[:n], sealed[n:], []byte(binding))
	if err != nil {
		return nil, ErrOpen
	}
	return plain, nil
}
