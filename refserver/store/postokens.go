package store

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/hospo-dev/hospo-go/refserver/internal/seal"
)

// The bearer token of a location's universal POS is the one credential the
// server must send rather than check, so it cannot be kept as a hash. It
// is kept sealed instead, like the webhooks' signing secrets: in
// locations.pos_token_sealed, under a key derived from the admin key and
// bound to the location, so that the database, its WAL and every snapshot
// hold it only in a form that is useless without the admin key, and a
// sealed token copied to another location's row does not open there.

// posTokenSealPurpose names the seal.Box of the POS bearer tokens.
const posTokenSealPurpose = "pos-token/v1"

// ErrPOSTokenUnopenable is returned by POSTokens.Open for a token that was
// sealed for another location (copied from another row) or under another
// admin key. Its text is fit for a location's public POS health and an
// order's failure reason: it names no secret.
var ErrPOSTokenUnopenable = errors.New("the universal POS's bearer token cannot be opened " +
	"(it was sealed for another location, or under another admin key); register the POS again")

// POSTokens seals and opens the bearer tokens of the locations' universal
// POSes. Make it with NewPOSTokens; the zero value cannot seal. It is safe
// for concurrent use.
type POSTokens struct {
	box *seal.Box
}

// NewPOSTokens returns the POSTokens of a server whose admin key is
// adminKey.
func NewPOSTokens(adminKey string) POSTokens {
	return POSTokens{box: seal.New(adminKey, posTokenSealPurpose)}
}

// posTokenBinding is what a location's token is bound to.
func posTokenBinding(locationID int64) string {
	return "location/" + strconv.FormatInt(locationID, 10)
}

// Open returns the bearer token sealed in a location's row: "" when none
// was registered (sealed is nil), ErrPOSTokenUnopenable when the sealed
// bytes are not this location's under this admin key.
func (p POSTokens) Open(locationID int64, sealed []byte) (string, error) {
	if sealed == nil {
		return "", nil
	}
	token, err := p.box.Open(sealed, posTokenBinding(locationID))
	if err != nil {
		return "", ErrPOSTokenUnopenable
	}
	return string(token), nil
}

// SetLocationPOS registers the universal POS of a location at posURL with
// the bearer token posToken, sealed with p (a nil posToken keeps none),
// or, with a nil posURL, removes it.
func (tx *Tx) SetLocationPOS(p POSTokens, locationID int64, posURL, posToken *string) error {
	var sealed []byte
	if posURL != nil && posToken != nil {
		sealed = p.box.Seal([]byte(*posToken), posTokenBinding(locationID))
	}
	_, err := tx.exec(`UPDATE locations SET pos_url = ?, pos_token_sealed = ?, pos_token_plain = NULL WHERE location_id = ?`,
		posURL, sealed, locationID)
	if err != nil {
		return fmt.Errorf("set location pos: %w", err)
	}
	return nil
}

// SealPlainPOSTokens seals, with p, the bearer tokens that a server before
// migration 0061 kept in the clear (a database it left, or a snapshot it
// saved and that was restored since), and returns how many it sealed. The
// server calls it at start and after each restore, before anything sends
// to a POS. SQLite's secure_delete is on while it runs, so the page that
// held a token keeps no copy of it in its free space (the WAL may hold the
// old page until the next checkpoint overwrites it).
func (tx *Tx) SealPlainPOSTokens(p POSTokens) (n int, err error) {
	rows, err := tx.query(`SELECT location_id, pos_token_plain FROM locations WHERE pos_token_plain IS NOT NULL`)
	if err != nil {
		return 0, fmt.Errorf("plain pos tokens: %w", err)
	}
	type plainToken struct {
		id    int64
		token string
	}
	plain, err := collect(rows, func(sc scanner, p *plainToken) error { return sc.Scan(&p.id, &p.token) })
	if err != nil {
		return 0, err
	}
	if len(plain) == 0 {
		return 0, nil
	}
	restore, err := tx.secureDelete()
	if err != nil {
		return 0, err
	}
	defer func() {
		if rerr := restore(); rerr != nil {
			n, err = 0, errors.Join(err, rerr)
		}
	}()
	for _, pt := range plain {
		sealed := p.box.Seal([]byte(pt.token), posTokenBinding(pt.id))
		if _, err := tx.exec(`UPDATE locations SET pos_token_sealed = ?, pos_token_plain = NULL WHERE location_id = ?`, sealed, pt.id); err != nil {
			return 0, fmt.Errorf("seal pos token: %w", err)
		}
	}
	return len(plain), nil
}

// secureDelete turns SQLite's secure_delete on, and returns the function
// that puts it back as it was. The setting belongs to the connection, not
// to the transaction: a rollback keeps it, so without restore it would
// stay on for every later write of the pooled connection.
func (tx *Tx) secureDelete() (restore func() error, err error) {
	var was int
	if err := tx.queryRow(`PRAGMA secure_delete`).Scan(&was); err != nil {
		return nil, fmt.Errorf("secure_delete: %w", err)
	}
	if _, err := tx.exec(`PRAGMA secure_delete = ON`); err != nil {
		return nil, fmt.Errorf("secure_delete: %w", err)
	}
	// The setting reads back as 0, 1 or 2 (FAST), but only the names
	// set each of the three.
	back := "OFF"
	switch was {
	case 1:
		back = "ON"
	case 2:
		back = "FAST"
	}
	return func() error {
		if _, err := tx.exec(`PRAGMA secure_delete = ` + back); err != nil {
			return fmt.Errorf("secure_delete: %w", err)
		}
		return nil
	}, nil
}
