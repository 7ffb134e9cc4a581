package refserver

import (
	"context"
	"crypto/rsa"
	"errors"
	"net/http"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/refserver/sandbox"
	"github.com/hospo-dev/hospo-go/refserver/store"
	"github.com/hospo-dev/hospo-go/wallet"
)

// The sandbox payment providers (contract.md section 6) live in this
// server: providerB's public key and the service's side of its CSE,
// providerD's keys, its tokenisation endpoint and the service's side of
// its tokens. The card data they see is held in memory for one request
// and never stored or logged: provider_tokens keeps only the first six
// and last four digits and the expiry.

// providerDTokenisePath is where providerD's tokenisationUri points, on the
// HTTPS listener.
const providerDTokenisePath = "/sandbox/providerD/tokenise"

// providerBKey is providerB's key pair.
type providerBKey struct {
	priv *rsa.PrivateKey
	kid  string
}

// loadProviderBKey reads providerB's key from sandbox_state; ErrNotFound
// before the first GET /sandbox/providerB/public-key made it.
func (s *Server) loadProviderBKey(ctx context.Context) (*providerBKey, error) {
	var jwk string
	err := s.db.Read(ctx, func(tx *store.Tx) error {
		var err error
		jwk, err = tx.State(sandbox.ProviderBKeyState)
		return err
	})
	if err != nil {
		return nil, err
	}
	priv, kid, err := sandbox.ParsePrivateJWK(jwk)
	if err != nil {
		return nil, err
	}
	return &providerBKey{priv: priv, kid: kid}, nil
}

// ensureProviderBKey returns providerB's key, making it on first use. The
// key is persistent: it stays across restarts and sandbox resets.
func (s *Server) ensureProviderBKey(ctx context.Context) (*providerBKey, error) {
	k, err := s.loadProviderBKey(ctx)
	if !errors.Is(err, store.ErrNotFound) {
		return k, err
	}
	// Generate outside the write transaction (it takes a while), then
	// store it unless a concurrent request stored one first.
	priv, err := sandbox.NewRSAKey()
	if err != nil {
		return nil, err
	}
	jwk, err := sandbox.MarshalPrivateJWK(priv, sandbox.NewProviderBKeyID())
	if err != nil {
		return nil, err
	}
	err = s.db.Write(ctx, func(tx *store.Tx) error {
		if _, err := tx.State(sandbox.ProviderBKeyState); !errors.Is(err, store.ErrNotFound) {
			return err // nil: someone else's key won
		}
		return tx.SetState(sandbox.ProviderBKeyState, jwk)
	})
	if err != nil {
		return nil, err
	}
	return s.loadProviderBKey(ctx)
}

// handleProviderBPublicKey serves GET /sandbox/providerB/public-key: the
// key a client encrypts card data to for providerBCse.
func (s *Server) handleProviderBPublicKey(w http.ResponseWriter, r *http.Request) {
	k, err := s.ensureProviderBKey(r.Context())
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	jwk := wallet.NewJWK(&k.priv.PublicKey, k.kid, "enc")
	jwk.Alg = "RSA-OAEP-256"
	s.writeJSON(w, r, http.StatusOK, wallet.ProviderBKeyResponse{JWK: jwk})
}

// exchangeProviderBCSE plays providerB at a card insert: it decrypts the
// CSE, checks the card and that it is the one the body describes, and
// issues a token. Problems come back as field -> reason.
func (s *Server) exchangeProviderBCSE(tx *store.Tx, key *providerBKey, cse string, req *wallet.InsertCardRequest) (string, map[string]string, error) {
	if key == nil {
		return "", map[string]string{"providerBCse": "cannot be decrypted with providerB's key"}, nil
	}
	card, err := sandbox.DecryptCard(key.priv, cse)
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
	if bad := cardMismatch(req, card.First6(), card.Last4(), card.ExpiryMonth, card.ExpiryYear); bad != nil {
		return "", bad, nil
	}
	token := sandbox.NewProviderToken(sandbox.ProviderB)
	err = tx.InsertProviderToken(store.ProviderToken{
		Token:       token,
		Provider:    sandbox.ProviderB,
		First6:      card.First6(),
		Last4:       card.Last4(),
		ExpiryMonth: card.ExpiryMonth,
		ExpiryYear:  card.ExpiryYear,
		Decline:     card.Number == sandbox.DeclineCardNumber,
	})
	return token, nil, err
}

