package sim

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"sync"

	"github.com/hospo-dev/hospo-go/refserver/store"
	"github.com/hospo-dev/hospo-go/sandbox"
	"github.com/hospo-dev/hospo-go/universalpos"
)

// DemoPOS is the sandbox's built-in universal POS: a universalpos.Provider
// with the cafe and grill menu of DemoMenus. The demo locations are
// registered with it, so the service's menu sync, health checks and order
// delivery all have something real to talk to without a vendor.
//
// It keeps no orders beyond a count, and NewDemoPOSHandler's handler does
// the de-duplication. How it answers a location follows the location's
// mode (PUT /sandbox/locations/{id}/demo-pos, see DemoPOSModes): it can
// reject orders, fail a number of them first, answer slowly or be
// offline. A location's orders name it (posLocationId); its health checks
// do when the location is wired to its own part of the POS
// (Demo.LocationPOSURL), which setting a mode does.
type DemoPOS struct {
	menus    []universalpos.Menu
	instance string    // distinguishes posOrderIds across restarts
	db       *store.DB // the locations' modes; nil: accept everything

	mu     sync.Mutex
	orders int64
}

// NewDemoPOS returns a demo POS serving DemoMenus, reading the locations'
// modes from db (nil: it accepts every order of every location).
func NewDemoPOS(db *store.DB) *DemoPOS {
	var b [3]byte
	_, _ = rand.Read(b[:])
	return &DemoPOS{menus: DemoMenus(), instance: hex.EncodeToString(b[:]), db: db}
}

// NewDemoPOSHandler returns the HTTP side of a new DemoPOS over db (see
// NewDemoPOS), accepting the bearer token DemoPOSToken(adminKey). Mount
// it under DemoPOSPath with http.StripPrefix. Besides the universal POS
// at its root, it serves each location's part under
// /locations/{locationId}/.
func NewDemoPOSHandler(adminKey string, db *store.DB, logger *slog.Logger) http.Handler {
	return demoPOSRouter{universalpos.NewHandler(NewDemoPOS(db), universalpos.HandlerOptions{
		Token:  DemoPOSToken(adminKey),
		Logger: logger,
	})}
}

// Health implements universalpos.Provider: the demo POS is up, unless the
// location asking is in mode offline.
func (p *DemoPOS) Health(ctx context.Context) (universalpos.HealthStatus, error) {
	m, err := p.mode(ctx, locationFrom(ctx))
	if err != nil {
		return universalpos.HealthStatus{}, err
	}
	if m.Mode == string(sandbox.DemoPOSOffline) {
		return universalpos.HealthStatus{Status: universalpos.HealthFailed, Message: demoPOSOfflineMessage}, nil
	}
	return universalpos.HealthStatus{Status: universalpos.HealthOK}, nil
}

// Menus implements universalpos.Provider.
func (p *DemoPOS) Menus(ctx context.Context) ([]universalpos.Menu, error) {
	m, err := p.mode(ctx, locationFrom(ctx))
	if err != nil {
		return nil, err
	}
	if m.Mode == string(sandbox.DemoPOSOffline) {
		return nil, errors.New(demoPOSOfflineMessage)
	}
	return p.menus, nil
}

