package sim

import (
	"crypto/rand"
	"crypto/rsa"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/go-jose/go-jose/v4"

	"github.com/hospo-dev/hospo-go/internal/cardnum"
	"github.com/hospo-dev/hospo-go/internal/fielderr"
)

// The sandbox payment providers that take card inserts.
const (
	ProviderB = "providerB"
	ProviderD = "providerD"
)

// DeclineCardNumber is the test card that tokenises like any other but
// whose every payment is declined (402001). The magic cards of
// magicCards decline with a reason.
const DeclineCardNumber = "4000000000000002"

// ProviderDKeyLifetime is how long a providerD key can be used.
const ProviderDKeyLifetime = 15 * time.Minute

// ProviderBKeyState is the sandbox_state entry that holds providerB's
// private key (a JWK). It is kept across restarts and resets, so a CSE
// string made before a reset can still be decrypted after it.
const ProviderBKeyState = "providerB.private_jwk"

// rsaBits is the size of the sandbox providers' RSA keys: the smallest
// size that is still considered safe for RSA-OAEP.
const rsaBits = 2048

// Card is card data as a client sends it to a provider (contract section
// 6). It holds a full number and CVC, so it is only ever held in memory
// for one request; it prints masked with every fmt verb.
type Card struct {
	Number      string `json:"number"`
	ExpiryMonth int    `json:"expiryMonth"`
	ExpiryYear  int    `json:"expiryYear"`
	CVC         string `json:"cvc"`
	HolderName  string `json:"holderName"`
}

// Format prints the card with the number masked to its last four digits
// and no CVC, whatever the verb, so that no log line or error built with
// fmt can carry them.
func (c Card) Format(f fmt.State, _ rune) {
	fmt.Fprintf(f, "Card{Number:%s Expiry:%02d/%02d}", cardnum.Mask(c.Number), c.ExpiryMonth, c.ExpiryYear)
}

// First6 returns the first six digits of the number ("" when shorter).
func (c Card) First6() string { return cardnum.First6(c.Number) }

// Last4 returns the last four digits of the number ("" when shorter).
func (c Card) Last4() string { return cardnum.Last4(c.Number) }

// Problems checks the card as the sandbox providers do and returns field ->
// reason for each failing field (nil when the card is good): the checks of
// the SDK's wallet.CardDetails.Validate (see cardnum.Check), and an expiry
// not in the past at now. The reasons never repeat the values.
func (c Card) Problems(now time.Time) map[string]string {
	var s fielderr.Set
	cardnum.Check(&s, cardnum.Card{Number: c.Number, CVC: c.CVC, ExpiryMonth: c.ExpiryMonth, ExpiryYear: c.ExpiryYear, HolderName: c.HolderName})
	if !s.Has("expiryMonth") && !s.Has("expiryYear") && cardnum.Expired(c.ExpiryMonth, c.ExpiryYear, now) {
		s.Add("expiryYear", cardnum.ReasonExpired)
	}
	return s.Map()
}

// NewProviderToken returns a fresh opaque token of provider, such as
// "providerB_tok_9f86d081884c7d659a2feaa0c55ad015". It carries nothing of
// the card.
func NewProviderToken(provider string) string { return provider + "_tok_" + randomHex(16) }

// NewProviderDKeyID returns a fresh providerD key id.
func NewProviderDKeyID() string { return "pdk_" + randomHex(16) }

// NewProviderBKeyID returns a fresh id for providerB's key.
func NewProviderBKeyID() string { return "pbk_" + randomHex(16) }

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // never fails
	return hex.EncodeToString(b)
}

// NewRSAKey makes a provider key pair.
func NewRSAKey() (*rsa.PrivateKey, error) { return rsa.GenerateKey(rand.Reader, rsaBits) }

// MarshalPrivateJWK encodes a private key as a JWK (JSON) with key id kid,
// the form in which the sandbox stores its keys.
func MarshalPrivateJWK(priv *rsa.PrivateKey, kid string) (string, error) {
	b, err := (jose.JSONWebKey{Key: priv, KeyID: kid, Algorithm: string(jose.RSA_OAEP_256), Use: "enc"}).MarshalJSON()
	if err != nil {
		return "", fmt.Errorf("marshal private jwk: %w", err)
	}
	return string(b), nil
}

