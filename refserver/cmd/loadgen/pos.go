package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/possync"
)

// menu is what the simulated tills sell; prices in cents.
var menu = []struct {
	id       int64
	name     string
	category string
	price    int64
}{
	{101, "Soup of the day", "Starters", 650},
	{102, "Calamari", "Starters", 895},
	{201, "Fish and chips", "Mains", 1650},
	{202, "Steak frites", "Mains", 2450},
	{203, "Mushroom risotto", "Mains", 1425},
	{204, "Burger", "Mains", 1395},
	{301, "Sticky toffee pudding", "Desserts", 725},
	{401, "Pale ale", "Drinks", 575},
	{402, "House red", "Drinks", 695},
	{403, "Sparkling water", "Drinks", 295},
}

// counters are the load's own tallies, beside what the meter measures.
type counters struct {
	pushCalls      atomic.Int64 // Agent.Push calls
	pushRefused    atomic.Int64 // Push returned an error
	checksOpened   atomic.Int64
	checksClosed   atomic.Int64
	paymentsSaved  atomic.Int64 // SavePayment calls
	paymentsMade   atomic.Int64 // 2xx payments by customers
	paymentsFailed atomic.Int64 // customer payments that failed
}

// till is one simulated POS: it keeps a few open checks, changes one at
// every tick (an item added, a quantity changed, now and then the check
// closed and a new one opened) and hands every new state to its Agent.
// Payments the Agent collects are saved to the check, which is then pushed
// again, as a real POS does.
type till struct {
	locID  int64
	agent  *possync.Agent
	payble *payables
	cnt    *counters

	mu       sync.Mutex
	rng      *rand.Rand
	checks   map[int64]*possync.Check // every check of this till, by number
	open     []int64                  // numbers of the open ones
	changes  map[int64]int            // changes made to each open check
	next     int64                    // next check number
	maxItems int
}

func newTill(locID int64, seed uint64, openChecks int, p *payables, cnt *counters) *till {
	t := &till{
		locID: locID, payble: p, cnt: cnt,
		rng:      rand.New(rand.NewPCG(seed, uint64(locID))),
		checks:   map[int64]*possync.Check{},
		changes:  map[int64]int{},
		next:     1,
		maxItems: 8,
	}
	for range openChecks {
		t.openCheck()
	}
	return t
}

// openCheck starts a check with three items. Callers hold t.mu (or own t
// exclusively).
func (t *till) openCheck() {
	n := t.next
	t.next++
	c := &possync.Check{
		TableNumber: 1 + t.rng.IntN(40), CheckNumber: n, LocationID: t.locID,
		StaffID: fmt.Sprintf("staff-%d", 1+t.rng.IntN(6)), Guests: 1 + t.rng.IntN(6),
		Status: possync.CheckOpen, Discounts: []possync.Discount{},
	}
	for range 3 {
		t.addItem(c)
	}
	t.checks[n] = c
	t.open = append(t.open, n)
	t.changes[n] = 0
	t.cnt.checksOpened.Add(1)
}

// addItem adds a menu line and updates the amounts.
func (t *till) addItem(c *possync.Check) {
	m := menu[t.rng.IntN(len(menu))]
	price := client.MoneyFromCents(m.price)
	item := possync.MenuItem{
		ID: m.id, Name: m.name, Quantity: 1, Price: price, PriceSold: price,
		Category: possync.Category{Name: m.category, Category: &possync.Category{Name: "Food and drink"}},
	}
	if m.category == "Mains" {
		item.Modifiers = []possync.Modifier{{ID: 900, Name: "Side salad", Price: client.MoneyFromCents(0)}}
	}
	c.MenuItems = append(c.MenuItems, item)
	c.TotalAmount = c.TotalAmount.Add(price)
	c.OutstandingAmount = c.OutstandingAmount.Add(price)
}

// tick changes one open check and pushes it.
func (t *till) tick() {
	t.mu.Lock()
	i := t.rng.IntN(len(t.open))
	n := t.open[i]
	c := t.checks[n]
	t.changes[n]++
	switch {
	case t.changes[n] >= 20 && t.payble.tryClose(t.locID, n): // the table pays the rest at the till and leaves
		c.TipsPaid = c.TipsPaid.Add(client.MoneyFromCents(int64(t.rng.IntN(500))))
		c.OutstandingAmount = client.MoneyFromCents(0)
		c.Status = possync.CheckClosed
		t.open = append(t.open[:i], t.open[i+1:]...)
		delete(t.changes, n)
		t.cnt.checksClosed.Add(1)
		t.openCheck()
	case len(c.MenuItems) < t.maxItems && t.rng.IntN(2) == 0:
		t.addItem(c)
	default: // one more of an item already on the check
		j := t.rng.IntN(len(c.MenuItems))
		c.MenuItems[j].Quantity++
		c.TotalAmount = c.TotalAmount.Add(c.MenuItems[j].PriceSold)
		c.OutstandingAmount = c.OutstandingAmount.Add(c.MenuItems[j].PriceSold)
	}
	err := t.agent.Push(c) // a deep copy is queued; c stays ours
	t.mu.Unlock()
	t.cnt.pushCalls.Add(1)
	if err != nil {
		t.cnt.pushRefused.Add(1)
	}
}