// exchangeProviderDToken is the service's side of a providerD token at a
// card insert: it finds the key named in the JWE header, checks it belongs
// to the user and is neither consumed nor expired, decrypts the token with
// the stored private key, checks the provider's record of it against the
// body, and consumes the key.
func exchangeProviderDToken(tx *store.Tx, userID int64, jwe string, req *wallet.InsertCardRequest) (string, map[string]string, error) {
	invalid := map[string]string{"providerDToken": "is not a token issued for one of your providerD keys"}
	kid, err := sandbox.JWEKeyID(jwe)
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
	priv, _, err := sandbox.ParsePrivateJWK(key.PrivateJWK)
	if err != nil {
		return "", nil, err
	}
	plain, err := sandbox.DecryptJWE(priv, jwe)
	if err != nil {
		return "", invalid, nil
	}
	pt, err := tx.GetProviderToken(string(plain))
	if errors.Is(err, store.ErrNotFound) || (err == nil && pt.Provider != sandbox.ProviderD) {
		return "", invalid, nil
	}
	if err != nil {
		return "", nil, err
	}
	if bad := cardMismatch(req, pt.First6, pt.Last4, pt.ExpiryMonth, pt.ExpiryYear); bad != nil {
		return "", bad, nil
	}
	if err := tx.MarkProviderDKeyConsumed(kid); errors.Is(err, store.ErrNotFound) {
		return "", map[string]string{"keyId": "key already used"}, nil
	} else if err != nil {
		return "", nil, err
	}
	return pt.Token, nil, nil
}

// cardMismatch compares the card a provider tokenised with what the insert
// body says of it.
func cardMismatch(req *wallet.InsertCardRequest, first6, last4 string, month, yy int) map[string]string {
	const reason = "does not match the tokenised card"
	bad := map[string]string{}
	if req.First6Digits != first6 {
		bad["first6Digits"] = reason
	}
	if req.Last4Digits != last4 {
		bad["last4Digits"] = reason
	}
	if req.ExpiryMonth != month {
		bad["expiryMonth"] = reason
	}
	if req.ExpiryYear != yy {
		bad["expiryYear"] = reason
	}
	if len(bad) == 0 {
		return nil
	}
	return bad
}

// providerDKeyResponse is the body of GET /v2/payment/providerD/keys.
type providerDKeyResponse struct {
	wallet.ProviderDKey
	RequestInfo client.RequestInfo `json:"requestInfo"`
}

// handleProviderDKeys serves GET /v2/payment/providerD/keys: a fresh RSA
// key pair whose private half is stored for the user, valid for one token
// and sandbox.ProviderDKeyLifetime on the virtual clock.
func (s *Server) handleProviderDKeys(w http.ResponseWriter, r *http.Request) {
	priv, err := sandbox.NewRSAKey()
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	kid := sandbox.NewProviderDKeyID()
	privJWK, err := sandbox.MarshalPrivateJWK(priv, kid)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	userID := principalFrom(r.Context()).UserID
	err = s.db.Write(r.Context(), func(tx *store.Tx) error {
		if err := tx.PurgeProviderDKeys(); err != nil {
			return err
		}
		return tx.InsertProviderDKey(store.ProviderDKey{
			KeyID:      kid,
			UserID:     userID,
			PrivateJWK: privJWK,
			ExpiresAt:  tx.Now().Add(sandbox.ProviderDKeyLifetime).Unix(),
		})
	})
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	jwk := wallet.NewJWK(&priv.PublicKey, kid, "enc")
	jwk.Alg = "RSA-OAEP-256"
	s.writeJSON(w, r, http.StatusOK, providerDKeyResponse{
		ProviderDKey: wallet.ProviderDKey{
			Key:             wallet.ProviderDKeyInfo{KeyID: kid, JWK: jwk},
			TokenisationURI: s.cfg.TLSURL + providerDTokenisePath,
		},
		RequestInfo: s.requestInfo(r),
	})
}

