package universalpos

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"strings"

	"github.com/hospo-dev/hospo-go/internal/keylock"
)

// DefaultMaxBodyBytes is the largest order body NewHandler reads by
// default: 1 MiB, the same limit as the service's own API.
const DefaultMaxBodyBytes = 1 << 20

// HandlerOptions configures NewHandler.
type HandlerOptions struct {
	// Token is the bearer token the POS vendor issued to the service for
	// this POS. Requests must carry "Authorization: Bearer <Token>"; the
	// comparison takes constant time. With neither Token nor Authorize
	// set, every request is refused: the handler never runs open.
	Token string
	// Authorize, when set, decides instead of Token which bearer tokens
	// are accepted: for example a token per location, or two tokens while
	// one is being rotated. It should compare in constant time
	// (crypto/subtle). It gets "" when the request carries no bearer token.
	Authorize func(r *http.Request, token string) bool
	// Orders is the de-duplication memory; nil means a
	// NewMemoryOrderStore(DefaultMemoryOrders). See OrderStore for when to
	// replace it.
	Orders OrderStore
	// MaxBodyBytes limits the order body; 0 means DefaultMaxBodyBytes.
	MaxBodyBytes int64
	// Logger receives provider and store errors; nil discards them.
	// Tokens are never logged.
	Logger *slog.Logger
}

// NewHandler returns the HTTP side of a universal POS: GET /health,
// GET /menus and POST /orders, served from p.
//
// The handler checks the bearer token (401 without it or with a wrong
// one), validates the order body (400 with {"error", "fields"} naming
// each bad JSON path; 413 over the size limit; 415 unless the body is
// application/json), and de-duplicates orders by orderId: the first send
// calls p.CreateOrder and answers 201 {"posOrderId"}; a resend of the same
// orderId answers 200 with the first posOrderId without calling
// CreateOrder, including when the resend arrives while the first is still
// being created. Other paths are 404 and other methods 405.
//
// Mount it at the POS's base URL; under a path prefix, wrap it in
// http.StripPrefix.
func NewHandler(p Provider, opts HandlerOptions) http.Handler {
	h := &handler{p: p, opts: opts, orders: opts.Orders, log: opts.Logger, maxBody: opts.MaxBodyBytes}
	if h.orders == nil {
		h.orders = NewMemoryOrderStore(DefaultMemoryOrders)
	}
	if h.log == nil {
		h.log = slog.New(slog.DiscardHandler)
	}
	if h.maxBody <= 0 {
		h.maxBody = DefaultMaxBodyBytes
	}
	if opts.Token != "" {
		sum := sha256.Sum256([]byte(opts.Token))
		h.tokenHash = sum[:]
	}
	return h
}

