package possync_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hospo-dev/hospo-go/bills"
	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/internal/sdktest"
	"github.com/hospo-dev/hospo-go/possync"
	"github.com/hospo-dev/hospo-go/refserver/refservertest"
	"github.com/hospo-dev/hospo-go/sandbox"
)

// flushAgent waits until what was pushed to a is delivered; the timeout
// only catches a hang.
func flushAgent(t *testing.T, a *possync.Agent) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := a.Flush(ctx); err != nil {
		t.Fatalf("Flush: %v", err)
	}
}

// noSave is a SavePayment for agents that see no payments.
func noSave(context.Context, int64, possync.PaymentNotification) error { return nil }

// TestE2EFlush pushes closed checks and reads them from the closed-bills
// list as soon as Flush returns, with no waiting in between.
func TestE2EFlush(t *testing.T) {
	t.Parallel()
	env := refservertest.Start(t)
	loc, posTok := env.NewLocation(t, "Brasserie", "providerB")
	agent, err := possync.NewAgent(possync.NewService(env.Client(t, client.WithAccessToken(posTok))), fastAgent(loc, noSave))
	if err != nil {
		t.Fatal(err)
	}
	possync.StartAgent(t, agent)
	var want []int64
	for n := int64(1); n <= 5; n++ {
		c := loadCheck(t, loc)
		c.CheckNumber = 700 + n
		c.Status = possync.CheckClosed
		if err := agent.Push(c); err != nil {
			t.Fatal(err)
		}
		want = append(want, c.CheckNumber)
	}
	flushAgent(t, agent)

	svc := bills.NewService(env.Client(t, client.WithAPIKey(env.NewAPIKey(t, loc))))
	now := time.Now()
	list, err := svc.ListClosed(context.Background(), loc, now.Add(-time.Hour), now.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	var got []int64
	for _, s := range list {
		b, err := svc.Get(context.Background(), s.BillID, nil)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, b.CheckNumber)
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("closed bills after Flush: checks %v, want %v", got, want)
	}
}

// TestE2EFlushRefused: a check the service refuses (over the body limit,
// which Validate cannot see) makes Flush fail with the service's error,
// while the other checks are delivered.
func TestE2EFlushRefused(t *testing.T) {
	t.Parallel()
	s := newSite(t, nil)
	agent, err := possync.NewAgent(s.POS, fastAgent(s.ID, noSave))
	if err != nil {
		t.Fatal(err)
	}
	good := loadCheck(t, s.ID)
	huge := loadCheck(t, s.ID)
	huge.CheckNumber++
	huge.StaffID = strings.Repeat("x", 2<<20)
	for _, c := range []*possync.Check{good, huge} {
		if err := agent.Push(c); err != nil {
			t.Fatal(err)
		}
	}
	possync.StartAgent(t, agent)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err = agent.Flush(ctx)
	if !errors.Is(err, client.ErrBodyTooLarge) {
		t.Fatalf("Flush: %v, want the service's 413001", err)
	}
	// The agent runs while Flush starts, so the good check may be
	// delivered before Flush counts what is queued: 1 of 2, or 1 of 1.
	if want := "the service refused 1 of "; !strings.Contains(err.Error(), want) {
		t.Errorf("Flush: %q, want it to say %q", err, want)
	}
	if st := agent.Stats(); st.Sent != 1 || st.Failed != 1 || st.Queued != 0 {
		t.Errorf("stats after Flush: %v", st)
	}
}

// TestE2EFlushDeadline: while the service fails every push, Flush gives up
// when its ctx ends and says why the checks are still waiting.
func TestE2EFlushDeadline(t *testing.T) {
	t.Parallel()
	env := refservertest.Start(t)
	loc, posTok := env.NewLocation(t, "Taverna", "providerB")
	sb := sandbox.NewService(env.Client(t, client.WithAdminKey(env.AdminKey)))
	if _, err := sb.AddFault(context.Background(), sandbox.FaultRequest{
		Method: "POST", PathPrefix: "/v1/pos/push-pull/check", Status: 503, Count: 1000,
	}); err != nil {
		t.Fatal(err)
	}
	agent, err := possync.NewAgent(possync.NewService(env.Client(t, client.WithAccessToken(posTok))), fastAgent(loc, noSave))
	if err != nil {
		t.Fatal(err)
	}
	if err := agent.Push(loadCheck(t, loc)); err != nil {
		t.Fatal(err)
	}
	possync.StartAgent(t, agent)
	sdktest.Eventually(t, "a failed delivery", func() bool { return agent.Stats().Retried > 0 })
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	err = agent.Flush(ctx)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Flush: %v, want context.DeadlineExceeded", err)
	}
	for _, want := range []string{"1 of 1 checks not delivered yet", "last error: ", "503"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Flush: %q, want it to say %q", err, want)
		}
	}
}
