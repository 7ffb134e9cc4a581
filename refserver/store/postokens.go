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
func (tx *Tx) SealPlainPOSTokens(p POSTokens) (int, error) {
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
	if _, err := tx.exec(`PRAGMA secure_delete = ON`); err != nil {
		return 0, err
	}
	for _, pt := range plain {
		sealed := p.box.Seal([]byte(pt.token), posTokenBinding(pt.id))
		if _, err := tx.exec(`UPDATE locations SET pos_token_sealed = ?, pos_token_plain = NULL WHERE location_id = ?`, sealed, pt.id); err != nil {
			return 0, fmt.Errorf("seal pos token: %w", err)
		}
	}
	if _, err := tx.exec(`PRAGMA secure_delete = OFF`); err != nil {
		return 0, err
	}
	return len(plain), nil
}