type handler struct {
	p         Provider
	opts      HandlerOptions
	orders    OrderStore
	locks     keylock.Set
	log       *slog.Logger
	maxBody   int64
	tokenHash []byte
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var method string
	var serve func(http.ResponseWriter, *http.Request)
	switch r.URL.Path {
	case "/health":
		method, serve = http.MethodGet, h.health
	case "/menus":
		method, serve = http.MethodGet, h.menus
	case "/orders":
		method, serve = http.MethodPost, h.createOrder
	default:
		writeError(w, http.StatusNotFound, &Error{Message: "no such endpoint; the contract has GET /health, GET /menus and POST /orders"})
		return
	}
	if !h.authorized(r) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="universal-pos"`)
		writeError(w, http.StatusUnauthorized, &Error{Message: "missing or invalid bearer token"})
		return
	}
	if r.Method != method {
		w.Header().Set("Allow", method)
		writeError(w, http.StatusMethodNotAllowed, &Error{Message: r.URL.Path + " takes " + method})
		return
	}
	defer func() {
		if v := recover(); v != nil {
			if v == http.ErrAbortHandler {
				panic(v)
			}
			h.log.Error("universalpos: provider panicked", "path", r.URL.Path, "panic", v)
			writeError(w, http.StatusInternalServerError, &Error{Message: "internal error"})
		}
	}()
	serve(w, r)
}

// authorized checks the bearer token. Both sides are hashed before the
// constant-time comparison so that not even the token's length leaks
// through timing.
func (h *handler) authorized(r *http.Request) bool {
	token := bearerToken(r)
	if h.opts.Authorize != nil {
		return h.opts.Authorize(r, token)
	}
	if h.tokenHash == nil || token == "" {
		return false
	}
	got := sha256.Sum256([]byte(token))
	return subtle.ConstantTimeCompare(got[:], h.tokenHash) == 1
}

// bearerToken returns the token of an "Authorization: Bearer <token>"
// header (scheme case-insensitive, as RFC 6750 allows), or "".
func bearerToken(r *http.Request) string {
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return ""
	}
	return strings.TrimSpace(token)
}

func (h *handler) health(w http.ResponseWriter, r *http.Request) {
	st, err := h.p.Health(r.Context())
	switch {
	case err != nil:
		h.log.Error("universalpos: health check failed", "err", err)
		st = HealthStatus{Status: HealthFailed, Message: "health check failed"}
	case st.Status == HealthOK:
		st.Message = ""
	case st.Status != HealthFailed:
		// The contract knows two states; anything else is not OK.
		h.log.Warn("universalpos: provider returned an unknown health status", "status", string(st.Status))
		st = HealthStatus{Status: HealthFailed, Message: "unknown health status " + string(st.Status)}
	}
	if st.Status == HealthFailed && st.Message == "" {
		st.Message = "unavailable"
	}
	writeJSON(w, http.StatusOK, st)
}

// menusBody is the body of GET /menus.
type menusBody struct {
	Menus []Menu `json:"menus"`
}

func (h *handler) menus(w http.ResponseWriter, r *http.Request) {
	menus, err := h.p.Menus(r.Context())
	if err != nil {
		h.log.Error("universalpos: menus failed", "err", err)
		writeError(w, http.StatusInternalServerError, &Error{Message: "menus unavailable"})
		return
	}
	writeJSON(w, http.StatusOK, menusBody{Menus: nonNil(menus)})
}

// orderCreated is the body of a successful POST /orders.
type orderCreated struct {
	POSOrderID string `json:"posOrderId"`
}

func (h *handler) createOrder(w http.ResponseWriter, r *http.Request) {
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		writeError(w, http.StatusUnsupportedMediaType, &Error{Message: "Content-Type must be application/json"})
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, h.maxBody))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			writeError(w, http.StatusRequestEntityTooLarge, &Error{Message: "order body too large"})
			return
		}
		writeError(w, http.StatusBadRequest, &Error{Message: "could not read the body"})
		return
	}
	order, err := DecodeOrder(body)
	if err != nil {
		writeError(w, http.StatusBadRequest, err)
		return
	}

	ctx := r.Context()
	unlock, err := h.locks.Lock(ctx, order.OrderID)
	if err != nil {
		writeError(w, http.StatusServiceUnavailable, &Error{Message: "request cancelled"})
		return
	}
	defer unlock()
	if locker, ok := h.orders.(OrderLocker); ok {
		unlockShared, err := locker.LockOrder(ctx, order.OrderID)
		if err != nil {
			h.log.Error("universalpos: order lock failed", "orderId", order.OrderID, "err", err)
			writeError(w, http.StatusServiceUnavailable, &Error{Message: "order store unavailable"})
			return
		}
		defer unlockShared()
	}

	if posID, found, err := h.orders.Get(ctx, order.OrderID); err != nil {
		h.log.Error("universalpos: order store lookup failed", "orderId", order.OrderID, "err", err)
		writeError(w, http.StatusServiceUnavailable, &Error{Message: "order store unavailable"})
		return
	} else if found {
		writeJSON(w, http.StatusOK, orderCreated{POSOrderID: posID})
		return
	}

	posID, err := h.p.CreateOrder(ctx, order)
	if err != nil {
		var e *Error
		if errors.As(err, &e) && e.StatusCode >= 400 && e.StatusCode <= 599 {
			if e.StatusCode >= 500 {
				h.log.Error("universalpos: CreateOrder failed", "orderId", order.OrderID, "err", err)
			}
			writeError(w, e.StatusCode, e)
			return
		}
		h.log.Error("universalpos: CreateOrder failed", "orderId", order.OrderID, "err", err)
		writeError(w, http.StatusInternalServerError, &Error{Message: "internal error"})
		return
	}
	if posID == "" {
		h.log.Error("universalpos: CreateOrder returned an empty posOrderId", "orderId", order.OrderID)
		writeError(w, http.StatusInternalServerError, &Error{Message: "internal error"})
		return
	}
	if err := h.orders.Put(ctx, order.OrderID, posID); err != nil {
		// The order exists; answering an error would make the service
		// send it again. Log it so the vendor can fix the store.
		h.log.Error("universalpos: order store write failed; a resend may create a duplicate",
			"orderId", order.OrderID, "posOrderId", posID, "err", err)
	}
	writeJSON(w, http.StatusCreated, orderCreated{POSOrderID: posID})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		b = []byte(`{"error":"internal error"}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}

// writeError writes the contract's error body. Only an *Error's Message and
// Fields are sent; any other error becomes a generic message.
func writeError(w http.ResponseWriter, status int, err error) {
	body := errorBody{Error: http.StatusText(status)}
	var e *Error
	if errors.As(err, &e) {
		if e.Message != "" {
			body.Error = e.Message
		}
		body.Fields = e.Fields
	}
	writeJSON(w, status, body)
}
