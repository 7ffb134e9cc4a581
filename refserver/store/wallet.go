package store

import (
	"database/sql"
	"fmt"
	"strings"
	"time"
)

// Card is a wallet entry (a row of cards) with the providers whose tokens
// it holds. It never holds a full card number or CVC: the table has no
// column for either.
type Card struct {
	CardID       int64
	UserID       int64
	First6       string
	Last4        string
	Nickname     string
	CardTypeID   int
	CardStatusID int
	ExpiryMonth  string // "01".."12"
	ExpiryYear   string // two digits
	CreatedAt    int64
	// Providers lists the providers with a token for the entry, in name
	// order. Filled by WalletCards and GetCard.
	Providers []string
}

// WalletUser is a users row as the wallet shows it.
type WalletUser struct {
	UserID        int64
	UserStatus    int
	DefaultCardID *int64
	DateCreated   int64
	LastUpdated   int64
}

// ProviderToken is a token issued by a sandbox payment provider, as the
// provider itself records it.
type ProviderToken struct {
	Token       string
	Provider    string
	First6      string
	Last4       string
	ExpiryMonth int
	ExpiryYear  int
	Decline     bool // every payment with the token is declined
	// DeclineCode is the declineCode a declined payment reports (a magic
	// card's); "" for none.
	DeclineCode string
	CreatedAt   int64
}

// ProviderDKey is a key handed out by GET /v2/payment/providerD/keys.
type ProviderDKey struct {
	KeyID      string
	UserID     int64
	PrivateJWK string
	CreatedAt  int64
	ExpiresAt  int64
	UsedAt     *int64 // the provider issued its one token
	ConsumedAt *int64 // a card insert stored that token
}

// GetWalletUser returns the user or ErrNotFound.
func (tx *Tx) GetWalletUser(userID int64) (WalletUser, error) {
	var u WalletUser
	err := tx.queryRow(`SELECT user_id, user_status, default_card_id, date_created, last_updated
		FROM users WHERE user_id = ?`, userID).
		Scan(&u.UserID, &u.UserStatus, &u.DefaultCardID, &u.DateCreated, &u.LastUpdated)
	return u, notFound(err)
}

// SetDefaultCard makes cardID the user's default card.
func (tx *Tx) SetDefaultCard(userID, cardID int64) error {
	_, err := tx.exec(`UPDATE users SET default_card_id = ?, last_updated = ? WHERE user_id = ?`, cardID, tx.Unix(), userID)
	if err != nil {
		return fmt.Errorf("set default card: %w", err)
	}
	return nil
}

// TouchUser sets the user's last_updated to the transaction's time.
func (tx *Tx) TouchUser(userID int64) error {
	_, err := tx.exec(`UPDATE users SET last_updated = ? WHERE user_id = ?`, tx.Unix(), userID)
	if err != nil {
		return fmt.Errorf("touch user: %w", err)
	}
	return nil
}

