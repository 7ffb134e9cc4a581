package api

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"

	"github.com/go-chi/chi/v5"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/internal/keylock"
	"github.com/hospo-dev/hospo-go/refserver/internal/seal"
	"github.com/hospo-dev/hospo-go/refserver/store"
)

// HeaderIdempotencyKey is the header of contract.md section 4.
const HeaderIdempotencyKey = "Idempotency-Key"

// maxIdempotencyKey is the longest Idempotency-Key accepted.
const maxIdempotencyKey = 255

// A Write is the part of a request that changes state. It runs in the
// write transaction and returns the value of the response, sent as JSON
// (a Located value: its Response); an error rolls the transaction back
// and is rendered instead (one made with Committed is rendered after the
// commit).
type Write func(tx *store.Tx) (any, error)

// A WriteHandler serves a request that changes state, the way a
// ReadHandler serves one that reads it: it does what needs no lock
// (decoding, validating, slow preparation) and returns the Write that
// does the rest, or an error to render. Everything the response needs
// comes back from the Write. Register it with Writes.Handler; that is what
// makes the request idempotent.
type WriteHandler func(r *http.Request) (Write, error)

// Located is what a Write returns for a request whose body names a
// location: Response is the value of the response; Location is the body's
// top-level locationId (nil: none), which Writes tells the trace so that
// the request journal files the request under it without parsing the body
// again (a check push, the busiest write, is the one that needs this).
type Located struct {
	Response any
	Location *int64
}

// Writes runs WriteHandlers: the one way a request changes state, so that
// none can forget idempotent replay.
type Writes struct {
	rd    *Responder
	db    *store.DB
	log   *slog.Logger
	box   *seal.Box // seals the stored responses
	locks keylock.Set
}

// NewWrites returns the Writes of a server: records are kept in db and
// sealed with a key derived from adminKey. Expired records go with the
// retention sweep (store.Retentions).
func NewWrites(rd *Responder, db *store.DB, log *slog.Logger, adminKey string) *Writes {
	return &Writes{rd: rd, db: db, log: log, box: seal.NewLabelled(adminKey, idempotencySealLabel)}
}

// idempotencySealLabel derives the key that seals stored responses. It
// predates package seal's naming and stays as it is, so that the records
// already stored keep opening (testdata/idempotency holds one).
const idempotencySealLabel = "hospo-refserver/idempotency-seal/v1"

// writeEndpoint is the handler Writes.Handler returns.
type writeEndpoint struct {
	ws     *Writes
	status int
	h      WriteHandler
}

// Handler returns the handler of a request that changes state, answering
// status when it succeeds, and carrying out contract.md section 4. A
// request with an Idempotency-Key is looked up by (caller, key), the
// caller being the principal the guard verified (a user, a location's POS,
// a vendor API key, the admin), not the credential headers as presented:
// another token of the same user, or an extra header, does not make a
// request new. A live record with the same request hash is replayed
// (status and body, header Idempotent-Replayed: true) without running h;
// one with a different hash is a 409004, and so is one whose stored
// response cannot be opened any more (sealed under another admin key):
// a request once carried out is never carried out again under its key.
// Otherwise h runs and its Write's response is stored in the same
// transaction as its work, so both commit or neither does; an error is not
// stored (the work was not done, so a retry may run it), except one the
// Write returned through Committed, whose work stands. Concurrent
// requests with the same (caller, key) queue on a lock, so a duplicate
// sent while the first is still running waits and then replays it.
func (ws *Writes) Handler(status int, h WriteHandler) http.Handler {
	return &writeEndpoint{ws: ws, status: status, h: h}
}

// Post registers h, through Handler, as the handler of POST pattern in r.
func (ws *Writes) Post(r chi.Router, pattern string, status int, h WriteHandler) {
	r.Method(http.MethodPost, pattern, ws.Handler(status, h))
}

// IsWrite reports whether h was made by Writes.Handler.
func IsWrite(h http.Handler) bool {
	_, ok := h.(*writeEndpoint)
	return ok
}

// idemRequest is a request's Idempotency-Key with what identifies the
// request under it.
type idemRequest struct {
	credential  string // the verified caller (Principal.key)
	key         string
	requestHash string
}

// errUnreplayable answers a retry whose first response is stored but can
// no longer be opened. 409004, not a 5xx: a client retries a 5xx with the
// same key and would get the same answer forever, while 409004 tells it
// that the key is spent and the request must not be sent again as it is.
var errUnreplayable = ErrMsg(client.CodeIdempotencyKeyReused,
	"Idempotency key already used: the request was carried out, but its response can no longer be replayed "+
		"(the server's admin key has changed since). It is not carried out again; look its result up instead.")

