package store

// LocationDetails is what GET /v1/location/{id} shows of a location. The
// universal POS columns are written by the POS monitor; POSURL tells
// whether one is registered (its token is never read here).
type LocationDetails struct {
	LocationID         int64
	Name               string
	Gateway            string
	LastHeartbeat      *int64
	POSURL             *string
	POSHealth          *string
	POSHealthMessage   *string
	POSHealthCheckedAt *int64
	MenuSyncedAt       *int64
}

// GetLocationDetails returns a location's public details or ErrNotFound.
func (tx *Tx) GetLocationDetails(locationID int64) (LocationDetails, error) {
	var l LocationDetails
	err := tx.queryRow(`SELECT location_id, name, gateway, last_heartbeat, pos_url, pos_health,
		pos_health_message, pos_health_checked_at, menu_synced_at FROM locations WHERE location_id = ?`, locationID).
		Scan(&l.LocationID, &l.Name, &l.Gateway, &l.LastHeartbeat, &l.POSURL, &l.POSHealth,
			&l.POSHealthMessage, &l.POSHealthCheckedAt, &l.MenuSyncedAt)
	return l, notFound(err)
}
