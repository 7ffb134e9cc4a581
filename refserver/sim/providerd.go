package sim

import (
	"errors"
	"time"

	"github.com/hospo-dev/hospo-go/refserver/store"
)

// MaxOpenProviderDKeys is how many providerD keys a user may hold that are
// neither used nor expired. A card form needs one at a time; a client that
// asks for keys and never uses them is stopped here instead of having the
// server make keys for it without end.
const MaxOpenProviderDKeys = 10

// ProviderDKeyWait returns 0 when userID may be handed another providerD
// key, or else how long until the first of its open keys expires (at least
// a second), for the 429001's Retry-After.
func ProviderDKeyWait(tx *store.Tx, userID int64) (time.Duration, error) {
	n, first, err := tx.OpenProviderDKeys(userID)
	if err != nil || n < MaxOpenProviderDKeys {
		return 0, err
	}
	return max(time.Second, time.Duration(first-tx.Unix())*time.Second), nil
}

// StoreProviderDKey keeps the private half of a providerD key handed to a
// user, valid for one token and ProviderDKeyLifetime on the virtual clock.
// Expired keys go with the retention sweep (store.Retentions).
func StoreProviderDKey(tx *store.Tx, userID int64, keyID, privateJWK string) error {
	return tx.InsertProviderDKey(store.ProviderDKey{
		KeyID:      keyID,
		UserID:     userID,
		PrivateJWK: privateJWK,
		ExpiresAt:  tx.Now().Add(ProviderDKeyLifetime).Unix(),
	})
}

// TokeniseProviderD plays providerD at its tokenisation endpoint: it
// checks the key (known, unused, not expired), issues a token for card and
// returns it encrypted to the key's public half, so that only the service,
// holding the private half, can read it.
//
// bad holds the problems already found in the request (missing fields, the
// card's own); the key's problem is added to it unless keyId is already
// named. When the returned problems are not empty the token must not be
// kept: the caller rolls tx back.
func TokeniseProviderD(tx *store.Tx, keyID string, card Card, bad map[string]string) (jwe string, problems map[string]string, err error) {
	var key store.ProviderDKey
	if _, named := bad["keyId"]; !named {
		key, err = tx.GetProviderDKey(keyID)
		switch {
		case errors.Is(err, store.ErrNotFound):
			bad["keyId"] = "unknown key"
		case err != nil:
			return "", nil, err
		case key.UsedAt != nil:
			bad["keyId"] = "key already used"
		case tx.Unix() >= key.ExpiresAt:
			bad["keyId"] = "key expired"
		}
	}
	if len(bad) > 0 {
		return "", bad, nil
	}
	priv, _, err := ParsePrivateJWK(key.PrivateJWK)
	if err != nil {
		return "", nil, err
	}
	token := NewProviderToken(ProviderD)
	if err := tx.InsertProviderToken(card.providerToken(ProviderD, token)); err != nil {
		return "", nil, err
	}
	if err := tx.MarkProviderDKeyUsed(key.KeyID); errors.Is(err, store.ErrNotFound) {
		return "", map[string]string{"keyId": "key already used"}, nil
	} else if err != nil {
		return "", nil, err
	}
	jwe, err = EncryptJWE(&priv.PublicKey, key.KeyID, []byte(token))
	return jwe, nil, err
}