// CreateOrder implements universalpos.Provider. The order's location's
// mode goes first: reject refuses it (422), offline and the first
// failures of fail-then-accept answer 503. Then, like a real POS, it
// refuses (422, final) an order naming a PLU it does not sell or an item
// that is sold out; otherwise it returns a new posOrderId such as
// "DEMO-3fa9c1-000042".
func (p *DemoPOS) CreateOrder(ctx context.Context, o universalpos.Order) (string, error) {
	loc := locationFrom(ctx)
	if loc == 0 {
		loc, _ = strconv.ParseInt(o.POSLocationID, 10, 64)
	}
	m, err := p.mode(ctx, loc)
	if err != nil {
		return "", err
	}
	switch sandbox.DemoPOSMode(m.Mode) {
	case sandbox.DemoPOSReject:
		return "", universalpos.RejectOrder("the demo POS rejects every order of this location (demo-pos mode reject)", nil)
	case sandbox.DemoPOSOffline:
		return "", &universalpos.Error{StatusCode: http.StatusServiceUnavailable, Message: demoPOSOfflineMessage}
	case sandbox.DemoPOSFailThenAccept:
		var fail bool
		err := p.db.Write(ctx, func(tx *store.Tx) (err error) {
			fail, err = tx.TakeDemoPOSFailure(loc)
			return err
		})
		if err != nil {
			return "", err
		}
		if fail {
			return "", &universalpos.Error{StatusCode: http.StatusServiceUnavailable,
				Message: "the demo POS fails this order (demo-pos mode fail-then-accept)"}
		}
	}
	if bad := p.unknownPLUs(o); len(bad) > 0 {
		return "", universalpos.RejectOrder("the order names things this POS does not sell", bad)
	}
	p.mu.Lock()
	p.orders++
	n := p.orders
	p.mu.Unlock()
	return fmt.Sprintf("DEMO-%s-%06d", p.instance, n), nil
}

// OrderCount returns how many orders this demo POS has created.
func (p *DemoPOS) OrderCount() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.orders
}

// unknownPLUs checks every line against the menu: a top-level line is an
// available item with options from its modifier groups, or a deal whose
// options are available items of the deal's groups with their own options.
func (p *DemoPOS) unknownPLUs(o universalpos.Order) map[string]string {
	bad := map[string]string{}
	for i, line := range o.Items {
		path := "items[" + strconv.Itoa(i) + "]"
		if it, ok := p.findItem(line.PLU); ok {
			if !it.Available {
				bad[path+".plu"] = "sold out"
				continue
			}
			checkOptions(path, it.Modifiers, line.Options, bad)
			continue
		}
		deal, ok := p.findDeal(line.PLU)
		if !ok {
			bad[path+".plu"] = "unknown plu"
			continue
		}
		for j, chosen := range line.Options {
			cpath := path + ".options[" + strconv.Itoa(j) + "]"
			it, ok := p.findItem(chosen.PLU)
			switch {
			case !ok || !dealOffers(deal, chosen.PLU):
				bad[cpath+".plu"] = "not an item of this deal"
			case !it.Available:
				bad[cpath+".plu"] = "sold out"
			default:
				checkOptions(cpath, it.Modifiers, chosen.Options, bad)
			}
		}
	}
	return bad
}

func checkOptions(path string, groups []universalpos.ModifierGroup, chosen []universalpos.OrderOption, bad map[string]string) {
	for j, c := range chosen {
		cpath := path + ".options[" + strconv.Itoa(j) + "]"
		opt, ok := findOption(groups, c.PLU)
		if !ok {
			bad[cpath+".plu"] = "not an option of this item"
			continue
		}
		checkOptions(cpath, opt.Modifiers, c.Options, bad)
	}
}

func findOption(groups []universalpos.ModifierGroup, plu string) (universalpos.Option, bool) {
	for _, g := range groups {
		for _, o := range g.Options {
			if o.PLU == plu {
				return o, true
			}
		}
	}
	return universalpos.Option{}, false
}

func (p *DemoPOS) findItem(plu string) (universalpos.Item, bool) {
	for _, m := range p.menus {
		if it, ok := m.FindItem(plu); ok {
			return it, true
		}
	}
	return universalpos.Item{}, false
}

func (p *DemoPOS) findDeal(plu string) (universalpos.Deal, bool) {
	for _, m := range p.menus {
		if d, ok := m.FindDeal(plu); ok {
			return d, true
		}
	}
	return universalpos.Deal{}, false
}

func dealOffers(d universalpos.Deal, plu string) bool {
	for _, g := range d.Groups {
		for _, p := range g.Items {
			if p == plu {
				return true
			}
		}
	}
	return false
}
