package api

import (
	"encoding/json"
	"io"
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/hospo-dev/hospo-go/refserver/store"
)

// A Read is the part of a request that reads state. It runs in a read
// transaction (one snapshot of the database) and returns the value of the
// response, sent as JSON with status 200, or an error to render instead.
// A value that is a Stream is written by the Stream, while the
// transaction is still open.
type Read func(tx *store.Tx) (any, error)

// A ReadHandler serves a request that reads state, the way a WriteHandler
// serves one that changes it: it does what needs no transaction (the path
// and query, whether the caller may ask) and returns the Read that does
// the rest, or an error to render. Register it with Reads.Get.
type ReadHandler func(r *http.Request) (Read, error)

// A Stream is a response body written as it is produced, for a list too
// long to hold in memory: a Read that returns one has it called with the
// response (status 200, Content-Type application/json, no
// Content-Length) while its transaction is still open, so that it can
// write rows as it scans them. The status is sent before the Stream runs,
// so an error it returns cannot be rendered any more: the connection is
// cut instead (the client sees a broken body, never a short one that
// parses) and the error is logged.
type Stream func(w io.Writer) error

// Reads runs ReadHandlers: the one way a request reads state, so that
// every read answers the same way (one transaction, errors rendered by
// the Responder, JSON bodies).
type Reads struct {
	rd *Responder
	db *store.DB
}

// NewReads returns the Reads of a server reading db.
func NewReads(rd *Responder, db *store.DB) *Reads {
	return &Reads{rd: rd, db: db}
}

// readEndpoint is the handler Reads.Handler returns.
type readEndpoint struct {
	rs *Reads
	h  ReadHandler
}

// Handler returns the handler of a request that reads state with h.
func (rs *Reads) Handler(h ReadHandler) http.Handler {
	return &readEndpoint{rs: rs, h: h}
}

// Get registers h, through Handler, as the handler of GET pattern in r.
func (rs *Reads) Get(r chi.Router, pattern string, h ReadHandler) {
	r.Method(http.MethodGet, pattern, rs.Handler(h))
}

// IsRead reports whether h was made by Reads.Handler.
func IsRead(h http.Handler) bool {
	_, ok := h.(*readEndpoint)
	return ok
}

func (e *readEndpoint) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rs := e.rs
	read, err := e.h(r)
	if err != nil {
		rs.rd.Error(w, r, err)
		return
	}
	var (
		body    []byte
		started bool // a Stream has sent the status
	)
	q := RequestFrom(r.Context())
	err = rs.db.Read(r.Context(), func(tx *store.Tx) error {
		v, err := read(tx)
		if err := rs.rechecked(tx, r, q, err); err != nil {
			return err
		}
		if s, ok := v.(Stream); ok {
			started = true
			h := w.Header()
			h.Set("Content-Type", "application/json")
			h.Set("Cache-Control", "no-store")
			w.WriteHeader(http.StatusOK)
			return s(w)
		}
		body, err = json.Marshal(v)
		return err
	})
	switch {
	case err != nil && started:
		rs.rd.log.Error("streamed response cut short", "request_id", requestID(w), "err", err.Error())
		panic(http.ErrAbortHandler)
	case err != nil:
		rs.rd.Error(w, r, err)
	case !started:
		writeRaw(w, http.StatusOK, body)
	}
}

// Run runs read in a read transaction for r, for a handler that reads
// outside a ReadHandler (the event feed, which waits between its reads),
// with the credential check every Read gets after it (rechecked).
func (rs *Reads) Run(r *http.Request, read func(tx *store.Tx) error) error {
	q := RequestFrom(r.Context())
	return rs.db.Read(r.Context(), func(tx *store.Tx) error {
		return rs.rechecked(tx, r, q, read(tx))
	})
}

// rechecked returns what to answer for a read of r in tx that ended with
// err. It checks r's credential again once the read's statements have
// given the transaction its snapshot: a credential that went with a reset
// or restore seen by it gets its 401 rather than what the read made of its
// rows being gone (recheck). Otherwise it is err.
func (rs *Reads) rechecked(tx *store.Tx, r *http.Request, q *Request, err error) error {
	if rerr := recheck(tx, rs.db, r, q); rerr != nil {
		return rerr
	}
	return err
}
