package main

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/possync"
	"github.com/hospo-dev/hospo-go/refserver/rules"
	"github.com/hospo-dev/hospo-go/refserver/sim"
	"github.com/hospo-dev/hospo-go/refserver/store"
	"github.com/hospo-dev/hospo-go/universalpos"
)

var gateways = []string{"providerA", "providerB", "providerC", "providerD", "providerE"}

// seeder writes one database. Its clock is what stamps each transaction:
// it is set to the batch's time before each write.
type seeder struct {
	o     options
	db    *store.DB
	r     *rand.Rand
	clock atomic.Int64 // unix seconds

	locations []int64
	users     []payer
	next      map[int64]int64 // location -> next check number
	res       result
}

// payer is a wallet user with the card its payments use.
type payer struct{ userID, cardID int64 }

// result is what a run made, printed as JSON.
type result struct {
	Locations      int    `json:"locations"`
	Bills          int    `json:"bills"`
	Payments       int    `json:"payments"`
	Orders         int    `json:"orders"`
	Seconds        string `json:"seconds"`
	DatabaseBytes  int64  `json:"databaseBytes"`
	BytesPerBill   int64  `json:"bytesPerBill"`
	BusyLocationID int64  `json:"busyLocationId"`
	BusyPOSToken   string `json:"busyPosAccessToken"`
	BusyAPIKey     string `json:"busyApiKey"`
	UserToken      string `json:"userAccessToken"`
	From           int64  `json:"from"`
	To             int64  `json:"to"`
}

func (r result) write(w io.Writer) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

func newSeeder(ctx context.Context, o options) (*seeder, error) {
	s := &seeder{o: o, r: rand.New(rand.NewPCG(o.seed, 0x5eed)), next: map[int64]int64{}}
	s.clock.Store(o.end.Add(-time.Duration(o.days) * 24 * time.Hour).Unix())
	db, err := store.Open(ctx, o.db, func() time.Time { return time.Unix(s.clock.Load(), 0) })
	if err != nil {
		return nil, err
	}
	s.db = db
	return s, nil
}

func (s *seeder) run(ctx context.Context, progress io.Writer) (result, error) {
	start := time.Now()
	if err := s.credentials(ctx); err != nil {
		return s.res, err
	}
	if err := s.bills(ctx, progress); err != nil {
		return s.res, err
	}
	if err := s.makeOrders(ctx); err != nil {
		return s.res, err
	}
	s.res.Seconds = strconv.FormatFloat(time.Since(start).Seconds(), 'f', 1, 64)
	return s.res, nil
}

