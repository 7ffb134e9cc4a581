package sim

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/hospo-dev/hospo-go/refserver/store"
	"github.com/hospo-dev/hospo-go/sandbox"
)

// demoPOSLocationsDir holds the demo POS's part for each location:
// DemoPOSPath + "/locations/{locationId}" is a universal POS of its own
// that answers as the location's mode says, its health included.
const demoPOSLocationsDir = "/locations/"

// demoPOSOfflineMessage is what the demo POS says while a location's mode
// is offline.
const demoPOSOfflineMessage = "the demo POS is offline for this location (demo-pos mode offline)"

// demoPOSRouter serves a location's part of the demo POS with the shared
// universal POS handler (one de-duplication memory for all), the location
// in the request's context.
type demoPOSRouter struct{ pos http.Handler }

func (d demoPOSRouter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rest, ok := strings.CutPrefix(r.URL.Path, demoPOSLocationsDir)
	if !ok {
		d.pos.ServeHTTP(w, r)
		return
	}
	idText, sub, _ := strings.Cut(rest, "/")
	id, err := strconv.ParseInt(idText, 10, 64)
	if err != nil || id <= 0 {
		sub = "no such location" // the universal POS handler's 404
	}
	r2 := r.Clone(context.WithValue(r.Context(), demoPOSLocationKey{}, id))
	r2.URL.Path, r2.URL.RawPath = "/"+sub, ""
	d.pos.ServeHTTP(w, r2)
}

// demoPOSLocationKey is the context key of the location a request to a
// location's part of the demo POS is for.
type demoPOSLocationKey struct{}

// locationFrom returns the location of a request to a location's part of
// the demo POS, 0 for a request to the whole POS.
func locationFrom(ctx context.Context) int64 {
	id, _ := ctx.Value(demoPOSLocationKey{}).(int64)
	return id
}

// mode returns the demo POS mode of locationID (accept for none, and
// when the POS has no database), after the delay of mode slow.
func (p *DemoPOS) mode(ctx context.Context, locationID int64) (store.DemoPOSMode, error) {
	accept := store.DemoPOSMode{LocationID: locationID, Mode: string(sandbox.DemoPOSAccept)}
	if p.db == nil || locationID <= 0 {
		return accept, nil
	}
	var m store.DemoPOSMode
	err := p.db.Read(ctx, func(tx *store.Tx) (err error) {
		m, err = tx.GetDemoPOSMode(locationID)
		return err
	})
	if err != nil {
		return store.DemoPOSMode{}, err
	}
	if m.Mode == string(sandbox.DemoPOSSlow) && m.DelayMs > 0 {
		t := time.NewTimer(time.Duration(m.DelayMs) * time.Millisecond)
		defer t.Stop()
		select {
		case <-ctx.Done():
			return store.DemoPOSMode{}, ctx.Err()
		case <-t.C:
		}
	}
	return m, nil
}