// ParsePrivateJWK decodes what MarshalPrivateJWK made.
func ParsePrivateJWK(s string) (*rsa.PrivateKey, string, error) {
	var k jose.JSONWebKey
	if err := k.UnmarshalJSON([]byte(s)); err != nil {
		return nil, "", fmt.Errorf("parse private jwk: %w", err)
	}
	priv, ok := k.Key.(*rsa.PrivateKey)
	if !ok {
		return nil, "", fmt.Errorf("parse private jwk: %T is not an RSA private key", k.Key)
	}
	return priv, k.KeyID, nil
}

// The algorithms of every JWE of the sandbox: RSA-OAEP-256 key wrapping and
// A256GCM content encryption. Decryption accepts nothing else, so a
// downgraded algorithm is refused before any key is touched.
var (
	jweKeyAlgs  = []jose.KeyAlgorithm{jose.RSA_OAEP_256}
	jweContEncs = []jose.ContentEncryption{jose.A256GCM}
)

// maxJWE bounds the JWE strings the sandbox parses; card data and tokens
// are a few hundred bytes.
const maxJWE = 16 << 10

// ErrBadJWE reports a string that is not a JWE compact serialisation with
// the sandbox's algorithms, or that the key cannot decrypt.
var ErrBadJWE = errors.New("not a JWE for this key")

// EncryptJWE encrypts plaintext to pub as a JWE compact serialisation
// whose header names kid.
func EncryptJWE(pub *rsa.PublicKey, kid string, plaintext []byte) (string, error) {
	enc, err := jose.NewEncrypter(jose.A256GCM, jose.Recipient{Algorithm: jose.RSA_OAEP_256, Key: pub, KeyID: kid}, nil)
	if err != nil {
		return "", fmt.Errorf("jwe encrypter: %w", err)
	}
	obj, err := enc.Encrypt(plaintext)
	if err != nil {
		return "", fmt.Errorf("jwe encrypt: %w", err)
	}
	return obj.CompactSerialize()
}

// JWEKeyID returns the kid of a JWE's protected header without decrypting
// it, so that the right private key can be looked up.
func JWEKeyID(compact string) (string, error) {
	obj, err := parseJWE(compact)
	if err != nil {
		return "", err
	}
	if obj.Header.KeyID == "" {
		return "", ErrBadJWE
	}
	return obj.Header.KeyID, nil
}

// DecryptJWE decrypts a JWE compact serialisation with priv.
func DecryptJWE(priv *rsa.PrivateKey, compact string) ([]byte, error) {
	obj, err := parseJWE(compact)
	if err != nil {
		return nil, err
	}
	plain, err := obj.Decrypt(priv)
	if err != nil {
		return nil, ErrBadJWE
	}
	return plain, nil
}

func parseJWE(compact string) (*jose.JSONWebEncryption, error) {
	compact = strings.TrimSpace(compact)
	if compact == "" || len(compact) > maxJWE || strings.Count(compact, ".") != 4 {
		return nil, ErrBadJWE
	}
	obj, err := jose.ParseEncryptedCompact(compact, jweKeyAlgs, jweContEncs)
	if err != nil {
		return nil, ErrBadJWE
	}
	return obj, nil
}

// DecryptCard decrypts a providerB CSE string (a JWE of the card's JSON)
// with providerB's private key. Its errors never contain card data.
func DecryptCard(priv *rsa.PrivateKey, cse string) (Card, error) {
	plain, err := DecryptJWE(priv, cse)
	if err != nil {
		return Card{}, err
	}
	defer clear(plain)
	var c Card
	if err := json.Unmarshal(plain, &c); err != nil {
		// The JSON error could quote the plaintext; say only what went wrong.
		return Card{}, errors.New("card data is not the expected JSON object")
	}
	return c, nil
}