// credentials makes the locations, the users with their cards and an API
// key for the busy location, at the start of the history.
func (s *seeder) credentials(ctx context.Context) error {
	for done := 0; done < s.o.locations; {
		n := min(5_000, s.o.locations-done)
		err := s.db.Write(ctx, func(tx *store.Tx) error {
			for i := range n {
				id, err := tx.InsertLocation("Venue "+strconv.Itoa(done+i+1), gateways[(done+i)%len(gateways)])
				if err != nil {
					return err
				}
				token := sim.NewCredential(sim.POSTokenPrefix)
				if err := tx.InsertPOSToken(store.HashSecret(token), id); err != nil {
					return err
				}
				if len(s.locations) == 0 {
					s.res.BusyLocationID, s.res.BusyPOSToken = id, token
				}
				s.locations = append(s.locations, id)
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("locations: %w", err)
		}
		done += n
	}
	s.res.Locations = len(s.locations)
	return s.db.Write(ctx, func(tx *store.Tx) error {
		for i := range s.o.users {
			id, err := tx.InsertUser()
			if err != nil {
				return err
			}
			token := sim.NewCredential(sim.UserTokenPrefix)
			if err := tx.InsertUserToken(store.HashSecret(token), id, nil); err != nil {
				return err
			}
			if i == 0 {
				s.res.UserToken = token
			}
			card, err := tx.InsertCard(store.Card{UserID: id, First6: "424242", Last4: fmt.Sprintf("%04d", i%10_000),
				Nickname: "Card", CardTypeID: 1, CardStatusID: 1, ExpiryMonth: "12", ExpiryYear: "39"})
			if err != nil {
				return err
			}
			for _, g := range gateways {
				if err := tx.InsertCardToken(card, g, "tok_seed_"+strconv.Itoa(i)+"_"+g); err != nil {
					return err
				}
			}
			s.users = append(s.users, payer{id, card})
		}
		key := sim.NewCredential(sim.APIKeyPrefix)
		if _, err := tx.InsertAPIKey(store.HashSecret(key), []int64{s.res.BusyLocationID}); err != nil {
			return err
		}
		s.res.BusyAPIKey = key
		return nil
	})
}

// bills writes the bills in batches of at most -batch, each batch one
// transaction at its own time: the other locations' bills spread evenly
// over -days, the busy location's over the last 31 days, all in time
// order.
func (s *seeder) bills(ctx context.Context, progress io.Writer) error {
	end := s.o.end.Unix()
	from := s.o.end.Add(-time.Duration(s.o.days) * 24 * time.Hour).Unix()
	busyFrom := s.o.end.Add(-31 * 24 * time.Hour).Unix()
	s.res.From, s.res.To = from, end
	type slot struct {
		at   int64
		busy bool
		n    int
	}
	var slots []slot
	spread := func(total int, from int64, busy bool) {
		n := (total + s.o.batch - 1) / s.o.batch
		for b := range n {
			slots = append(slots, slot{batchTime(from, end, b, n), busy, total*(b+1)/n - total*b/n})
		}
	}
	spread(s.o.bills-s.o.busyBills, from, false)
	spread(s.o.busyBills, busyFrom, true)
	slices.SortStableFunc(slots, func(a, b slot) int { return cmp.Compare(a.at, b.at) })
	for i, sl := range slots {
		s.clock.Store(sl.at)
		err := s.db.Write(ctx, func(tx *store.Tx) error {
			for range sl.n {
				loc := s.res.BusyLocationID
				if !sl.busy {
					loc = s.locations[1+s.r.IntN(len(s.locations)-1)]
				}
				if err := s.bill(tx, loc); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("bills: %w", err)
		}
		s.res.Bills += sl.n
		if progress != nil && (i+1)%50 == 0 {
			fmt.Fprintf(progress, "seed: %d of %d bills\n", s.res.Bills, s.o.bills)
		}
	}
	return nil
}

// batchTime is the time of batch b of n: the middle of the b-th of n
// equal parts of [from, end), so that every batch is inside the range.
func batchTime(from, end int64, b, n int) int64 {
	return from + (end-from)*int64(2*b+1)/int64(2*n)
}

// bill writes one bill the way a POS and its diners make it: a share is
// pushed open, paid through the service and accepted before the closing
// push; the rest are pushed closed (a few stay open or are voided).
func (s *seeder) bill(tx *store.Tx, loc int64) error {
	s.next[loc]++
	number := s.next[loc]
	status := possync.CheckClosed
	switch n := s.r.IntN(100); {
	case n < 3:
		status = possync.CheckOpen
	case n < 4:
		status = possync.CheckVoid
	}
	c := newCheck(s.r, loc, number, status)
	if status == possync.CheckClosed && s.r.IntN(100) < s.o.paidPct {
		open := *c
		open.Status, open.OutstandingAmount = possync.CheckOpen, c.TotalAmount
		row, err := store.NewCheckRow(&open)
		if err != nil {
			return err
		}
		push, err := s.push(tx, row)
		if err != nil {
			return err
		}
		u := s.users[s.r.IntN(len(s.users))]
		tip := c.TotalAmount.Cents() / 10
		p, err := tx.InsertPaymentRecord(store.PaymentRecord{LocationID: loc, CheckNumber: number, BillID: push.BillID,
			UserID: u.userID, CardID: u.cardID, Amount: c.TotalAmount.Cents(), Tip: tip})
		if err != nil {
			return err
		}
		if s.withEvents(tx) {
			_, err = rules.AcceptPayment(tx, loc, p.PaymentID)
		} else {
			_, err = tx.AcceptPayment(loc, p.PaymentID)
		}
		if err != nil {
			return err
		}
		c.TipsPaid = client.MoneyFromCents(tip)
		s.res.Payments++
	}
	row, err := store.NewCheckRow(c)
	if err != nil {
		return err
	}
	_, err = s.push(tx, row)
	return err
}

// withEvents reports whether tx's time is within the events' retention of
// the end of the history: only then are a bill's events recorded (the
// server would have swept older ones).
func (s *seeder) withEvents(tx *store.Tx) bool {
	return tx.Now().After(s.o.end.Add(-rules.EventRetention))
}

// push stores a check as the server's push does, with its bill.closed
// event within the events' retention.
func (s *seeder) push(tx *store.Tx, row store.CheckRow) (store.CheckPush, error) {
	if s.withEvents(tx) {
		return rules.PushCheck(tx, row)
	}
	return tx.PushCheck(row)
}

// makeOrders writes -orders orders of one to three items, spread over the
// locations and the last days of the history, in status created.
func (s *seeder) makeOrders(ctx context.Context) error {
	for done := 0; done < s.o.orders; {
		n := min(s.o.batch, s.o.orders-done)
		s.clock.Store(s.o.end.Add(-time.Duration(s.o.orders-done) * time.Minute).Unix())
		err := s.db.Write(ctx, func(tx *store.Tx) error {
			for range n {
				items := make([]universalpos.OrderItem, 1+s.r.IntN(3))
				var total int64
				for i := range items {
					m := menu[s.r.IntN(len(menu))]
					items[i] = universalpos.OrderItem{PLU: "P" + strconv.Itoa(int(m.cents)), Name: m.name, Quantity: 1,
						Price: client.MoneyFromCents(m.cents), Options: []universalpos.OrderOption{}}
					total += m.cents
				}
				b, err := json.Marshal(items)
				if err != nil {
					return err
				}
				u := s.users[s.r.IntN(len(s.users))]
				if err := tx.InsertOrder(orderID(s.r), u.userID, s.locations[s.r.IntN(len(s.locations))], string(b), total); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("orders: %w", err)
		}
		done += n
		s.res.Orders = done
	}
	return nil
}

// orderID returns a version 4 UUID drawn from r, like the server's.
func orderID(r *rand.Rand) string {
	var b [16]byte
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
