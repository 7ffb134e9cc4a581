package wallet

import (
	"crypto/rsa"
	"encoding/base64"
	"errors"
	"fmt"
	"math/big"
)

// JWK is a public RSA JSON Web Key as the service and the sandbox providers
// hand it out (interface section 2.4): string members kty, use, kid, n, e.
type JWK struct {
	Kty string `json:"kty"`
	Use string `json:"use,omitempty"`
	Kid string `json:"kid,omitempty"`
	// Alg is the key's algorithm when the issuer names one.
	Alg string `json:"alg,omitempty"`
	// N and E are the modulus and exponent, base64url without padding.
	N string `json:"n"`
	E string `json:"e"`
}

// RSAPublicKey decodes the key. It refuses anything but an RSA key of at
// least 2048 bits, the smallest size RSA-OAEP-256 is still safe with.
func (k JWK) RSAPublicKey() (*rsa.PublicKey, error) {
	if k.Kty != "RSA" {
		return nil, fmt.Errorf("wallet: jwk: kty %q, want RSA", k.Kty)
	}
	n, err := base64.RawURLEncoding.DecodeString(k.N)
	if err != nil || len(n) == 0 {
		return nil, errors.New("wallet: jwk: bad modulus")
	}
	e, err := base64.RawURLEncoding.DecodeString(k.E)
	if err != nil || len(e) == 0 || len(e) > 4 {
		return nil, errors.New("wallet: jwk: bad exponent")
	}
	var exp int
	for _, b := range e {
		exp = exp<<8 | int(b)
	}
	pub := &rsa.PublicKey{N: new(big.Int).SetBytes(n), E: exp}
	if pub.N.BitLen() < 2048 {
		return nil, fmt.Errorf("wallet: jwk: %d-bit RSA key is too small", pub.N.BitLen())
	}
	if exp < 3 || exp%2 == 0 {
		return nil, errors.New("wallet: jwk: bad exponent")
	}
	return pub, nil
}

// NewJWK returns the public JWK of pub with the given key id and use; the
// reference server uses it to describe the keys it hands out.
func NewJWK(pub *rsa.PublicKey, kid, use string) JWK {
	e := big.NewInt(int64(pub.E)).Bytes()
	return JWK{
		Kty: "RSA",
		Use: use,
		Kid: kid,
		N:   base64.RawURLEncoding.EncodeToString(pub.N.Bytes()),
		E:   base64.RawURLEncoding.EncodeToString(e),
	}
}
