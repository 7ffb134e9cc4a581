package universalpos

import (
	"container/list"
	"context"
	"sync"
)

// OrderStore is the de-duplication memory of NewHandler: which posOrderId
// was returned for which orderId. The service sends an order again when it
// saw no answer (a timeout, a 5xx), and the contract says the resend gets
// the first posOrderId back without a second order being created.
//
// The default, MemoryOrderStore, lives in one process and is lost on
// restart. A vendor that runs several instances behind a load balancer, or
// that restarts while orders are in flight, should plug in shared, durable
// storage (a table keyed by orderId in its own database), because a resend
// may reach another instance. Such a store should also implement
// OrderLocker, so that two instances receiving the same order at the same
// moment do not both create it.
type OrderStore interface {
	// Get returns the posOrderId recorded for orderID; found is false when
	// there is none. An error is answered 500 (the service retries).
	Get(ctx context.Context, orderID string) (posOrderID string, found bool, err error)
	// Put records posOrderID for orderID after CreateOrder succeeded. An
	// error is logged; the order is still answered 201, because it exists.
	Put(ctx context.Context, orderID, posOrderID string) error
}

// OrderLocker may be implemented by an OrderStore shared between instances
// (for example with a database advisory lock or a row lock). NewHandler
// holds the lock of an orderId around Get, CreateOrder and Put, on top of
// the in-process lock it always takes, so that concurrent duplicate sends
// across instances call CreateOrder once.
type OrderLocker interface {
	// LockOrder blocks until this caller holds the lock of orderID or ctx
	// ends; unlock releases it.
	LockOrder(ctx context.Context, orderID string) (unlock func(), err error)
}

// DefaultMemoryOrders is the capacity of the MemoryOrderStore that
// NewHandler uses when HandlerOptions.Orders is nil. The service stops
// resending an order within minutes, so the most recent 100,000 orders are
// far more than a resend can need.
const DefaultMemoryOrders = 100_000

// MemoryOrderStore is an OrderStore in memory, bounded: beyond its capacity
// it forgets the least recently used orderId. It suits a POS running as a
// single instance; see OrderStore for several instances.
type MemoryOrderStore struct {
	mu    sync.Mutex
	max   int
	order *list.List // of memoryEntry, most recently used first
	byID  map[string]*list.Element
}

type memoryEntry struct{ orderID, posOrderID string }

// NewMemoryOrderStore returns a store that remembers up to capacity orders;
// capacity <= 0 means DefaultMemoryOrders.
func NewMemoryOrderStore(capacity int) *MemoryOrderStore {
	if capacity <= 0 {
		capacity = DefaultMemoryOrders
	}
	return &MemoryOrderStore{max: capacity, order: list.New(), byID: map[string]*list.Element{}}
}

// Get implements OrderStore.
func (s *MemoryOrderStore) Get(_ context.Context, orderID string) (string, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.byID[orderID]
	if !ok {
		return "", false, nil
	}
	s.order.MoveToFront(e)
	return e.Value.(memoryEntry).posOrderID, true, nil
}

// Put implements OrderStore.
func (s *MemoryOrderStore) Put(_ context.Context, orderID, posOrderID string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e, ok := s.byID[orderID]; ok {
		e.Value = memoryEntry{orderID, posOrderID}
		s.order.MoveToFront(e)
		return nil
	}
	s.byID[orderID] = s.order.PushFront(memoryEntry{orderID, posOrderID})
	for s.order.Len() > s.max {
		last := s.order.Back()
		s.order.Remove(last)
		delete(s.byID, last.Value.(memoryEntry).orderID)
	}
	return nil
}

// Len returns how many orders the store remembers.
func (s *MemoryOrderStore) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.order.Len()
}
