package sim

import (
	"context"
	"crypto/rsa"
	"errors"

	"github.com/hospo-dev/hospo-go/refserver/store"
)

// ProviderBKey is providerB's key pair: clients encrypt card data to its
// public half for providerBCse.
type ProviderBKey struct {
	Private *rsa.PrivateKey
	KeyID   string
}

// LoadProviderBKey reads providerB's key; store.ErrNotFound before
// EnsureProviderBKey first made it.
func LoadProviderBKey(tx *store.Tx) (*ProviderBKey, error) {
	jwk, err := tx.State(ProviderBKeyState)
	if err != nil {
		return nil, err
	}
	priv, kid, err := ParsePrivateJWK(jwk)
	if err != nil {
		return nil, err
	}
	return &ProviderBKey{Private: priv, KeyID: kid}, nil
}

// EnsureProviderBKey returns providerB's key, making it on first use. The
// key is persistent: it stays across restarts and sandbox resets.
func EnsureProviderBKey(ctx context.Context, db *store.DB) (*ProviderBKey, error) {
	k, err := readProviderBKey(ctx, db)
	if !errors.Is(err, store.ErrNotFound) {
		return k, err
	}
	// Generate outside the write transaction (it takes a while), then
	// store it unless a concurrent request stored one first.
	priv, err := NewRSAKey()
	if err != nil {
		return nil, err
	}
	jwk, err := MarshalPrivateJWK(priv, NewProviderBKeyID())
	if err != nil {
		return nil, err
	}
	err = db.Write(ctx, func(tx *store.Tx) error {
		if _, err := tx.State(ProviderBKeyState); !errors.Is(err, store.ErrNotFound) {
			return err // nil: someone else's key won
		}
		return tx.SetState(ProviderBKeyState, jwk)
	})
	if err != nil {
		return nil, err
	}
	return readProviderBKey(ctx, db)
}

func readProviderBKey(ctx context.Context, db *store.DB) (*ProviderBKey, error) {
	var k *ProviderBKey
	err := db.Read(ctx, func(tx *store.Tx) error {
		var err error
		k, err = LoadProviderBKey(tx)
		return err
	})
	return k, err
}
