package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	mrand "math/rand/v2"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/hospo-dev/hospo-go/bills"
	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/possync"
	"github.com/hospo-dev/hospo-go/sandbox"
	"github.com/hospo-dev/hospo-go/wallet"
)

// location is a sandbox location made for the run.
type location struct {
	ID       int64  `json:"locationId"`
	POSToken string `json:"posAccessToken"`
}

// runLoad creates the locations and customers, runs the load through the
// warm-up and the measuring window, stops it and prints the report.
func runLoad(ctx context.Context, o options, out io.Writer) error {
	m := newMeter(newTransport(o.maxConns), o.timeline)
	hc := &http.Client{Transport: m}
	newClient := func(opts ...client.Option) (*client.Client, error) {
		return client.New(append([]client.Option{client.WithBaseURL(o.url), client.WithHTTPClient(hc)}, opts...)...)
	}
	admin, err := newClient(client.WithAdminKey(o.adminKey))
	if err != nil {
		return err
	}

	// Setup: locations and customers, made in parallel.
	setupStart := time.Now()
	var runID [4]byte
	_, _ = rand.Read(runID[:])
	locs := make([]location, o.locations)
	err = parallel(ctx, o.locations, o.setupConcurrency, func(ctx context.Context, i int) error {
		_, err := admin.Do(ctx, &client.Request{Method: http.MethodPost, Path: "sandbox/locations", Auth: client.AuthAdminKey,
			Body: map[string]any{"name": fmt.Sprintf("loadgen %s #%d", hex.EncodeToString(runID[:]), i), "gateway": "providerB"}}, &locs[i])
		return err
	})
	if err != nil {
		return fmt.Errorf("creating locations: %w", err)
	}
	customers := make([]*customer, o.customers)
	err = parallel(ctx, o.customers, o.setupConcurrency, func(ctx context.Context, i int) error {
		var u struct {
			AccessToken string `json:"accessToken"`
		}
		if _, err := admin.Do(ctx, &client.Request{Method: http.MethodPost, Path: "sandbox/users", Auth: client.AuthAdminKey}, &u); err != nil {
			return err
		}
		uc, err := newClient(client.WithAccessToken(u.AccessToken))
		if err != nil {
			return err
		}
		w := wallet.NewService(uc)
		card, err := w.AddCard(ctx, wallet.AddCardRequest{Providers: []wallet.Gateway{wallet.ProviderB}, Card: wallet.CardDetails{
			Number: "4111111111111111", CVC: "123", ExpiryMonth: 12, ExpiryYear: (time.Now().Year() + 3) % 100, HolderName: "Load Test"}})
		if err != nil {
			return err
		}
		customers[i] = &customer{w: w, cardID: card.CardID, rng: mrand.New(mrand.NewPCG(uint64(i), 7))}
		return nil
	})
	if err != nil {
		return fmt.Errorf("creating customers: %w", err)
	}

	reader, err := newBillsReader(ctx, o, admin, locs, newClient)
	if err != nil {
		return err
	}

	// One till and Agent per location.
	cnt := &counters{}
	pay := newPayables()
	tills := make([]*till, len(locs))
	agents := make([]*possync.Agent, len(locs))
	for i, l := range locs {
		c, err := newClient(client.WithAccessToken(l.POSToken))
		if err != nil {
			return err
		}
		t := newTill(l.ID, uint64(i), o.openChecks, pay, cnt)
		a, err := possync.NewAgent(trackingAPI{API: possync.NewService(c), locID: l.ID, payble: pay}, possync.AgentConfig{
			LocationID:        l.ID,
			SavePayment:       t.savePayment,
			PollInterval:      o.pollInterval,
			HeartbeatInterval: o.heartbeatInterval,
			RetryMin:          100 * time.Millisecond,
			RetryMax:          5 * time.Second,
			RequestTimeout:    30 * time.Second,
			SendConcurrency:   o.sendConcurrency,
			DrainTimeout:      time.Second,
		})
		if err != nil {
			return err
		}
		t.agent, tills[i], agents[i] = a, t, a
	}
	var hook *hookReceiver
	if o.webhook {
		if hook, err = startWebhook(ctx, admin, newClient, locs, o.serverDB); err != nil {
			return err
		}
		defer func() {
			if err := hook.stop(ctx); err != nil {
				fmt.Fprintln(out, "webhook: deleting it:", err)
			}
		}()
	}
	fmt.Fprintf(out, "setup: %d locations, %d customers in %s\n", len(locs), len(customers), time.Since(setupStart).Round(time.Millisecond))

	// The Agents start spread over one heartbeat interval, as POSes
	// switched on through the day would: an Agent heartbeats when it starts
	// and then at a fixed interval, so Agents started together would
	// heartbeat (and first poll) together forever, in bursts no real fleet
	// sends.
	agentCtx, stopAgents := context.WithCancel(context.WithoutCancel(ctx))
	var agentsDone sync.WaitGroup
	for i, a := range agents {
		delay := o.heartbeatInterval * time.Duration(i) / time.Duration(len(agents))
		agentsDone.Go(func() {
			sleep(agentCtx, delay)
			if agentCtx.Err() == nil {
				_ = a.Run(agentCtx)
			}
		})
	}
	defer func() { stopAgents(); agentsDone.Wait() }()
	// Customers can pay only at online locations: wait for every Agent's
	// first heartbeat (bounded; a location that never comes online shows
	// up as failed payments).
	online := time.Now().Add(o.heartbeatInterval + time.Minute)
	for _, a := range agents {
		for a.Stats().LastHeartbeat.IsZero() && time.Now().Before(online) && ctx.Err() == nil {
			time.Sleep(10 * time.Millisecond)
		}
	}

	loadCtx, stopLoad := context.WithCancel(ctx)
	var loadDone sync.WaitGroup
	for _, t := range tills {
		loadDone.Go(func() { t.run(loadCtx, o.pushInterval) })
	}
	for _, c := range customers {
		loadDone.Go(func() { c.run(loadCtx, o.payInterval, pay, cnt) })
	}
	if reader != nil {
		loadDone.Go(func() { reader.run(loadCtx) })
	}
	// The sampler runs for a soak's samples, and to count a webhook's
	// pending deliveries through the window: without a soak it counts
	// only them, each second.
	soak := o.samplesFile != "" || o.plotFile != ""
	countPending := hook != nil && hook.db != nil
	var smp *sampler
	if soak || countPending {
		src, interval := sources{}, time.Second
		if soak {
			src = sources{pid: o.serverPID, pprof: o.serverPprof, db: o.serverDB, client: &http.Client{}}
			interval = o.sampleInterval
		}
		if countPending {
			src.pending = hook.countPending
		}
		smp = startSampler(ctx, src, interval)
	}

	sleep(ctx, o.warmup)
	stopProfile, err := startCPUProfile(o.cpuProfile)
	if err != nil {
		if smp != nil {
			smp.finish()
		}
		stopLoad()
		loadDone.Wait()
		return err
	}
	m.startWindow()
	before := snapshot(o.serverPID, agents, cnt, reader)
	hookBefore := hook.counts()
	sleep(ctx, o.duration)
	var late []string
	if o.untilAnswered {
		late = awaitAnswered(ctx, m, loadEndpoints(o), hook, hookBefore.verified)
	}
	after := snapshot(o.serverPID, agents, cnt, reader)
	hookAfter := hook.counts()
	var lag backlog
	if hook != nil {
		lag = hook.measureBacklog(ctx)
	}
	m.stopWindow()
	var samples []sample
	if smp != nil {
		samples = smp.finish()
		if countPending {
			for _, sm := range smp.between(samples, before.at, after.at) {
				if sm.ok[seriesPending] {
					lag.sampled = append(lag.sampled, int(sm.values[seriesPending]))
				}
			}
			// The count at the window's end is one of them: a window
			// shorter than the interval, or a slow read, still has one.
			if lag.counted && lag.err == nil {
				lag.sampled = append(lag.sampled, lag.pending)
			}
			lag.interval = smp.interval
		}
	}
	stopProfile()
	stopLoad()
	loadDone.Wait()
	stopAgents()
	agentsDone.Wait()
	if hook != nil {
		hook.measureDrain(ctx, &lag)
	}

	report(out, o, m, before, after)
	if len(late) > 0 {
		fmt.Fprintf(out, "window: kept open past -duration until %s had an answer\n", strings.Join(late, ", "))
	}
	if hook != nil {
		secs := after.at.Sub(before.at).Seconds()
		reportWebhook(out, hookBefore, hookAfter, after.checksClosed-before.checksClosed, secs)
		reportBacklog(out, lag, hookBefore, hookAfter, secs)
		reportDrained(out, hook.counts(), cnt.paymentsMade.Load())
	}
	if soak {
		printTrends(out, samples, o.trendWindow)
		return writeSamples(o, samples)
	}
	return nil
}