// InsertCard adds a wallet entry (without tokens; see InsertCardToken) and
// returns its id. Ids grow with every insert.
func (tx *Tx) InsertCard(c Card) (int64, error) {
	res, err := tx.exec(`INSERT INTO cards (user_id, first6, last4, nickname, card_type_id, card_status_id,
		expiry_month, expiry_year, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		c.UserID, c.First6, c.Last4, c.Nickname, c.CardTypeID, c.CardStatusID, c.ExpiryMonth, c.ExpiryYear, tx.Unix())
	if err != nil {
		return 0, fmt.Errorf("insert card: %w", err)
	}
	return res.LastInsertId()
}

// InsertCardToken stores provider's token for a wallet entry.
func (tx *Tx) InsertCardToken(cardID int64, provider, token string) error {
	_, err := tx.exec(`INSERT INTO card_tokens (card_id, provider, token, created_at) VALUES (?, ?, ?, ?)`,
		cardID, provider, token, tx.Unix())
	if err != nil {
		return fmt.Errorf("insert card token: %w", err)
	}
	return nil
}

// cardColumns are the columns scanCard reads; providers is the entry's
// token providers joined with commas.
const cardColumns = `c.card_id, c.user_id, c.first6, c.last4, c.nickname, c.card_type_id, c.card_status_id,
	c.expiry_month, c.expiry_year, c.created_at,
	(SELECT group_concat(provider, ',') FROM (SELECT provider FROM card_tokens t WHERE t.card_id = c.card_id ORDER BY provider))`

func scanCard(sc scanner) (Card, error) {
	var (
		c         Card
		providers sql.NullString
	)
	err := sc.Scan(&c.CardID, &c.UserID, &c.First6, &c.Last4, &c.Nickname, &c.CardTypeID, &c.CardStatusID,
		&c.ExpiryMonth, &c.ExpiryYear, &c.CreatedAt, &providers)
	if err != nil {
		return Card{}, err
	}
	if providers.Valid && providers.String != "" {
		c.Providers = strings.Split(providers.String, ",")
	}
	return c, nil
}

// WalletCards returns the user's wallet entries, oldest first.
func (tx *Tx) WalletCards(userID int64) ([]Card, error) {
	rows, err := tx.query(`SELECT `+cardColumns+` FROM cards c WHERE c.user_id = ? ORDER BY c.card_id`, userID)
	if err != nil {
		return nil, fmt.Errorf("wallet cards: %w", err)
	}
	defer rows.Close()
	var out []Card
	for rows.Next() {
		c, err := scanCard(rows)
		if err != nil {
			return nil, fmt.Errorf("wallet cards: %w", err)
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("wallet cards: %w", err)
	}
	return out, nil
}

// GetCard returns one wallet entry, whoever owns it, or ErrNotFound.
func (tx *Tx) GetCard(cardID int64) (Card, error) {
	c, err := scanCard(tx.queryRow(`SELECT `+cardColumns+` FROM cards c WHERE c.card_id = ?`, cardID))
	return c, notFound(err)
}

// SetCardStatus changes an entry's status; ErrNotFound for an unknown id.
func (tx *Tx) SetCardStatus(cardID int64, status int) error {
	res, err := tx.exec(`UPDATE cards SET card_status_id = ? WHERE card_id = ?`, status, cardID)
	if err != nil {
		return fmt.Errorf("set card status: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("set card status: %w", err)
	} else if n == 0 {
		return ErrNotFound
	}
	return nil
}

// CardToken returns provider's token of a wallet entry, or ErrNotFound when
// the entry holds none for that provider.
func (tx *Tx) CardToken(cardID int64, provider string) (string, error) {
	var token string
	err := tx.queryRow(`SELECT token FROM card_tokens WHERE card_id = ? AND provider = ?`, cardID, provider).Scan(&token)
	return token, notFound(err)
}

// InsertProviderToken records a token a sandbox provider issued.
func (tx *Tx) InsertProviderToken(p ProviderToken) error {
	_, err := tx.exec(`INSERT INTO provider_tokens (token, provider, first6, last4, expiry_month, expiry_year, decline, decline_code, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, NULLIF(?, ''), ?)`,
		p.Token, p.Provider, p.First6, p.Last4, p.ExpiryMonth, p.ExpiryYear, p.Decline, p.DeclineCode, tx.Unix())
	if err != nil {
		return fmt.Errorf("insert provider token: %w", err)
	}
	return nil
}

// GetProviderToken returns a provider's record of token, or ErrNotFound.
func (tx *Tx) GetProviderToken(token string) (ProviderToken, error) {
	var p ProviderToken
	err := tx.queryRow(`SELECT token, provider, first6, last4, expiry_month, expiry_year, decline, COALESCE(decline_code, ''), created_at
		FROM provider_tokens WHERE token = ?`, token).
		Scan(&p.Token, &p.Provider, &p.First6, &p.Last4, &p.ExpiryMonth, &p.ExpiryYear, &p.Decline, &p.DeclineCode, &p.CreatedAt)
	return p, notFound(err)
}

// InsertProviderDKey stores a providerD key handed out to a user.
func (tx *Tx) InsertProviderDKey(k ProviderDKey) error {
	_, err := tx.exec(`INSERT INTO providerd_keys (key_id, user_id, private_jwk, created_at, expires_at)
		VALUES (?, ?, ?, ?, ?)`, k.KeyID, k.UserID, k.PrivateJWK, tx.Unix(), k.ExpiresAt)
	if err != nil {
		return fmt.Errorf("insert providerD key: %w", err)
	}
	return nil
}

// OpenProviderDKeys returns how many providerD keys userID holds that are
// neither used nor expired, and when the first of them expires (Unix
// seconds; 0 when there is none).
func (tx *Tx) OpenProviderDKeys(userID int64) (n int, firstExpiry int64, err error) {
	var first sql.NullInt64
	err = tx.queryRow(`SELECT count(*), min(expires_at) FROM providerd_keys
		WHERE user_id = ? AND used_at IS NULL AND expires_at > ?`, userID, tx.Unix()).Scan(&n, &first)
	if err != nil {
		return 0, 0, fmt.Errorf("count open providerD keys: %w", err)
	}
	return n, first.Int64, nil
}

// ProviderDKeyRetention is how long a providerD key is kept after it
// expired, so that a late tokenisation or card insert is still told "key
// expired" rather than "unknown key".
const ProviderDKeyRetention = 24 * time.Hour

// GetProviderDKey returns a providerD key or ErrNotFound.
func (tx *Tx) GetProviderDKey(keyID string) (ProviderDKey, error) {
	var k ProviderDKey
	err := tx.queryRow(`SELECT key_id, user_id, private_jwk, created_at, expires_at, used_at, consumed_at
		FROM providerd_keys WHERE key_id = ?`, keyID).
		Scan(&k.KeyID, &k.UserID, &k.PrivateJWK, &k.CreatedAt, &k.ExpiresAt, &k.UsedAt, &k.ConsumedAt)
	return k, notFound(err)
}

// MarkProviderDKeyUsed records that the provider issued the key's token.
// It returns ErrNotFound unless the key exists and was unused, so two
// racing tokenisations cannot both succeed.
func (tx *Tx) MarkProviderDKeyUsed(keyID string) error {
	return tx.markProviderDKey(`UPDATE providerd_keys SET used_at = ? WHERE key_id = ? AND used_at IS NULL`, keyID)
}

// MarkProviderDKeyConsumed records that a card insert stored the key's
// token. It returns ErrNotFound unless the key was used and not consumed.
func (tx *Tx) MarkProviderDKeyConsumed(keyID string) error {
	return tx.markProviderDKey(`UPDATE providerd_keys SET consumed_at = ?
		WHERE key_id = ? AND used_at IS NOT NULL AND consumed_at IS NULL`, keyID)
}

func (tx *Tx) markProviderDKey(query, keyID string) error {
	res, err := tx.exec(query, tx.Unix(), keyID)
	if err != nil {
		return fmt.Errorf("update providerD key: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("update providerD key: %w", err)
	} else if n == 0 {
		return ErrNotFound
	}
	return nil
}
