package store

import (
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
)

// HashSecret returns the hex SHA-256 of a token or key: the only form in
// which credentials are stored. The secrets are long random (or HMAC-derived)
// strings, so a plain hash is enough; a slow password hash would only cost
// time on every request.
func HashSecret(secret string) string { return SumSecret(secret).Hex() }

// SecretSum is the SHA-256 of a token or key, the bytes of its stored form.
type SecretSum [sha256.Size]byte

// SumSecret returns the SHA-256 of secret. A secret of the usual length is
// hashed from a copy on the stack: every API request hashes its access
// token, and []byte(secret) would allocate.
func SumSecret(secret string) SecretSum {
	var buf [128]byte
	return sha256.Sum256(append(buf[:0], secret...))
}

// Hex returns the stored form of s: HashSecret(secret) is
// SumSecret(secret).Hex().
func (s SecretSum) Hex() string { return hex.EncodeToString(s[:]) }

// Token kinds of the access_tokens table.
const (
	TokenKindUser = "user"
	TokenKindPOS  = "pos"
)

// AccessToken is a stored user or POS access token (without the token).
type AccessToken struct {
	Kind       string // TokenKindUser or TokenKindPOS
	UserID     int64  // user tokens
	LocationID int64  // POS tokens
	Revoked    bool
	ExpiresAt  *int64 // Unix seconds; nil: never expires
}

// Location is a row of the locations table as the core needs it.
type Location struct {
	LocationID int64
	Name       string
	Gateway    string
	POSURL     *string
	// POSTokenSealed is the bearer token of the universal POS as
	// POSTokens sealed it, nil when none is registered.
	POSTokenSealed []byte
	CreatedAt      int64
}

// InsertUser creates a user and returns its id.
func (tx *Tx) InsertUser() (int64, error) {
	now := tx.Unix()
	res, err := tx.exec(`INSERT INTO users (user_status, date_created, last_updated) VALUES (1, ?, ?)`, now, now)
	if err != nil {
		return 0, fmt.Errorf("insert user: %w", err)
	}
	return res.LastInsertId()
}

// InsertLocation creates a location without a universal POS
// (SetLocationPOS registers one, once the location's id is known to bind
// its token to).
func (tx *Tx) InsertLocation(name, gateway string) (int64, error) {
	res, err := tx.exec(`INSERT INTO locations (name, gateway, created_at) VALUES (?, ?, ?)`, name, gateway, tx.Unix())
	if err != nil {
		return 0, fmt.Errorf("insert location: %w", err)
	}
	return res.LastInsertId()
}

// GetLocation returns one location or ErrNotFound.
func (tx *Tx) GetLocation(locationID int64) (Location, error) {
	var l Location
	err := tx.queryRow(`SELECT location_id, name, gateway, pos_url, pos_token_sealed, created_at FROM locations WHERE location_id = ?`, locationID).
		Scan(&l.LocationID, &l.Name, &l.Gateway, &l.POSURL, &l.POSTokenSealed, &l.CreatedAt)
	return l, notFound(err)
}

// MissingLocations returns those of ids that name no location, in the order
// given.
func (tx *Tx) MissingLocations(ids []int64) ([]int64, error) {
	var missing []int64
	for _, id := range ids {
		var n int
		if err := tx.queryRow(`SELECT count(*) FROM locations WHERE location_id = ?`, id).Scan(&n); err != nil {
			return nil, err
		}
		if n == 0 {
			missing = append(missing, id)
		}
	}
	return missing, nil
}

// InsertUserToken stores the hash of a user access token.
func (tx *Tx) InsertUserToken(tokenHash string, userID int64, expiresAt *int64) error {
	_, err := tx.exec(`INSERT INTO access_tokens (token_hash, kind, user_id, expires_at, created_at) VALUES (?, 'user', ?, ?, ?)`,
		tokenHash, userID, expiresAt, tx.Unix())
	if err != nil {
		return fmt.Errorf("insert user token: %w", err)
	}
	return nil
}