// newBillsReader makes the reporting vendor of -bills-location, or
// returns nil without one.
func newBillsReader(ctx context.Context, o options, admin *client.Client, locs []location,
	newClient func(...client.Option) (*client.Client, error),
) (*billsReader, error) {
	if o.billsLocation == 0 {
		return nil, nil
	}
	locID, key := o.billsLocation, o.billsKey
	if locID == -1 {
		locID = locs[0].ID
	}
	sb := sandbox.NewService(admin)
	if key == "" {
		k, err := sb.CreateAPIKey(ctx, []int64{locID})
		if err != nil {
			return nil, fmt.Errorf("creating an API key for location %d: %w", locID, err)
		}
		key = k.APIKey
	}
	clock, err := sb.Clock(ctx)
	if err != nil {
		return nil, fmt.Errorf("reading the server's clock: %w", err)
	}
	now := clock.ServerTime.Time
	c, err := newClient(client.WithAPIKey(key))
	if err != nil {
		return nil, err
	}
	return &billsReader{svc: bills.NewService(c), locationID: locID, gets: o.billsGets, interval: o.billsInterval,
		rng: mrand.New(mrand.NewPCG(uint64(locID), 11)), serverAt: now, localAt: time.Now()}, nil
}

// writeSamples writes the -samples CSV file and the -plot PNG.
func writeSamples(o options, samples []sample) error {
	write := func(path string, fn func(io.Writer, []sample) error) error {
		if path == "" {
			return nil
		}
		f, err := os.Create(path)
		if err != nil {
			return err
		}
		if err := fn(f, samples); err != nil {
			f.Close()
			return fmt.Errorf("writing %s: %w", path, err)
		}
		return f.Close()
	}
	if err := write(o.samplesFile, writeCSV); err != nil {
		return err
	}
	return write(o.plotFile, writePlot)
}

