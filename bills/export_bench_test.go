package bills_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/hospo-dev/hospo-go/bills"
	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/possync"
	"github.com/hospo-dev/hospo-go/refserver/refservertest"
	"github.com/hospo-dev/hospo-go/wallet"
)

// benchBills is the size of the exported location.
const benchBills = 5000

// BenchmarkExport exports a location's 5,000 closed bills with every scope,
// once per iteration: sequentially (ListClosed per 31-day window, then Get
// bill after bill, as a caller without the iterator would) and with All at
// several concurrencies. The data is seeded once per run through the real
// endpoints: checks pushed open and closed with the location's POS token,
// every 25th bill paid by wallet card and accepted by the POS, the clock
// advanced so that the bills span two list windows.
//
// The "local" runs talk to the in-process server over loopback, where a
// request costs only CPU, shared by client and server. The "rtt-2ms" runs
// add a simulated 2 ms network round trip to every request (a transport
// that waits before sending), the situation the iterator's concurrency is
// for; they say so in their name.
//
//	go test -run '^$' -bench BenchmarkExport -benchtime 3x ./bills/
//
// Each result reports µs/bill (wall time) and cpu-µs/bill (the process's CPU
// time, client and server together). Locally a sequential export already
// keeps about one core busy, so the speed-up of concurrency there is bounded
// by the number of cores; with a network between client and service it is
// bounded by the concurrency.
func BenchmarkExport(b *testing.B) {
	env := refservertest.Start(b, quietWorkers)
	v := newVenue(b, env, "Bench", wallet.ProviderB)
	from, to := seedBench(b, env, v)
	scopes := bills.AllScopes()
	ctx := context.Background()

	// refservertest checks every request and response against the OpenAPI
	// document, which costs more CPU than the server itself; the export is
	// measured on a listener of its own that serves the bare handler.
	bare := httptest.NewServer(env.Server.Handler())
	defer bare.Close()

	for _, net := range []struct {
		name string
		rtt  time.Duration
	}{{"local", 0}, {"rtt-2ms", 2 * time.Millisecond}} {
		// net/http keeps only 2 idle connections per host by default; with
		// more requests in flight than that, every extra request would open
		// (and then close) a TCP connection of its own. Keep enough for the
		// largest concurrency measured.
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.MaxIdleConnsPerHost = 32
		var rt http.RoundTripper = tr
		if net.rtt > 0 {
			rt = latencyTransport{base: tr, rtt: net.rtt}
		}
		c := env.Client(b, client.WithBaseURL(bare.URL), client.WithAPIKey(v.apiKey), client.WithHTTPClient(&http.Client{Transport: rt}))
		b.Run(net.name+"/sequential", func(b *testing.B) {
			svc := bills.NewService(c)
			cpu := cpuTime(b)
			for b.Loop() {
				n := 0
				for _, w := range splitRange(from, to) {
					list, err := svc.ListClosed(ctx, v.ID, w[0], w[1])
					if err != nil {
						b.Fatal(err)
					}
					for _, s := range list {
						if _, err := svc.Get(ctx, s.BillID, scopes); err != nil {
							b.Fatal(err)
						}
						n++
					}
				}
				if n != benchBills {
					b.Fatalf("exported %d bills, want %d", n, benchBills)
				}
			}
			reportPerBill(b, cpu)
		})
		for _, conc := range []int{1, 4, 8, 16} {
			if net.rtt > 0 && conc == 1 {
				continue // the same as sequential, only slower to wait for
			}
			svc := bills.NewService(c, bills.WithConcurrency(conc))
			b.Run(net.name+"/all-concurrency-"+strconv.Itoa(conc), func(b *testing.B) {
				cpu := cpuTime(b)
				for b.Loop() {
					n := 0
					for _, err := range svc.All(ctx, v.ID, from, to, scopes) {
						if err != nil {
							b.Fatal(err)
						}
						n++
					}
					if n != benchBills {
						b.Fatalf("exported %d bills, want %d", n, benchBills)
					}
				}
				reportPerBill(b, cpu)
			})
		}
	}
}

