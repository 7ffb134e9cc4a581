package refserver

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/refserver/store"
)

// maxIdempotencyKey is the longest Idempotency-Key accepted.
const maxIdempotencyKey = 255

// idemRequest is a POST's Idempotency-Key, set in the request state by the
// idempotency middleware for mutate to store the response under.
type idemRequest struct {
	credential  string
	key         string
	requestHash string
}

// idempotency implements contract.md section 4 for every POST. A POST with
// an Idempotency-Key is looked up by (credential, key): a live record with
// the same request hash is replayed (status and body, header
// Idempotent-Replayed: true) without running the handler; one with a
// different hash is a 409004. Otherwise the handler runs and mutate stores
// its response in the same transaction as its work. Concurrent requests
// with the same (credential, key) queue on a lock, so a duplicate sent
// while the first is still running waits and then replays it.
func (s *Server) idempotency(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		vals, present := r.Header[http.CanonicalHeaderKey(headerIdempotency)]
		if r.Method != http.MethodPost || !present {
			next.ServeHTTP(w, r)
			return
		}
		key := vals[0]
		if len(vals) > 1 || key == "" || len(key) > maxIdempotencyKey {
			s.writeError(w, r, validationErr(map[string]string{
				headerIdempotency: fmt.Sprintf("must be one header of 1 to %d characters", maxIdempotencyKey),
			}))
			return
		}
		body, err := s.readBody(r)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		req := &idemRequest{
			credential:  presentedCredential(r),
			key:         key,
			requestHash: requestHash(r, body),
		}

		unlock, err := s.idem.Lock(r.Context(), req.credential+"\x00"+key)
		if err != nil {
			return // the client went away while waiting
		}
		defer unlock()

		var (
			rec   store.IdempotencyRecord
			found bool
		)
		err = s.db.Read(r.Context(), func(tx *store.Tx) error {
			var err error
			rec, err = tx.GetIdempotency(req.credential, key)
			found = err == nil
			if errors.Is(err, store.ErrNotFound) {
				return nil
			}
			return err
		})
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		if found && r.URL.Query().Get(queryAccessToken) != "" && s.tokenStatus(r) != tokenAuthenticated {
			// The token was deleted or has expired since: no replay for
			// it, and no second run either.
			s.writeError(w, r, apiErr(client.CodeAccessTokenInvalid))
			return
		}
		if found {
			if rec.RequestHash != req.requestHash {
				s.writeError(w, r, apiErr(client.CodeIdempotencyKeyReused))
				return
			}
			plain, err := s.openRecord(req, rec.Body)
			if err == nil {
				w.Header().Set("Idempotent-Replayed", "true")
				writeRaw(w, rec.Status, plain)
				return
			}
			// Sealed under another admin key: the record is unusable,
			// so the request is carried out again and replaces it.
			s.log.Warn("unreadable idempotency record; running the request again", "request_id", stateOf(r).id)
		}
		stateOf(r).idem = req
		next.ServeHTTP(w, r)
	})
}

// requestHash identifies a request's content for idempotency: method, path,
// query (without the access token, which is part of the credential) and
// body.
func requestHash(r *http.Request, body []byte) string {
	q := r.URL.Query()
	q.Del(queryAccessToken)
	h := sha256.New()
	fmt.Fprintf(h, "%s\n%s\n%s\n", r.Method, r.URL.EscapedPath(), canonicalQuery(q))
	h.Write(body)
	return hex.EncodeToString(h.Sum(nil))
}

func canonicalQuery(q url.Values) string { return q.Encode() } // Encode sorts by key

// mutate runs fn in one write transaction and answers with status and the
// value fn returns, marshalled as JSON. When the request carries an
// Idempotency-Key, the response is stored for replay in the same
// transaction, so the work and its record commit together or not at all. An
// error from fn rolls everything back and is rendered by writeError (error
// responses are not stored: the work was not done, so a retry may run it).
// Use it for every POST that changes state.
func (s *Server) mutate(w http.ResponseWriter, r *http.Request, status int, fn func(tx *store.Tx) (any, error)) {
	st := stateOf(r)
	var body []byte
	err := s.db.Write(r.Context(), func(tx *store.Tx) error {
		v, err := fn(tx)
		if err != nil {
			return err
		}
		if body, err = json.Marshal(v); err != nil {
			return err
		}
		return s.remember(tx, st, status, body)
	})
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeRaw(w, status, body)
}

// remember stores the response for the request's Idempotency-Key, if it
// has one, in tx. mutate calls it; a handler that cannot use mutate calls
// it in its last write transaction.
func (s *Server) remember(tx *store.Tx, st *reqState, status int, body []byte) error {
	if st.idem == nil {
		return nil
	}
	sealed, err := s.sealRecord(st.idem, body)
	if err != nil {
		return err
	}
	if err := tx.PutIdempotency(store.IdempotencyRecord{
		Credential:  st.idem.credential,
		Key:         st.idem.key,
		RequestHash: st.idem.requestHash,
		Status:      status,
		Body:        sealed,
	}); err != nil {
		return err
	}
	return s.maybePurgeIdempotency(tx)
}

// maybePurgeIdempotency deletes expired records at most once a minute of
// virtual time, piggybacking on a write that is happening anyway.
func (s *Server) maybePurgeIdempotency(tx *store.Tx) error {
	now := tx.Unix()
	last := s.lastPurge.Load()
	if now-last < 60 || !s.lastPurge.CompareAndSwap(last, now) {
		return nil
	}
	_, err := tx.PurgeIdempotency()
	return err
}

// Stored responses are sealed (AES-256-GCM) with a key derived from the
// admin key, bound to the credential and Idempotency-Key: a response can
// carry a secret (a freshly created access token or API key is shown once,
// in the creating response), and secrets never lie in the database in the
// clear.
func (s *Server) sealKey() []byte {
	m := hmac.New(sha256.New, []byte(s.cfg.AdminKey))
	m.Write([]byte("hospo-refserver/idempotency-seal/v1"))
	return m.Sum(nil)
}

func (s *Server) sealRecord(req *idemRequest, plain []byte) ([]byte, error) {
	aead, err := s.newAEAD()
	if err != nil {
		return nil, err
	}
	nonce := make([]byte, aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return nil, err
	}
	return aead.Seal(nonce, nonce, plain, []byte(req.credential+"\x00"+req.key)), nil
}

func (s *Server) openRecord(req *idemRequest, sealed []byte) ([]byte, error) {
	aead, err := s.newAEAD()
	if err != nil {
		return nil, err
	}
	if len(sealed) < aead.NonceSize() {
		return nil, errors.New("idempotency record too short")
	}
	nonce, ct := sealed[:aead.NonceSize()], sealed[aead.NonceSize():]
	return aead.Open(nil, nonce, ct, []byte(req.credential+"\x00"+req.key))
}

func (s *Server) newAEAD() (cipher.AEAD, error) {
	block, err := aes.NewCipher(s.sealKey())
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}