// providerDTokeniseRequest is the card data a client posts to providerD.
type providerDTokeniseRequest struct {
	KeyID       string `json:"keyId"`
	Number      string `json:"number"`
	ExpiryMonth int    `json:"expiryMonth"`
	ExpiryYear  int    `json:"expiryYear"`
	CVC         string `json:"cvc"`
}

// handleProviderDTokenise serves POST /sandbox/providerD/tokenise, playing
// providerD: over HTTPS only, it checks the key (known, unused, not
// expired) and the card (Luhn, CVC, expiry), issues a token and returns it
// encrypted to the key's public half, so that only the service, holding
// the private half, can read it. Every problem is one 400002 naming each
// failing field. An Idempotency-Key is accepted but not remembered here
// (see below): a repeat of a request that got its token is refused with
// keyId "key already used".
func (s *Server) handleProviderDTokenise(w http.ResponseWriter, r *http.Request) {
	if r.TLS == nil {
		s.writeError(w, r, apiErrMsg(client.CodeForbidden, "providerD tokenisation must be called over HTTPS."))
		return
	}
	var req providerDTokeniseRequest
	if err := s.decodeJSON(r, &req); err != nil {
		s.writeError(w, r, err)
		return
	}
	body, _ := s.readBody(r)
	bad := missingFields(body, "keyId", "number", "expiryMonth", "expiryYear", "cvc")
	if bad == nil {
		bad = map[string]string{}
	}
	card := sandbox.Card{Number: req.Number, ExpiryMonth: req.ExpiryMonth, ExpiryYear: req.ExpiryYear, CVC: req.CVC}
	for k, v := range card.Problems(s.clock.Now()) {
		if _, missing := bad[k]; !missing {
			bad[k] = v
		}
	}
	// Not s.mutate: an idempotency record would keep a hash of this body,
	// and a hash of a card number, its expiry and CVC can be brute-forced.
	// A key serves one token anyway, so a repeated request is refused with
	// "key already used" rather than replayed.
	var out wallet.ProviderDTokenResponse
	err := s.db.Write(r.Context(), func(tx *store.Tx) error {
		var key store.ProviderDKey
		if _, missing := bad["keyId"]; !missing {
			var err error
			key, err = tx.GetProviderDKey(req.KeyID)
			switch {
			case errors.Is(err, store.ErrNotFound):
				bad["keyId"] = "unknown key"
			case err != nil:
				return err
			case key.UsedAt != nil:
				bad["keyId"] = "key already used"
			case tx.Unix() >= key.ExpiresAt:
				bad["keyId"] = "key expired"
			}
		}
		if len(bad) > 0 {
			return validationErr(bad)
		}
		priv, _, err := sandbox.ParsePrivateJWK(key.PrivateJWK)
		if err != nil {
			return err
		}
		token := sandbox.NewProviderToken(sandbox.ProviderD)
		if err := tx.InsertProviderToken(store.ProviderToken{
			Token:       token,
			Provider:    sandbox.ProviderD,
			First6:      card.First6(),
			Last4:       card.Last4(),
			ExpiryMonth: card.ExpiryMonth,
			ExpiryYear:  card.ExpiryYear,
			Decline:     card.Number == sandbox.DeclineCardNumber,
		}); err != nil {
			return err
		}
		if err := tx.MarkProviderDKeyUsed(key.KeyID); errors.Is(err, store.ErrNotFound) {
			return validationErr(map[string]string{"keyId": "key already used"})
		} else if err != nil {
			return err
		}
		out.Token, err = sandbox.EncryptJWE(&priv.PublicKey, key.KeyID, []byte(token))
		return err
	})
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.writeJSON(w, r, http.StatusOK, out)
}
