package store

import "time"

// IdempotencyRecord is a response remembered for Idempotency-Key replay.
type IdempotencyRecord struct {
	Credential  string // hex SHA-256 of the credential that sent the request
	Key         string // the Idempotency-Key header
	RequestHash string // hex SHA-256 of method, path and body
	Status      int
	Body        []byte // as stored (the server seals it)
	CreatedAt   int64
}

// IdempotencyRetention is how long a response is replayed.
const IdempotencyRetention = 24 * time.Hour

// GetIdempotency returns the live record for (credential, key), or
// ErrNotFound when there is none or it is older than IdempotencyRetention.
func (tx *Tx) GetIdempotency(credential, key string) (IdempotencyRecord, error) {
	r := IdempotencyRecord{Credential: credential, Key: key}
	cutoff := tx.Now().Add(-IdempotencyRetention).Unix()
	err := tx.queryRow(`SELECT request_hash, status, body, created_at FROM idempotency_keys
		WHERE credential = ? AND idem_key = ? AND created_at > ?`, credential, key, cutoff).
		Scan(&r.RequestHash, &r.Status, &r.Body, &r.CreatedAt)
	return r, notFound(err)
}

// PutIdempotency stores a record, replacing an expired one for the same
// (credential, key).
func (tx *Tx) PutIdempotency(r IdempotencyRecord) error {
	_, err := tx.exec(`INSERT OR REPLACE INTO idempotency_keys
		(credential, idem_key, request_hash, status, body, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
		r.Credential, r.Key, r.RequestHash, r.Status, r.Body, tx.Unix())
	return err
}
