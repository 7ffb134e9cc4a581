package possync_test

import (
	"context"
	"net"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/internal/checkfixture"
	"github.com/hospo-dev/hospo-go/possync"
	"github.com/hospo-dev/hospo-go/possync/outbox"
)

// BenchmarkAgentPush measures Agent.Push, the call a POS makes on its user
// interface thread, while the service is down (connection refused: the
// agent is retrying with backoff in the background). It reports the p50,
// p99 and maximum latency of single pushes of a realistic 2 KB check as
// custom metrics; the check numbers cycle over 1,000 open checks, so pushes
// coalesce as they do on a busy POS. GCs counts the garbage collections
// that ran during the timed pushes (each one is time a push may spend
// marking, assisting or waiting for its P), over-1ms the pushes that took
// longer than a millisecond (one is a scheduler's hiccup, many are not).
// The machine's share is reported too (Linux only): steal-ms, the time the
// hypervisor took from the guest's virtual CPUs during the timed pushes
// (/proc/stat), and os-preemptions, how often the operating system took a
// CPU from one of the process's threads that could still run (getrusage):
// a push over a millisecond in a run where both are zero is the Agent's.
//
//	go test -run='^$' -bench=AgentPush -benchtime=200000x ./possync/
//
// memory-telemetry is memory with the client's telemetry on: a tracer
// provider sampling every span and a meter provider, which the Agent also
// reports its own metrics to.
//
// memory-attributed is memory with each push over a millisecond put down to
// whoever took the time (Linux only; the pushes run on a thread of their
// own, and reading the thread's usage around each push makes them slower):
// over-1ms-blocked the pushes during which the thread slept (a lock, a
// collection stopping the world or the Go scheduler: the program's),
// over-1ms-on-cpu those that ran for over a millisecond of CPU time (the
// program's too, or interrupts: Linux may count their time to the thread
// they interrupt), and the others, ready to run all along but off the CPU:
// over-1ms-preempted those the operating system took the CPU from (for
// another thread, of this process or another), over-1ms-stolen those it
// did not (the hypervisor took the virtual CPU). max-cpu-µs is the most CPU
// time a push used.
//
// floor is the machine's own share of the tail: the same loop timing eight
// Check.Validate calls (part of every push: no lock, no allocation, no other
// goroutine; about as long as a push), so a maximum it shows is the
// operating system or the hypervisor taking the thread, which no change to
// the Agent can remove. floor-attributed is floor with the pushes over a
// millisecond put down as in memory-attributed: a check of the method, as
// none of them can be the program's but a collection's.
func BenchmarkAgentPush(b *testing.B) {
	b.Run("memory", func(b *testing.B) { benchAgentPush(b, false, false, timePushes) })
	b.Run("memory-telemetry", func(b *testing.B) { benchAgentPush(b, false, true, timePushes) })
	b.Run("memory-attributed", func(b *testing.B) { benchAgentPush(b, false, false, attributePushes) })
	b.Run("outbox-file", func(b *testing.B) { benchAgentPush(b, true, false, timePushes) })
	b.Run("floor", func(b *testing.B) { benchPushFloor(b, timePushes) })
	b.Run("floor-attributed", func(b *testing.B) { benchPushFloor(b, attributePushes) })
}

func benchPushFloor(b *testing.B, timed func(*testing.B, func(int) error)) {
	check := checkfixture.Decode[possync.Check](b)
	check.LocationID = 1
	timed(b, func(i int) error {
		check.CheckNumber = int64(i%1000) + 1
		check.OutstandingAmount = client.MoneyFromCents(int64(i))
		for range 7 {
			if err := check.Validate(); err != nil {
				return err
			}
		}
		return check.Validate()
	})
}