// InsertPOSToken stores the hash of a POS access token bound to a location.
func (tx *Tx) InsertPOSToken(tokenHash string, locationID int64) error {
	_, err := tx.exec(`INSERT INTO access_tokens (token_hash, kind, location_id, created_at) VALUES (?, 'pos', ?, ?)`,
		tokenHash, locationID, tx.Unix())
	if err != nil {
		return fmt.Errorf("insert pos token: %w", err)
	}
	return nil
}

// LookupAccessToken finds a token by its hash, or returns ErrNotFound.
// Revocation and expiry are reported, not filtered, so the caller can tell
// "invalid" from "expired".
func (tx *Tx) LookupAccessToken(tokenHash string) (AccessToken, error) {
	var (
		t       AccessToken
		uid     sql.NullInt64
		lid     sql.NullInt64
		revoked int
	)
	err := tx.queryRow(`SELECT kind, user_id, location_id, revoked, expires_at FROM access_tokens WHERE token_hash = ?`, tokenHash).
		Scan(&t.Kind, &uid, &lid, &revoked, &t.ExpiresAt)
	if err != nil {
		return AccessToken{}, notFound(err)
	}
	t.UserID, t.LocationID, t.Revoked = uid.Int64, lid.Int64, revoked != 0
	return t, nil
}

// DeleteTokensOf removes every access token of the given kind that belongs
// to one of ids (user ids for user tokens, location ids for POS tokens).
func (tx *Tx) DeleteTokensOf(kind string, ids []int64) error {
	tx.AfterCommit(tx.db.tokens.forget)
	col := "user_id"
	if kind == TokenKindPOS {
		col = "location_id"
	}
	for _, id := range ids {
		if _, err := tx.exec(`DELETE FROM access_tokens WHERE kind = ? AND `+col+` = ?`, kind, id); err != nil {
			return err
		}
	}
	return nil
}

// InsertAPIKey stores the hash of a vendor API key scoped to locationIDs and
// returns the key's id.
func (tx *Tx) InsertAPIKey(keyHash string, locationIDs []int64) (int64, error) {
	res, err := tx.exec(`INSERT INTO api_keys (key_hash, created_at) VALUES (?, ?)`, keyHash, tx.Unix())
	if err != nil {
		return 0, fmt.Errorf("insert api key: %w", err)
	}
	id, err := res.LastInsertId()
	if err != nil {
		return 0, err
	}
	for _, lid := range locationIDs {
		if _, err := tx.exec(`INSERT OR IGNORE INTO api_key_locations (key_id, location_id) VALUES (?, ?)`, id, lid); err != nil {
			return 0, fmt.Errorf("insert api key location: %w", err)
		}
	}
	return id, nil
}

// SetAPIKeyHash replaces the stored hash of an API key (used when the demo
// fixture's keys are re-derived from a new admin key).
func (tx *Tx) SetAPIKeyHash(keyID int64, keyHash string) error {
	_, err := tx.exec(`UPDATE api_keys SET key_hash = ? WHERE key_id = ?`, keyHash, keyID)
	return err
}

// LookupAPIKey finds an API key by its hash and returns its id and the
// locations it is scoped to (ascending), or ErrNotFound.
func (tx *Tx) LookupAPIKey(keyHash string) (keyID int64, locationIDs []int64, err error) {
	if err := tx.queryRow(`SELECT key_id FROM api_keys WHERE key_hash = ?`, keyHash).Scan(&keyID); err != nil {
		return 0, nil, notFound(err)
	}
	locationIDs, err = tx.APIKeyLocations(keyID)
	return keyID, locationIDs, err
}

// APIKeyLocations returns the locations an API key is scoped to, ascending.
func (tx *Tx) APIKeyLocations(keyID int64) ([]int64, error) {
	rows, err := tx.query(`SELECT location_id FROM api_key_locations WHERE key_id = ? ORDER BY location_id`, keyID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	ids := []int64{}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}