// reportPerBill reports wall time and CPU time (client and server
// together) per exported bill. The CPU figure shows what the machine must
// supply per bill whatever the concurrency; the wall figure is what the
// concurrency buys.
func reportPerBill(b *testing.B, cpuBefore time.Duration) {
	n := float64(b.N * benchBills)
	b.ReportMetric(b.Elapsed().Seconds()*1e6/n, "µs/bill")
	b.ReportMetric((cpuTime(b)-cpuBefore).Seconds()*1e6/n, "cpu-µs/bill")
}

// latencyTransport delays every request by a fixed round-trip time before
// sending it, to stand in for a network between client and service.
type latencyTransport struct {
	base http.RoundTripper
	rtt  time.Duration
}

func (t latencyTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	timer := time.NewTimer(t.rtt)
	defer timer.Stop()
	select {
	case <-timer.C:
	case <-req.Context().Done():
		return nil, req.Context().Err()
	}
	return t.base.RoundTrip(req)
}

// splitRange cuts [from, to] into windows the list accepts, the way a
// caller without All would.
func splitRange(from, to time.Time) [][2]time.Time {
	var out [][2]time.Time
	for w := from; !w.After(to); w = w.Add(bills.MaxRange + time.Second) {
		out = append(out, [2]time.Time{w, minTime(w.Add(bills.MaxRange), to)})
	}
	return out
}

// seedBench closes benchBills bills at v through the real endpoints and
// returns a range holding them all. Pushes run from a few goroutines, like
// several tills; the clock moves 10 days after each fifth of the bills.
func seedBench(b *testing.B, env *refservertest.Env, v *venue) (from, to time.Time) {
	b.Helper()
	ctx := context.Background()
	start := serverNow(b, v)
	payers := []*refservertest.Diner{
		newPayer(b, env, wallet.ProviderB, "4111111111111111"),
		newPayer(b, env, wallet.ProviderB, "5555555555554444"),
	}
	const workers, chunks = 8, 5
	per := benchBills / chunks
	for c := range chunks {
		v.Heartbeat(b) // payments need an online POS
		var wg sync.WaitGroup
		errs := make(chan error, workers)
		for w := range workers {
			wg.Go(func() {
				for i := c*per + w; i < (c+1)*per; i += workers {
					if err := seedOne(ctx, v, payers[i%len(payers)], int64(i+1), i%25 == 0); err != nil {
						errs <- err
						return
					}
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			b.Fatal(err)
		}
		env.AdvanceClock(b, 10*24*time.Hour)
	}
	end := serverNow(b, v)
	return start.Add(-time.Second), end
}

// seedOne closes one bill; with pay, a wallet payment is made and accepted
// in between, as the POS flow does.
func seedOne(ctx context.Context, v *venue, p *refservertest.Diner, n int64, pay bool) error {
	chk := v.check(n, possync.CheckOpen, "24.40", "24.40", "0")
	if pay {
		if _, err := v.POS.PushCheck(ctx, &chk); err != nil {
			return fmt.Errorf("push %d: %w", n, err)
		}
		pm, err := p.Wallet.CreatePayment(ctx, wallet.CreatePaymentRequest{
			LocationID: v.ID, CheckNumber: n, CardID: p.Card.CardID, Amount: chk.TotalAmount, Tip: chk.ServiceChargeAmount,
		})
		if err != nil {
			return fmt.Errorf("pay %d: %w", n, err)
		}
		if _, err := v.POS.AcceptPayment(ctx, pm.PaymentID); err != nil {
			return fmt.Errorf("accept %d: %w", n, err)
		}
		chk.OutstandingAmount = chk.OutstandingAmount.Sub(pm.Amount)
		chk.TipsPaid = pm.Tip
	}
	chk.Status = possync.CheckClosed
	if _, err := v.POS.PushCheck(ctx, &chk); err != nil {
		return fmt.Errorf("close %d: %w", n, err)
	}
	return nil
}
