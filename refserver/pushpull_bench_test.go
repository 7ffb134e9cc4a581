package refserver_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/refserver"
	"github.com/hospo-dev/hospo-go/refserver/internal/storetest"
	"github.com/hospo-dev/hospo-go/refserver/store"
)

// BenchmarkCheckPush measures check pushes per second through the whole
// server: real HTTP on loopback to an in-process server (rate limit off),
// auth, decoding and validation of a realistic nested check of about 2 KB,
// and one write transaction per push. Goroutines push for many locations
// at once, and every push changes its check (a new outstanding amount), so
// each one writes.
//
//	go test -run='^$' -bench=CheckPush -benchtime=20000x ./refserver/
//
// "idempotency-key" sends an Idempotency-Key with every push, as the SDK
// (and so the Agent) does; "no-key" sends none.
func BenchmarkCheckPush(b *testing.B) {
	for _, withKey := range []bool{true, false} {
		name := "no-key"
		if withKey {
			name = "idempotency-key"
		}
		b.Run(name, func(b *testing.B) { benchCheckPush(b, withKey) })
	}
}

func benchCheckPush(b *testing.B, withKey bool) {
	base := benchServer(b)
	const locations = 64
	type pos struct {
		url            string
		prefix, middle []byte // the check's JSON around checkNumber and outstandingAmount
		suffix         []byte
	}
	poses := make([]pos, locations)
	for i := range poses {
		loc, tok := benchLocation(b, base, i)
		c := fixtureCheck(b, loc)
		// Two more lines bring the check to about 2 KB.
		c.MenuItems = append(c.MenuItems, c.MenuItems[0], c.MenuItems[1])
		// Sentinels mark where each push's own values go.
		c.CheckNumber = 987654321
		c.OutstandingAmount = client.MustParseMoney("12345.67")
		body, err := json.Marshal(c)
		if err != nil {
			b.Fatal(err)
		}
		pre, rest, ok1 := bytes.Cut(body, []byte("987654321"))
		mid, suf, ok2 := bytes.Cut(rest, []byte("12345.67"))
		if !ok1 || !ok2 {
			b.Fatal("sentinels not found")
		}
		poses[i] = pos{url: base + "/v1/pos/push-pull/check?accessToken=" + tok, prefix: pre, middle: mid, suffix: suf}
	}
	b.Logf("check body: %d bytes", len(poses[0].prefix)+len(poses[0].middle)+len(poses[0].suffix)+16)

	hc := &http.Client{Transport: &http.Transport{MaxIdleConns: 512, MaxIdleConnsPerHost: 512}}
	var next atomic.Int64
	b.SetParallelism(32) // 64 concurrent POSes on 2 cores
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := processCPU()
	b.RunParallel(func(pb *testing.PB) {
		p := poses[int(next.Add(1)-1)%locations]
		var body []byte
		var key [16]byte
		for n := 0; pb.Next(); n++ {
			body = append(body[:0], p.prefix...)
			body = strconv.AppendInt(body, int64(n%50)+1, 10) // 50 open checks per POS
			body = append(body, p.middle...)
			body = strconv.AppendInt(body, int64(n), 10) // a new outstanding amount: new content
			body = append(body, p.suffix...)
			req, _ := http.NewRequest(http.MethodPost, p.url, bytes.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			if withKey {
				_, _ = rand.Read(key[:])
				req.Header.Set("Idempotency-Key", hex.EncodeToString(key[:]))
			}
			resp, err := hc.Do(req)
			if err != nil {
				b.Error(err)
				return
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				b.Errorf("status %d", resp.StatusCode)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "pushes/s")
	if cpu := processCPU() - cpu0; cpu > 0 {
		// Server and load generator together: an upper bound of the
		// server's own CPU per push.
		b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu-µs/push")
	}
}

// benchAdminKey is the admin key of benchServer's server.
const benchAdminKey = "bench-admin-key"

// benchServer starts a server on a temporary database behind a plain
// httptest listener and returns its base URL. Unlike refservertest, it
// does not check every exchange against the OpenAPI document, which would
// cost more than the push itself.
func benchServer(b *testing.B) string {
	b.Helper()
	ts := httptest.NewUnstartedServer(nil)
	base := "http://" + ts.Listener.Addr().String()
	srv, err := refserver.New(refserver.Config{
		DBPath:   filepath.Join(b.TempDir(), "bench.db"),
		AdminKey: benchAdminKey,
		BaseURL:  base,
		Logger:   slog.New(slog.DiscardHandler),
	})
	if err != nil {
		b.Fatal(err)
	}
	ts.Config.Handler = srv.Handler()
	ts.Start()
	b.Cleanup(func() {
		ts.Close()
		if err := srv.Close(); err != nil {
			b.Error(err)
		}
	})
	return base
}

// benchLocation creates a location (POST /sandbox/locations) and returns
// its id and POS token.
func benchLocation(b *testing.B, base string, i int) (int64, string) {
	b.Helper()
	body := `{"name":"Bench ` + strconv.Itoa(i) + `","gateway":"providerB"}`
	req, _ := http.NewRequest(http.MethodPost, base+"/sandbox/locations", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Sandbox-Admin-Key", benchAdminKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		LocationID     int64  `json:"locationId"`
		POSAccessToken string `json:"posAccessToken"`
	}
	if resp.StatusCode != http.StatusCreated {
		b.Fatalf("POST /sandbox/locations: %d", resp.StatusCode)
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		b.Fatal(err)
	}
	return out.LocationID, out.POSAccessToken
}

// BenchmarkUpsertCheckTx measures the serialised part of a push alone: one
// write transaction with the check upsert on the single writer connection,
// as the handler runs it (without the HTTP, auth and decoding around it,
// which run in parallel). Its inverse is the ceiling of pushes per second.
//
//	go test -run='^$' -bench=UpsertCheckTx -benchtime=20000x ./refserver/
func BenchmarkUpsertCheckTx(b *testing.B) {
	ctx := context.Background()
	db := storetest.Open(b, filepath.Join(b.TempDir(), "bench.db"), nil)
	locations := 64
	if n, err := strconv.Atoi(os.Getenv("POSBENCH_LOCATIONS")); err == nil {
		locations = n
	}
	var locs []int64
	err := db.Write(ctx, func(tx *store.Tx) error {
		for i := range locations {
			id, err := tx.InsertLocation("Bench "+strconv.Itoa(i), "providerB")
			if err != nil {
				return err
			}
			locs = append(locs, id)
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	c := fixtureCheck(b, locs[0])
	c.MenuItems = append(c.MenuItems, c.MenuItems[0], c.MenuItems[1])
	body, _ := json.Marshal(c)
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		row := store.CheckRow{
			NewBillID:  "bill-" + strconv.Itoa(i),
			LocationID: locs[i%locations], CheckNumber: int64(i/locations%50) + 1, Status: "open",
			ContentHash: strconv.Itoa(i), CheckJSON: string(body),
			CheckSummary: store.CheckSummary{StaffID: "s", OutstandingAmount: int64(i)},
		}
		err := db.Write(ctx, func(tx *store.Tx) error {
			_, _, _, err := tx.UpsertCheck(row)
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "tx/s")
}
