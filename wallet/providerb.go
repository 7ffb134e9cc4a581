package wallet

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/go-jose/go-jose/v4"

	"github.com/hospo-dev/hospo-go/client"
)

// ProviderBKeyResponse is the body of the sandbox's providerB public-key
// endpoint.
type ProviderBKeyResponse struct {
	JWK JWK `json:"jwk"`
}

// ProviderBPublicKey gets the public key that providerB's client-side
// encryption (CSE) encrypts to, in the sandbox format of the contract.
//
// GET /sandbox/providerB/public-key
func (s *Service) ProviderBPublicKey(ctx context.Context, opts ...client.Option) (JWK, error) {
	var out ProviderBKeyResponse
	_, err := s.c.Do(ctx, &client.Request{
		Method: http.MethodGet,
		Route:  "/sandbox/providerB/public-key",
		Auth:   client.AuthNone,
	}, &out, opts...)
	if err != nil {
		return JWK{}, err
	}
	return out.JWK, nil
}

// ProviderBCSE encrypts card to providerB's current public key
// (ProviderBPublicKey) and returns the string for
// InsertCardRequest.ProviderBCse.
func (s *Service) ProviderBCSE(ctx context.Context, card CardDetails, opts ...client.Option) (string, error) {
	if err := card.Validate(); err != nil {
		return "", err
	}
	key, err := s.ProviderBPublicKey(ctx, opts...)
	if err != nil {
		return "", err
	}
	return EncryptProviderBCSE(key, card)
}

// EncryptProviderBCSE produces providerB's client-side-encrypted card data
// in the sandbox format: a JWE compact serialisation (RSA-OAEP-256 key
// wrapping, A256GCM content encryption) of the JSON object
// {number, expiryMonth, expiryYear, cvc, holderName} to key. Only the
// holder of providerB's private key can read it; the service forwards it.
func EncryptProviderBCSE(key JWK, card CardDetails) (string, error) {
	pub, err := key.RSAPublicKey()
	if err != nil {
		return "", err
	}
	enc, err := jose.NewEncrypter(jose.A256GCM,
		jose.Recipient{Algorithm: jose.RSA_OAEP_256, Key: pub, KeyID: key.Kid},
		(&jose.EncrypterOptions{}).WithContentType("application/json"))
	if err != nil {
		return "", fmt.Errorf("wallet: providerB CSE: %w", err)
	}
	plain, err := json.Marshal(card.wire())
	if err != nil {
		return "", fmt.Errorf("wallet: providerB CSE: %w", err)
	}
	obj, err := enc.Encrypt(plain)
	clear(plain)
	if err != nil {
		return "", fmt.Errorf("wallet: providerB CSE: %w", err)
	}
	return obj.CompactSerialize()
}