func (e *writeEndpoint) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ws := e.ws
	vals, present := r.Header[http.CanonicalHeaderKey(HeaderIdempotencyKey)]
	if !present {
		ws.serve(w, r, e, nil)
		return
	}
	key := vals[0]
	if len(vals) > 1 || key == "" || len(key) > maxIdempotencyKey {
		ws.rd.Error(w, r, Invalid(map[string]string{
			HeaderIdempotencyKey: fmt.Sprintf("must be one header of 1 to %d characters", maxIdempotencyKey),
		}))
		return
	}
	q := RequestFrom(r.Context())
	query := r.URL.Query()
	query.Del(QueryAccessToken) // part of the credential, not of the request
	req := &idemRequest{
		credential:  q.principal.key(),
		key:         key,
		requestHash: requestHash(r, query, q.body),
	}

	unlock, err := ws.locks.Lock(r.Context(), req.credential+"\x00"+key)
	if err != nil {
		return // the client went away while waiting
	}
	defer unlock()

	var (
		rec   store.IdempotencyRecord
		found bool
	)
	err = ws.db.Read(r.Context(), func(tx *store.Tx) error {
		var err error
		rec, err = tx.GetIdempotency(req.credential, key)
		found = err == nil
		if errors.Is(err, store.ErrNotFound) {
			return nil
		}
		return err
	})
	if err != nil {
		ws.rd.Error(w, r, err)
		return
	}
	if found {
		if rec.RequestHash != req.requestHash {
			ws.rd.Error(w, r, Err(client.CodeIdempotencyKeyReused))
			return
		}
		plain, err := ws.box.Open(rec.Body, req.binding())
		if err != nil {
			// The request was carried out, but its response is sealed
			// under keys this server no longer has (another admin key).
			// Running it again could pay twice: the key stays spent.
			ws.log.Warn("idempotency record cannot be opened; not running the request again", "request_id", requestID(w))
			ws.rd.Error(w, r, errUnreplayable)
			return
		}
		w.Header().Set("Idempotent-Replayed", "true")
		writeRaw(w, rec.Status, plain)
		return
	}
	ws.serve(w, r, e, req)
}

// serve runs e's handler and its Write, storing the response under idem
// when it is not nil.
func (ws *Writes) serve(w http.ResponseWriter, r *http.Request, e *writeEndpoint, idem *idemRequest) {
	write, err := e.h(r)
	if err != nil {
		ws.rd.Error(w, r, err)
		return
	}
	x := &writeRun{ws: ws, w: w, r: r, q: RequestFrom(r.Context()), write: write, idem: idem, status: e.status}
	if err := ws.db.Write(r.Context(), x.run); err != nil {
		ws.rd.Error(w, r, goneRows(err, ws.db, x.q))
		return
	}
	if x.located {
		reportBodyLocation(w, x.location)
	}
	writeRaw(w, x.status, x.body)
}

// writeRun is a Write under way in the write transaction, with what it
// answers. Its fields live in one allocation, where a closure would move
// each variable it sets to the heap by itself.
type writeRun struct {
	ws    *Writes
	w     http.ResponseWriter
	r     *http.Request
	q     *Request
	write Write
	idem  *idemRequest

	status   int
	body     []byte
	location *int64 // Located.Location, when located
	located  bool
}

// run is the transaction of the write.
func (x *writeRun) run(tx *store.Tx) error {
	ws := x.ws
	if err := recheck(tx, ws.db, x.r, x.q); err != nil {
		return err
	}
	v, err := x.write(tx)
	switch {
	case err != nil:
		c, ok := asCommitted(err)
		if !ok {
			return err
		}
		// The work stands and the answer is an error (Committed).
		x.status, x.body = ws.rd.errorResponse(x.w, x.r, c)
	default:
		if l, ok := v.(Located); ok {
			v, x.location, x.located = l.Response, l.Location, true
		}
		if x.body, err = json.Marshal(v); err != nil {
			return err
		}
	}
	if x.idem == nil {
		return nil
	}
	return ws.remember(tx, x.idem, x.status, x.body)
}

// remember stores the response for idem in tx.
func (ws *Writes) remember(tx *store.Tx, idem *idemRequest, status int, body []byte) error {
	return tx.PutIdempotency(store.IdempotencyRecord{
		Credential:  idem.credential,
		Key:         idem.key,
		RequestHash: idem.requestHash,
		Status:      status,
		Body:        ws.box.Seal(body, idem.binding()),
	})
}

// requestHash identifies a request's content for idempotency: method, path,
// query (r's, without the access token) and body.
func requestHash(r *http.Request, query url.Values, body []byte) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\n%s\n%s\n", r.Method, r.URL.EscapedPath(), query.Encode()) // Encode sorts by key
	h.Write(body)
	return hex.EncodeToString(h.Sum(nil))
}

// Stored responses are sealed (seal.Box: AES-256-GCM under a key derived
// from the admin key) and bound to the credential and Idempotency-Key: a
// response can carry a secret (a freshly created access token or API key
// is shown once, in the creating response), and secrets never lie in the
// database in the clear.

// binding is what a stored response is bound to: a record copied to
// another caller's or key's row does not open.
func (req *idemRequest) binding() string {
	return req.credential + "\x00" + req.key
}
