package store

import (
	"database/sql"
	"fmt"
)

// The statements of a location's presence as its events see it
// (locations.presence_online): online from a heartbeat until the heartbeat
// goes stale.

// Presence is a location's presence state.
type Presence struct {
	LocationID    int64
	Online        bool
	LastHeartbeat *int64
}

// GetPresence returns the presence of a location, or ErrNotFound.
func (tx *Tx) GetPresence(locationID int64) (Presence, error) {
	p := Presence{LocationID: locationID}
	err := tx.queryRow(`SELECT presence_online, last_heartbeat FROM locations WHERE location_id = ?`, locationID).
		Scan(&p.Online, &p.LastHeartbeat)
	return p, notFound(err)
}

// SetPresence records whether the location counts as online.
func (tx *Tx) SetPresence(locationID int64, online bool) error {
	if _, err := tx.exec(`UPDATE locations SET presence_online = ? WHERE location_id = ?`, online, locationID); err != nil {
		return fmt.Errorf("set presence: %w", err)
	}
	return nil
}

// StalePresences returns up to limit locations that count as online but
// whose last heartbeat is before before (Unix seconds), by id.
func (tx *Tx) StalePresences(before int64, limit int) ([]Presence, error) {
	rows, err := tx.query(`SELECT location_id, last_heartbeat FROM locations
		WHERE presence_online = 1 AND last_heartbeat < ? ORDER BY location_id LIMIT ?`, before, limit)
	if err != nil {
		return nil, fmt.Errorf("stale presences: %w", err)
	}
	defer rows.Close()
	var out []Presence
	for rows.Next() {
		p := Presence{Online: true}
		if err := rows.Scan(&p.LocationID, &p.LastHeartbeat); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// OldestOnlineHeartbeat returns the oldest last heartbeat of the locations
// that count as online; ok is false when none does.
func (tx *Tx) OldestOnlineHeartbeat() (at int64, ok bool, err error) {
	var v sql.NullInt64
	err = tx.queryRow(`SELECT min(last_heartbeat) FROM locations WHERE presence_online = 1`).Scan(&v)
	if err != nil {
		return 0, false, fmt.Errorf("oldest online heartbeat: %w", err)
	}
	return v.Int64, v.Valid, nil
}