// webhookDelivery names a delivery to the -webhook receiver among the
// endpoints awaitAnswered waits for.
const webhookDelivery = "a webhook delivery"

// loadEndpoints are the endpoints every window of the load o calls.
func loadEndpoints(o options) []string {
	eps := []string{"POST /v1/pos/push-pull/check", "POST /v1/pos/push-pull/heartbeat/{id}", "GET /v1/pos/push-pull/payments/{id}"}
	if o.customers > 0 {
		eps = append(eps, "POST /payments/v1/payment")
	}
	if o.billsLocation != 0 {
		eps = append(eps, "GET /v3/location/{id}/bills/closed")
	}
	return eps
}

// maxExtension bounds how long -until-answered keeps the window open past
// -duration: a kind of request the server never answers is in the report
// as such, not a run that never ends.
const maxExtension = time.Minute

// awaitAnswered waits until each of endpoints has had a 2xx in m's window
// and, with a webhook, the receiver has verified more than verifiedBefore
// deliveries, for at most maxExtension. It returns what had not been
// answered when it was called.
func awaitAnswered(ctx context.Context, m *meter, endpoints []string, hook *hookReceiver, verifiedBefore int64) []string {
	missing := func() []string {
		out := m.unanswered(endpoints)
		if hook != nil && hook.verified.Load() == verifiedBefore {
			out = append(out, webhookDelivery)
		}
		return out
	}
	late := missing()
	deadline := time.Now().Add(maxExtension)
	for len(missing()) > 0 && ctx.Err() == nil && time.Now().Before(deadline) {
		sleep(ctx, 10*time.Millisecond)
	}
	return late
}

// sleep waits for d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// snap is the state of the load at one instant, for differences over the
// window.
type snap struct {
	at                                   time.Time
	serverCPU, selfCPU                   time.Duration
	serverPeak, serverRSS                int64
	memErr                               error
	sent, failed, retried, accepted      uint64
	queued                               int
	pushCalls, pushRefused               int64
	paymentsMade, paymentsFailed, saved  int64
	checksClosed                         int64
	billLists, billsListed, billsFetched int64
	billsFailed                          int64
}

