package main

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hospo-dev/hospo-go/bills"
	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/possync"
	"github.com/hospo-dev/hospo-go/refserver/refservertest"
)

// A seeded database is one the server runs on: its credentials work, the
// busy location's bills are listed in its last 31 days, closed bills carry
// their payments, and a POS can push on top of it.
func TestSeededDatabaseServes(t *testing.T) {
	db := filepath.Join(t.TempDir(), "seeded.db")
	var out, progress bytes.Buffer
	err := run(context.Background(), []string{"-db", db, "-locations", "20", "-bills", "3000", "-busy-bills", "400",
		"-users", "10", "-orders", "50", "-batch", "250"}, &out, &progress)
	if err != nil {
		t.Fatal(err)
	}
	var res result
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatalf("output %q: %v", out.String(), err)
	}
	if res.Locations != 20 || res.Bills != 3000 || res.Orders != 50 || res.Payments == 0 || res.BytesPerBill == 0 {
		t.Errorf("result = %+v", res)
	}

	env := refservertest.Start(t, func(c *refservertest.Options) { c.DBPath = db })
	ctx := context.Background()
	c := env.Client(t, client.WithAPIKey(res.BusyAPIKey))
	svc := bills.NewService(c)
	to := time.Unix(res.To, 0).Add(time.Minute)
	var n, paid int
	for b, err := range svc.All(ctx, res.BusyLocationID, to.Add(-31*24*time.Hour), to, []bills.Scope{bills.ScopePayments}) {
		if err != nil {
			t.Fatal(err)
		}
		n++
		if len(b.Payments) > 0 {
			paid++
		}
	}
	// About 96 % of the bills are closed; the rest stay open or are void.
	if n < 340 || n > 400 || paid == 0 {
		t.Errorf("listed %d closed bills of the busy location's 400, %d with payments", n, paid)
	}

	pos := possync.NewService(env.Client(t, client.WithAccessToken(res.BusyPOSToken)))
	if _, err := pos.PushCheck(ctx, newCheckForTest(res.BusyLocationID)); err != nil {
		t.Fatalf("push on the seeded database: %v", err)
	}
}

// A run refuses to write into an existing file and says why.
func TestSeedRefusesExistingFile(t *testing.T) {
	db := filepath.Join(t.TempDir(), "seeded.db")
	args := []string{"-db", db, "-locations", "2", "-bills", "10", "-busy-bills", "5", "-users", "1", "-orders", "0"}
	if err := run(context.Background(), args, &bytes.Buffer{}, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	err := run(context.Background(), args, &bytes.Buffer{}, &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "exists") {
		t.Errorf("second run: %v, want a refusal", err)
	}
}
