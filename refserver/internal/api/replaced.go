package api

import (
	"errors"
	"net/http"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/refserver/store"
)

// A reset or a snapshot restore replaces the whole data between one
// request's credential check (its guard) and its write, when the write
// queues behind it, or its read. The request record keeps the store's
// ReplaceMark from before the check; a write or read that finds the data
// replaced since (or being replaced then) checks the credential again in
// its own transaction, so that it never acts or reads for a caller that
// no longer exists (or writes rows naming one, which SQLite refuses), and
// answers the credential's own 401 instead. A credential the reset made
// again (the demo fixture's) still admits the request.

// errGoneMessage ends the message of a write refused because its
// credential or rows went with a reset or a restore.
const errGoneMessage = " The sandbox was reset or a snapshot restored while the request waited; sending it again answers from the state now."

// recheck checks q's credential again in tx when the data was replaced
// since q's guard checked it (a request without a credential has nothing
// to check).
func recheck(tx *store.Tx, db *store.DB, r *http.Request, q *Request) error {
	if db == nil || !db.ReplacedSince(q.replaced) {
		return nil
	}
	p := q.principal
	switch p.Kind {
	case KindUser, KindPOS:
		t, err := tx.LookupAccessToken(store.HashSecret(queryAccessToken(r)))
		if errors.Is(err, store.ErrNotFound) || (err == nil && (t.Revoked || tokenOwner(&t).key() != p.key())) {
			return ErrMsg(client.CodeAccessTokenInvalid, "Access token unknown."+errGoneMessage)
		}
		return err
	case KindAPIKey:
		keyID, _, err := tx.LookupAPIKey(store.HashSecret(r.Header.Get(HeaderAPIKey)))
		if errors.Is(err, store.ErrNotFound) || (err == nil && keyID != p.KeyID) {
			return ErrMsg(client.CodeAPIKeyInvalid, "API key unknown."+errGoneMessage)
		}
		return err
	}
	return nil
}

// goneRows turns the foreign key failure of a write that ran after a
// reset or restore (a row it names went with the data) into a 404001;
// any other error, and one without a reset or restore since the guard,
// stays as it is.
func goneRows(err error, db *store.DB, q *Request) error {
	if err == nil || db == nil || !db.ReplacedSince(q.replaced) || !store.IsForeignKeyViolation(err) {
		return err
	}
	return ErrMsg(client.CodeNotFound, "Not found."+errGoneMessage)
}
