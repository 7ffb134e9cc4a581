package main

import (
	"context"
	"math/rand/v2"
	"time"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/wallet"
)

// customer is a diner paying at the table from the app: a user with a
// providerB card in the wallet.
type customer struct {
	w      *wallet.Service
	cardID int64
	rng    *rand.Rand
}

// run pays a small amount towards a random stored check every interval
// until ctx ends.
func (c *customer) run(ctx context.Context, interval time.Duration, p *payables, cnt *counters) {
	timer := time.NewTimer(time.Duration(c.rng.Int64N(int64(interval))))
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
		}
		timer.Reset(interval)
		chk := p.pick(c.rng)
		if chk == nil {
			continue
		}
		_, err := c.w.CreatePayment(ctx, wallet.CreatePaymentRequest{
			LocationID: chk.key.locID, CheckNumber: chk.key.number, CardID: c.cardID,
			Amount: client.MoneyFromCents(50 + c.rng.Int64N(51)),
			Tip:    client.MoneyFromCents(c.rng.Int64N(30)),
		})
		p.done(chk)
		switch {
		case err == nil:
			cnt.paymentsMade.Add(1)
		case ctx.Err() == nil:
			cnt.paymentsFailed.Add(1)
		}
	}
}
