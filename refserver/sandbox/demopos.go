package sandbox

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"sync"

	"github.com/hospo-dev/hospo-go/universalpos"
)

// DemoPOS is the sandbox's built-in universal POS: a universalpos.Provider
// with the cafe and grill menu of DemoMenus. The demo locations are
// registered with it, so the service's menu sync, health checks and order
// delivery all have something real to talk to without a vendor.
//
// It keeps no orders beyond a count, and NewDemoPOSHandler's handler does
// the de-duplication. To make it fail for a demo, register a sandbox fault
// on its path (POST /sandbox/faults with pathPrefix
// "/sandbox/demo-pos/orders" and status 500, or a latencyMs beyond the
// service's timeout).
type DemoPOS struct {
	menus    []universalpos.Menu
	instance string // distinguishes posOrderIds across restarts

	mu     sync.Mutex
	orders int64
}

// NewDemoPOS returns a demo POS serving DemoMenus.
func NewDemoPOS() *DemoPOS {
	var b [3]byte
	_, _ = rand.Read(b[:])
	return &DemoPOS{menus: DemoMenus(), instance: hex.EncodeToString(b[:])}
}

// NewDemoPOSHandler returns the HTTP side of a new DemoPOS, accepting the
// bearer token DemoPOSToken(adminKey). Mount it under DemoPOSPath with
// http.StripPrefix.
func NewDemoPOSHandler(adminKey string, logger *slog.Logger) http.Handler {
	return universalpos.NewHandler(NewDemoPOS(), universalpos.HandlerOptions{
		Token:  DemoPOSToken(adminKey),
		Logger: logger,
	})
}

// Health implements universalpos.Provider: the demo POS is always up.
func (p *DemoPOS) Health(context.Context) (universalpos.HealthStatus, error) {
	return universalpos.HealthStatus{Status: universalpos.HealthOK}, nil
}

// Menus implements universalpos.Provider.
func (p *DemoPOS) Menus(context.Context) ([]universalpos.Menu, error) {
	return DemoMenus(), nil
}

// CreateOrder implements universalpos.Provider. Like a real POS it refuses
// (422, final) an order naming a PLU it does not sell or an item that is
// sold out; otherwise it returns a new posOrderId such as
// "DEMO-3fa9c1-000042".
func (p *DemoPOS) CreateOrder(_ context.Context, o universalpos.Order) (string, error) {
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
