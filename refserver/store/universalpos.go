package store

import "fmt"

// The universal POS monitor's statements: which locations have a POS, and
// the health and menus it last reported.

// Health states of a location's universal POS, as kept in
// locations.pos_health.
const (
	POSHealthOK          = "OK"
	POSHealthFailed      = "FAILED"
	POSHealthUnreachable = "UNREACHABLE"
)

// POSLocation is a location with a universal POS registered: where the POS
// is and the bearer token the service sends it.
type POSLocation struct {
	LocationID int64
	POSURL     string
	// POSTokenSealed is the bearer token as POSTokens sealed it, nil when
	// none was registered.
	POSTokenSealed []byte
}

// POSStatus is what the monitor last recorded of a location's POS.
type POSStatus struct {
	// Health is POSHealthOK, POSHealthFailed or POSHealthUnreachable; nil
	// before the first check.
	Health *string
	// HealthMessage is the POS's message (FAILED) or what went wrong
	// (UNREACHABLE); nil when OK or unchecked.
	HealthMessage *string
	// HealthCheckedAt is the Unix time of the last check; nil before it.
	HealthCheckedAt *int64
	// MenuSyncedAt is the Unix time of the last successful menu sync.
	MenuSyncedAt *int64
}

// scanPOSLocation reads location_id, pos_url and pos_token_sealed into l.
func scanPOSLocation(sc scanner, l *POSLocation) error {
	return sc.Scan(&l.LocationID, &l.POSURL, &l.POSTokenSealed)
}

// POSLocations returns every location with a universal POS, by id.
func (tx *Tx) POSLocations() ([]POSLocation, error) {
	rows, err := tx.query(`SELECT location_id, pos_url, pos_token_sealed FROM locations
		WHERE pos_url IS NOT NULL ORDER BY location_id`)
	if err != nil {
		return nil, fmt.Errorf("pos locations: %w", err)
	}
	return collect(rows, scanPOSLocation)
}

// GetPOSLocation returns the universal POS of one location, or ErrNotFound
// when the location does not exist or has no POS.
func (tx *Tx) GetPOSLocation(locationID int64) (POSLocation, error) {
	var l POSLocation
	err := scanPOSLocation(tx.queryRow(`SELECT location_id, pos_url, pos_token_sealed FROM locations
		WHERE location_id = ? AND pos_url IS NOT NULL`, locationID), &l)
	return l, notFound(err)
}

// GetPOSStatus returns the monitor's record of a location's POS, or
// ErrNotFound for an unknown location.
func (tx *Tx) GetPOSStatus(locationID int64) (POSStatus, error) {
	var s POSStatus
	err := tx.queryRow(`SELECT pos_health, pos_health_message, pos_health_checked_at, menu_synced_at
		FROM locations WHERE location_id = ?`, locationID).
		Scan(&s.Health, &s.HealthMessage, &s.HealthCheckedAt, &s.MenuSyncedAt)
	return s, notFound(err)
}

// SetPOSHealth records the outcome of a health check made at tx.Now().
// message is stored as NULL when empty. The row is only updated while the
// location is still registered with posURL, so a check that raced with a
// new registration does not overwrite the new POS's state; the result
// reports whether it was.
func (tx *Tx) SetPOSHealth(locationID int64, posURL, health, message string) (bool, error) {
	var msg *string
	if message != "" {
		msg = &message
	}
	res, err := tx.exec(`UPDATE locations SET pos_health = ?, pos_health_message = ?, pos_health_checked_at = ?
		WHERE location_id = ? AND pos_url = ?`, health, msg, tx.Unix(), locationID, posURL)
	if err != nil {
		return false, fmt.Errorf("set pos health: %w", err)
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

// SetLocationMenu stores the menus synced at tx.Now() from the location's
// POS (menuJSON is a JSON array of universal menus), under the same
// still-registered-with-posURL condition as SetPOSHealth.
func (tx *Tx) SetLocationMenu(locationID int64, posURL, menuJSON string) (bool, error) {
	res, err := tx.exec(`UPDATE locations SET menu_json = ?, menu_synced_at = ?
		WHERE location_id = ? AND pos_url = ?`, menuJSON, tx.Unix(), locationID, posURL)
	if err != nil {
		return false, fmt.Errorf("set location menu: %w", err)
	}
	n, err := res.RowsAffected()
	return n > 0, err
}
