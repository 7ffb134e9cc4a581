package refserver

import (
	"context"
	"net/http"
	"time"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/refserver/internal/api"
	"github.com/hospo-dev/hospo-go/refserver/sim"
	"github.com/hospo-dev/hospo-go/refserver/store"
	"github.com/hospo-dev/hospo-go/wallet"
)

// The endpoints of the sandbox payment providers (contract.md section 6):
// providerB's public key, providerD's keys and its tokenisation endpoint.
// What the providers do is in package sim.

// providerDTokenisePath is where providerD's tokenisationUri points, on the
// HTTPS listener.
const providerDTokenisePath = "/sandbox/providerD/tokenise"

// handleProviderBPublicKey serves GET /sandbox/providerB/public-key: the
// key a client encrypts card data to for providerBCse.
func (s sandboxAPI) handleProviderBPublicKey(w http.ResponseWriter, r *http.Request) {
	k, err := sim.EnsureProviderBKey(r.Context(), s.db)
	if err != nil {
		s.api.Error(w, r, err)
		return
	}
	jwk := wallet.NewJWK(&k.Private.PublicKey, k.KeyID, "enc")
	jwk.Alg = "RSA-OAEP-256"
	s.api.JSON(w, r, http.StatusOK, wallet.ProviderBKeyResponse{JWK: jwk})
}

// Every answer of GET /v2/payment/providerD/keys is a new RSA-2048 key
// pair. The keys are made ahead of time, providerDKeyPool of them, by one
// background worker (sim.KeyPool), so a call costs the server no key
// making and all callers together never take more than one core for it; a
// call that finds the pool empty waits up to Config.ProviderDKeyWait for
// the next key, and is otherwise a 429001. Each user holds at most
// sim.MaxOpenProviderDKeys keys that are neither used nor expired; one
// more is a 429001 too, with Retry-After until the first of them expires.
const (
	providerDKeyPool = 8
	// defaultProviderDKeyWait is Config.ProviderDKeyWait's default.
	defaultProviderDKeyWait = 5 * time.Second
)

// handleProviderDKeys serves GET /v2/payment/providerD/keys: a fresh RSA
// key pair whose private half is stored for the user, valid for one token
// and sim.ProviderDKeyLifetime on the virtual clock.
func (s *Server) handleProviderDKeys(w http.ResponseWriter, r *http.Request) {
	userID := api.RequestFrom(r.Context()).Principal().UserID
	// Checked before a key is taken from the pool, and again as the key is
	// stored, for two calls of one user at the same time.
	tooMany := func(tx *store.Tx) error {
		wait, err := sim.ProviderDKeyWait(tx, userID)
		if err == nil && wait > 0 {
			return api.TooManyRequests(wait)
		}
		return err
	}
	if err := s.db.Read(r.Context(), tooMany); err != nil {
		s.api.Error(w, r, err)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), s.cfg.ProviderDKeyWait)
	priv, err := s.providerDKeys.Take(ctx)
	cancel()
	if err != nil {
		s.api.Error(w, r, api.TooManyRequests(time.Second))
		return
	}
	kid := sim.NewProviderDKeyID()
	privJWK, err := sim.MarshalPrivateJWK(priv, kid)
	if err != nil {
		s.api.Error(w, r, err)
		return
	}
	err = s.db.Write(r.Context(), func(tx *store.Tx) error {
		if err := tooMany(tx); err != nil {
			return err
		}
		return sim.StoreProviderDKey(tx, userID, kid, privJWK)
	})
	if err != nil {
		s.api.Error(w, r, err)
		return
	}
	jwk := wallet.NewJWK(&priv.PublicKey, kid, "enc")
	jwk.Alg = "RSA-OAEP-256"
	s.api.JSON(w, r, http.StatusOK, wallet.ProviderDKeyResponse{
		ProviderDKey: wallet.ProviderDKey{
			Key:             wallet.ProviderDKeyInfo{KeyID: kid, JWK: jwk},
			TokenisationURI: s.PublicURLs().TLSURL + providerDTokenisePath,
		},
		RequestInfo: s.api.Info(r),
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
func (s sandboxAPI) handleProviderDTokenise(w http.ResponseWriter, r *http.Request) {
	if r.TLS == nil {
		s.api.Error(w, r, api.ErrMsg(client.CodeForbidden, "providerD tokenisation must be called over HTTPS."))
		return
	}
	var req providerDTokeniseRequest
	bad, err := api.Decode(r, &req, "keyId", "number", "expiryMonth", "expiryYear", "cvc")
	if err != nil {
		s.api.Error(w, r, err)
		return
	}
	card := sim.Card{Number: req.Number, ExpiryMonth: req.ExpiryMonth, ExpiryYear: req.ExpiryYear, CVC: req.CVC}
	for k, v := range card.Problems(s.clock.Now()) {
		if _, missing := bad[k]; !missing {
			bad[k] = v
		}
	}
	// Not an idempotent write (api.Writes): an idempotency record would
	// keep a hash of this body, and a hash of a card number, its expiry and
	// CVC can be brute-forced. A key serves one token anyway, so a repeated
	// request is refused with "key already used" rather than replayed.
	var out wallet.ProviderDTokenResponse
	err = s.db.Write(r.Context(), func(tx *store.Tx) error {
		token, bad, err := sim.TokeniseProviderD(tx, req.KeyID, card, bad)
		if err != nil {
			return err
		}
		if len(bad) > 0 {
			return api.Invalid(bad) // rolls back a token issued for a key used meanwhile
		}
		out.Token = token
		return nil
	})
	if err != nil {
		s.api.Error(w, r, err)
		return
	}
	s.api.JSON(w, r, http.StatusOK, out)
}
