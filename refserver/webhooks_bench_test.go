package refserver_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hospo-dev/hospo-go/refserver"
	"github.com/hospo-dev/hospo-go/refserver/store"
)

// BenchmarkWebhookBacklog measures the delivery of a backlog to one
// webhook subscribed to "*": b.N bill.closed events wait in the database,
// each with its pending delivery, and the server starts on it; the
// benchmark ends when the receiver (in process, answering 200 at once) has
// had them all. Deliveries per second is the dispatcher's pace with the
// receiver and the writer free; CPU per delivery is the server's and the
// receiver's together, the figure a shared machine disturbs least.
//
//	go test -run='^$' -bench=WebhookBacklog -benchtime=20000x ./refserver/
func BenchmarkWebhookBacklog(b *testing.B) {
	var got atomic.Int64
	done := make(chan struct{})
	n := int64(b.N)
	rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.WriteHeader(http.StatusOK)
		if got.Add(1) == n {
			close(done)
		}
	}))
	defer rc.Close()

	path := filepath.Join(b.TempDir(), "bench.db")
	ts := httptest.NewUnstartedServer(nil)
	base := "http://" + ts.Listener.Addr().String()
	cfg := refserver.Config{DBPath: path, AdminKey: benchAdminKey, BaseURL: base, Logger: slog.New(slog.DiscardHandler)}
	srv, err := refserver.New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	ts.Config.Handler = srv.Handler()
	ts.Start()
	loc, _ := benchLocation(b, base, 0)
	var key struct {
		APIKey string `json:"apiKey"`
	}
	benchPost(b, base+"/sandbox/api-keys", "X-Sandbox-Admin-Key", benchAdminKey, `{"locationIds":[`+strconv.FormatInt(loc, 10)+`]}`, &key)
	benchPost(b, base+"/v1/webhooks", "X-Vendor-API-Key", key.APIKey, `{"url":"`+rc.URL+`/hook","events":["*"]}`, nil)
	ts.Close()
	if err := srv.Close(); err != nil {
		b.Fatal(err)
	}

	// The backlog, written straight into the database.
	ctx := context.Background()
	db, err := store.Open(ctx, path, nil)
	if err != nil {
		b.Fatal(err)
	}
	const perTx = 1000
	for from := 0; from < b.N; from += perTx {
		err := db.Write(ctx, func(tx *store.Tx) error {
			for i := from; i < min(from+perTx, b.N); i++ {
				data := `{"billId":"bill_` + strconv.Itoa(i) + `","locationId":` + strconv.FormatInt(loc, 10) +
					`,"checkNumber":` + strconv.Itoa(i) + `,"totalAmount":"12.50","lastUpdated":"2026-11-27T05:00:00Z"}`
				seq, err := tx.InsertEvent(store.Event{EventID: "evt_bench" + strconv.Itoa(i), Type: "bill.closed", LocationID: &loc, DataJSON: data})
				if err != nil {
					return err
				}
				if q, err := tx.QueueDeliveries(seq, "bill.closed", loc); err != nil || q != 1 {
					b.Fatalf("queue deliveries: %d, %v", q, err)
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	if err := db.Close(); err != nil {
		b.Fatal(err)
	}

	b.ResetTimer()
	cpu0 := processCPU()
	srv, err = refserver.New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	select {
	case <-done:
	case <-time.After(10 * time.Minute):
		b.Fatalf("%d of %d deliveries after 10 minutes", got.Load(), b.N)
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "deliveries/s")
	if cpu := processCPU() - cpu0; cpu > 0 {
		b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu-µs/delivery")
	}
}

// benchPost POSTs body to url with the header h: v and decodes the answer
// into out (when not nil).
func benchPost(b *testing.B, url, h, v, body string, out any) {
	b.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(h, v)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		msg, _ := io.ReadAll(resp.Body)
		b.Fatalf("POST %s: %d %s", url, resp.StatusCode, msg)
	}
	if out != nil {
		if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
			b.Fatal(err)
		}
	}
}