func benchAgentPush(b *testing.B, durable, telemetry bool, timed func(*testing.B, func(int) error)) {
	// A port nothing listens on: every send fails at once.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	down := "http://" + ln.Addr().String()
	ln.Close()
	opts := []client.Option{client.WithBaseURL(down), client.WithAccessToken("pos-token")}
	if telemetry {
		opts = append(opts,
			client.WithTracerProvider(sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.AlwaysSample()))),
			client.WithMeterProvider(sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))))
	}
	c, err := client.New(opts...)
	if err != nil {
		b.Fatal(err)
	}
	cfg := possync.AgentConfig{
		LocationID:  1,
		SavePayment: func(context.Context, int64, possync.PaymentNotification) error { return nil },
		RetryMin:    time.Millisecond,
		RetryMax:    50 * time.Millisecond,
		MaxQueued:   2000,
	}
	if durable {
		store, err := outbox.Open(filepath.Join(b.TempDir(), "outbox.db"), 1)
		if err != nil {
			b.Fatal(err)
		}
		cfg.Store = store
	}
	a, err := possync.NewAgent(possync.NewService(c), cfg)
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = a.Run(ctx) }()
	defer func() { cancel(); <-done }()

	check := checkfixture.Decode[possync.Check](b)
	check.LocationID = 1
	timed(b, func(i int) error {
		check.CheckNumber = int64(i%1000) + 1
		check.OutstandingAmount = client.MoneyFromCents(int64(i))
		return a.Push(check)
	})
	if s := a.Stats(); s.Sent != 0 {
		b.Errorf("%d checks sent to a service that is down", s.Sent)
	}
}

// timePushes times push(i) for each of b.N iterations and reports the
// latencies' p50, p99 and maximum, the pushes over a millisecond and the
// collections that ran meanwhile.
func timePushes(b *testing.B, push func(i int) error) {
	lat := make([]time.Duration, b.N)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	steal0, stealKnown := stealMillis()
	preempt0, preemptKnown := involuntarySwitches()
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		start := time.Now()
		err := push(i)
		lat[i] = time.Since(start)
		if err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	steal1, _ := stealMillis()
	preempt1, _ := involuntarySwitches()
	runtime.ReadMemStats(&after)
	slices.Sort(lat)
	pct := func(p float64) float64 { return float64(lat[int(float64(len(lat)-1)*p)].Nanoseconds()) / 1e3 }
	b.ReportMetric(pct(0.50), "p50-µs")
	b.ReportMetric(pct(0.99), "p99-µs")
	b.ReportMetric(pct(1), "max-µs")
	b.ReportMetric(float64(after.NumGC-before.NumGC), "GCs")
	slow, _ := slices.BinarySearch(lat, time.Millisecond+1)
	b.ReportMetric(float64(len(lat)-slow), "over-1ms")
	if stealKnown {
		b.ReportMetric(float64(steal1-steal0), "steal-ms")
	}
	if preemptKnown {
		b.ReportMetric(float64(preempt1-preempt0), "os-preemptions")
	}
}

// threadUsage is what the calling thread has used: its CPU time and how
// often it gave up its CPU, by sleeping (voluntary) or because the
// operating system took it (involuntary).
type threadUsage struct {
	cpu                    time.Duration
	voluntary, involuntary int64
}

// attributePushes times push(i) for each of b.N iterations on a thread of
// its own, reads the thread's CPU time and context switches around each
// push, and reports who took the time of the pushes over a millisecond
// (BenchmarkAgentPush, memory-attributed).
func attributePushes(b *testing.B, push func(i int) error) {
	if _, ok := readThreadUsage(); !ok {
		b.Skip("a thread's usage is known only on Linux")
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var (
		blocked, onCPU, preempted, stolen int
		maxCPU, maxWall                   time.Duration
	)
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		u0, _ := readThreadUsage()
		start := time.Now()
		err := push(i)
		wall := time.Since(start)
		u1, _ := readThreadUsage()
		if err != nil {
			b.Fatal(err)
		}
		cpu := u1.cpu - u0.cpu
		maxCPU, maxWall = max(maxCPU, cpu), max(maxWall, wall)
		if wall <= time.Millisecond {
			continue
		}
		switch {
		case u1.voluntary > u0.voluntary:
			blocked++
		case cpu > time.Millisecond:
			onCPU++
		case u1.involuntary > u0.involuntary:
			preempted++
		default:
			stolen++
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(maxWall.Nanoseconds())/1e3, "max-µs")
	b.ReportMetric(float64(maxCPU.Nanoseconds())/1e3, "max-cpu-µs")
	b.ReportMetric(float64(blocked), "over-1ms-blocked")
	b.ReportMetric(float64(onCPU), "over-1ms-on-cpu")
	b.ReportMetric(float64(preempted), "over-1ms-preempted")
	b.ReportMetric(float64(stolen), "over-1ms-stolen")
}
