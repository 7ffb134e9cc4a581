package possync

import "context"

// Store keeps an Agent's state across restarts and crashes: the checks not
// yet delivered, and the payments that SavePayment has saved but that are
// not accepted yet. Package possync/outbox provides one in a SQLite file on
// the POS machine; keeping it out of this package spares programs that only
// use the wire types (or an Agent without durability) the cgo SQLite
// driver.
//
// An Agent given a Store owns it: it loads it in NewAgent and closes it
// when Run returns (or in Close). Its methods may be called from two of
// the Agent's goroutines at once.
type Store interface {
	// Load returns the undelivered checks, oldest first, and the ids of
	// the saved but unaccepted payments.
	Load(ctx context.Context) (checks []*Check, savedPayments []int64, err error)
	// SaveChecks writes the newest state of the checks in put and removes
	// the check numbers in remove, all or nothing. Checks passed to it are
	// never changed afterwards.
	SaveChecks(ctx context.Context, put []*Check, remove []int64) error
	// PutSavedPayment records that SavePayment succeeded for a payment. It
	// must be durable when it returns: it is what keeps a payment from
	// being saved twice after a crash.
	PutSavedPayment(ctx context.Context, paymentID, checkNumber int64) error
	// DeleteSavedPayment forgets a payment once it is accepted.
	DeleteSavedPayment(ctx context.Context, paymentID int64) error
	// Close releases the store.
	Close() error
}

// CheckJSON is a queued check as the Agent keeps it: its number and its
// JSON, exactly the body of its push (Check.MarshalJSON's bytes).
type CheckJSON struct {
	CheckNumber int64
	JSON        []byte
}

// JSONStore is a Store that also takes checks already encoded. An Agent
// whose Store has SaveCheckJSON writes through it instead of SaveChecks,
// sparing a decode of every check it writes; possync/outbox's store has
// it.
type JSONStore interface {
	Store
	// SaveCheckJSON is SaveChecks with each check as its JSON. The JSON
	// belongs to the Agent, which reuses it once SaveCheckJSON returns: a
	// store must copy what it keeps.
	SaveCheckJSON(ctx context.Context, put []CheckJSON, remove []int64) error
}