// savePayment is the till's SavePaymentFunc: the payment goes onto the
// check, which is pushed again with its new outstanding amount.
func (t *till) savePayment(_ context.Context, checkNumber int64, p possync.PaymentNotification) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	c := t.checks[checkNumber]
	if c == nil {
		return fmt.Errorf("no check %d on this till", checkNumber)
	}
	c.OutstandingAmount = c.OutstandingAmount.Sub(p.PaymentExTip)
	if c.OutstandingAmount.IsNegative() {
		c.OutstandingAmount = client.MoneyFromCents(0)
	}
	c.TipsPaid = c.TipsPaid.Add(p.Tip)
	t.cnt.paymentsSaved.Add(1)
	t.cnt.pushCalls.Add(1)
	if err := t.agent.Push(c); err != nil {
		t.cnt.pushRefused.Add(1)
	}
	return nil
}

// run ticks every interval (the first tick after a random part of it, so
// tills do not tick in step) until ctx ends.
func (t *till) run(ctx context.Context, interval time.Duration) {
	t.mu.Lock()
	first := time.Duration(t.rng.Int64N(int64(interval)))
	t.mu.Unlock()
	timer := time.NewTimer(first)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
		}
		t.tick()
		timer.Reset(interval)
	}
}

// trackingAPI is the service as the Agent sees it, noting each check the
// service has stored so that customers only pay checks that exist.
type trackingAPI struct {
	possync.API
	locID  int64
	payble *payables
}

func (a trackingAPI) PushCheck(ctx context.Context, c *possync.Check, opts ...client.Option) (possync.PushResult, error) {
	res, err := a.API.PushCheck(ctx, c, opts...)
	if err == nil && res.Version == 1 {
		a.payble.add(a.locID, c.CheckNumber)
	}
	return res, err
}

// payables are the checks the service has stored, for customers to pay.
// Each check takes at most maxPayments payments of at most 1.00, under the
// 8.85 that the cheapest new check starts with, so no payment can exceed
// the outstanding amount. A check that a till wants to close while a
// payment is on its way stays open a little longer, as a waiter would wait.
type payables struct {
	mu     sync.Mutex
	checks map[checkKey]*payable
	list   []*payable // the open ones with room for a payment
	closed map[checkKey]bool
}

type checkKey struct{ locID, number int64 }

type payable struct {
	key      checkKey
	payments int // made or in flight
	inflight int
	closed   bool
}

const maxPayments = 5

func newPayables() *payables {
	return &payables{checks: map[checkKey]*payable{}, closed: map[checkKey]bool{}}
}

// add registers a check the service has stored.
func (p *payables) add(locID, number int64) {
	k := checkKey{locID, number}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.checks[k] != nil || p.closed[k] {
		return
	}
	c := &payable{key: k}
	p.checks[k] = c
	p.list = append(p.list, c)
}

// pick reserves a payment on a random open check and returns it, or nil.
// The caller calls done when the payment has been answered.
func (p *payables) pick(rng *rand.Rand) *payable {
	p.mu.Lock()
	defer p.mu.Unlock()
	for len(p.list) > 0 {
		i := rng.IntN(len(p.list))
		c := p.list[i]
		if c.closed || c.payments >= maxPayments {
			p.list[i] = p.list[len(p.list)-1] // forget it
			p.list = p.list[:len(p.list)-1]
			continue
		}
		c.payments++
		c.inflight++
		return c
	}
	return nil
}

// done ends a payment reserved by pick.
func (p *payables) done(c *payable) {
	p.mu.Lock()
	c.inflight--
	p.mu.Unlock()
}

// tryClose marks a check closed unless a payment to it is on its way, and
// reports whether it did.
func (p *payables) tryClose(locID, number int64) bool {
	k := checkKey{locID, number}
	p.mu.Lock()
	defer p.mu.Unlock()
	if c := p.checks[k]; c != nil {
		if c.inflight > 0 {
			return false
		}
		c.closed = true
		delete(p.checks, k)
		return true
	}
	p.closed[k] = true // closed before the service stored it
	return true
}