func snapshot(pid int, agents []*possync.Agent, cnt *counters, reader *billsReader) snap {
	s := snap{at: time.Now(), selfCPU: selfCPU()}
	if pid > 0 {
		s.serverCPU, _ = procCPU(pid)
		s.serverPeak, s.serverRSS, s.memErr = procMemory(pid)
	}
	for _, a := range agents {
		st := a.Stats()
		s.sent += st.Sent
		s.failed += st.Failed
		s.retried += st.Retried
		s.accepted += st.PaymentsAccepted
		s.queued += st.Queued
	}
	s.pushCalls, s.pushRefused = cnt.pushCalls.Load(), cnt.pushRefused.Load()
	s.paymentsMade, s.paymentsFailed, s.saved = cnt.paymentsMade.Load(), cnt.paymentsFailed.Load(), cnt.paymentsSaved.Load()
	s.checksClosed = cnt.checksClosed.Load()
	if reader != nil {
		s.billLists, s.billsListed = reader.lists.Load(), reader.listed.Load()
		s.billsFetched, s.billsFailed = reader.fetched.Load(), reader.failed.Load()
	}
	return s
}

// report prints the results of the window.
func report(w io.Writer, o options, m *meter, before, after snap) {
	window, sums := m.summaries()
	secs := window.Seconds()
	fmt.Fprintf(w, "\nload: %d locations (push every %s, poll every %s, heartbeat every %s, send concurrency %d), %d customers (pay every %s)\n",
		o.locations, o.pushInterval, o.pollInterval, o.heartbeatInterval, o.sendConcurrency, o.customers, o.payInterval)
	fmt.Fprintf(w, "window: %s after %s of warm-up\n\n", window.Round(time.Millisecond), o.warmup)
	_, errs := printSummaries(w, window, sums, m.allLatencies())
	if o.timeline {
		m.printTimeline(w)
	}
	for _, s := range sums {
		if s.Endpoint == "POST /v1/pos/push-pull/check" {
			fmt.Fprintf(w, "\ncheck pushes: %.0f/s answered 2xx, p50 %s, p99 %s\n", s.PerSecond, ms(s.P50), ms(s.P99))
		}
	}
	fmt.Fprintf(w, "errors: %d (non-2xx answers and transport errors, all endpoints)\n", errs)
	fmt.Fprintf(w, "agents: %d checks delivered (%.0f/s), %d dropped, %d retried, %d payments accepted, %d queued at the end\n",
		after.sent-before.sent, float64(after.sent-before.sent)/secs, after.failed-before.failed, after.retried-before.retried,
		after.accepted-before.accepted, after.queued)
	fmt.Fprintf(w, "tills: %d Push calls (%.0f/s; pushes of a check still queued replace it), %d refused\n",
		after.pushCalls-before.pushCalls, float64(after.pushCalls-before.pushCalls)/secs, after.pushRefused-before.pushRefused)
	fmt.Fprintf(w, "customers: %d payments made, %d failed; %d saved by tills\n",
		after.paymentsMade-before.paymentsMade, after.paymentsFailed-before.paymentsFailed, after.saved-before.saved)
	if o.billsLocation != 0 {
		lists := after.billLists - before.billLists
		fmt.Fprintf(w, "vendor: %d lists of 31 days (%.1f bills each), %d bills fetched, %d failed\n", lists,
			float64(after.billsListed-before.billsListed)/float64(max(lists, 1)), after.billsFetched-before.billsFetched,
			after.billsFailed-before.billsFailed)
	}
	fmt.Fprintf(w, "loadgen CPU: %.2f cores\n", (after.selfCPU-before.selfCPU).Seconds()/secs)
	if o.serverPID > 0 {
		if after.memErr != nil {
			fmt.Fprintf(w, "server: memory unknown: %v\n", after.memErr)
		} else {
			fmt.Fprintf(w, "server: peak RSS (VmHWM) %s, RSS now %s, CPU %.2f cores\n",
				mib(after.serverPeak), mib(after.serverRSS), (after.serverCPU-before.serverCPU).Seconds()/secs)
		}
	}
}
