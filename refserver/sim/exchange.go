package sim

import (
	"errors"

	"github.com/hospo-dev/hospo-go/refserver/store"
)

// The service's side of the sandbox providers' tokens at a card insert
// (contract.md section 6). The card data a provider sees is held in memory
// for one request and never stored or logged: provider_tokens keeps only
// the first six and last four digits and the expiry. Problems come back as
// field -> reason, for one 400002 naming every failing field; the error is
// for failures of the store only.

// CardClaim is what a card insert says of the card a provider tokenised;
// an exchange checks it against the provider's record.
type CardClaim struct {
	First6      string
	Last4       string
	ExpiryMonth int
	ExpiryYear  int
}

// ExchangeProviderBCSE plays providerB at a card insert: it decrypts the
// CSE with key (nil when no key was ever handed out, so no CSE can be
// valid), checks the card and that it is the one claimed, and issues a
// token.
func ExchangeProviderBCSE(tx *store.Tx, key *ProviderBKey, cse string, claim CardClaim) (token string, bad map[string]string, err error) {
	if key == nil {
		return "", map[string]string{"providerBCse": "cannot be decrypted with providerB's key"}, nil
	}
	card, err := DecryptCard(key.Private, cse)
	if err != nil {
		return "", map[string]string{"providerBCse": "cannot be decrypted with providerB's key"}, nil
	}
	if p := card.Problems(tx.Now()); p != nil {
		bad := make(map[string]string, len(p))
		for k, v := range p {
			bad["providerBCse."+k] = v
		}
		return "", bad, nil
	}
	if bad := claim.mismatch(card.First6(), card.Last4(), card.ExpiryMonth, card.ExpiryYear); bad != nil {
		return "", bad, nil
	}
	token = NewProviderToken(ProviderB)
	return token, nil, tx.InsertProviderToken(card.providerToken(ProviderB, token))
}

// ExchangeProviderDToken is the service's side of a providerD token at a
// card insert: it finds the key named in the JWE header, checks it belongs
// to the user and is neither consumed nor expired, decrypts the token with
// the stored private key, checks the provider's record of it against the
// claim, and consumes the key.
func ExchangeProviderDToken(tx *store.Tx, userID int64, jwe string, claim CardClaim) (token string, bad map[string]string, err error) {
	invalid := map[string]string{"providerDToken": "is not a token issued for one of your providerD keys"}
	kid, err := JWEKeyID(jwe)
	if err != nil {
		return "", invalid, nil
	}
	key, err := tx.GetProviderDKey(kid)
	if errors.Is(err, store.ErrNotFound) || (err == nil && key.UserID != userID) {
		return "", invalid, nil
	}
	if err != nil {
		return "", nil, err
	}
	switch {
	case key.ConsumedAt != nil:
		return "", map[string]string{"keyId": "key already used"}, nil
	case tx.Unix() >= key.ExpiresAt:
		return "", map[string]string{"keyId": "key expired"}, nil
	case key.UsedAt == nil:
		return "", invalid, nil
	}
	priv, _, err := ParsePrivateJWK(key.PrivateJWK)
	if err != nil {
		return "", nil, err
	}
	plain, err := DecryptJWE(priv, jwe)
	if err != nil {
		return "", invalid, nil
	}
	pt, err := tx.GetProviderToken(string(plain))
	if errors.Is(err, store.ErrNotFound) || (err == nil && pt.Provider != ProviderD) {
		return "", invalid, nil
	}
	if err != nil {
		return "", nil, err
	}
	if bad := claim.mismatch(pt.First6, pt.Last4, pt.ExpiryMonth, pt.ExpiryYear); bad != nil {
		return "", bad, nil
	}
	if err := tx.MarkProviderDKeyConsumed(kid); errors.Is(err, store.ErrNotFound) {
		return "", map[string]string{"keyId": "key already used"}, nil
	} else if err != nil {
		return "", nil, err
	}
	return pt.Token, nil, nil
}

// mismatch compares the card a provider tokenised with the claim, naming
// the insert body's fields that differ.
func (c CardClaim) mismatch(first6, last4 string, month, yy int) map[string]string {
	const reason = "does not match the tokenised card"
	bad := map[string]string{}
	if c.First6 != first6 {
		bad["first6Digits"] = reason
	}
	if c.Last4 != last4 {
		bad["last4Digits"] = reason
	}
	if c.ExpiryMonth != month {
		bad["expiryMonth"] = reason
	}
	if c.ExpiryYear != yy {
		bad["expiryYear"] = reason
	}
	if len(bad) == 0 {
		return nil
	}
	return bad
}
