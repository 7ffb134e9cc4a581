package outbound

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hospo-dev/hospo-go/refserver/internal/storetest"
	"github.com/hospo-dev/hospo-go/refserver/store"
)

// A registration that comes while the same location's check is running is
// not dropped: it runs once the running check ends, rather than at the
// next tick, so that a change the running check did not see (a new demo
// POS mode) shows at once.
func TestMonitorRunsARegistrationThatCameDuringACheck(t *testing.T) {
	t.Parallel()
	arrived := make(chan struct{}, 8)
	release := make(chan struct{})
	var once sync.Once
	pos := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasSuffix(r.URL.Path, "/health") {
			http.Error(w, "no menus here", http.StatusNotFound)
			return
		}
		arrived <- struct{}{}
		once.Do(func() { <-release }) // the first check hangs until told
		io.WriteString(w, `{"status":"OK"}`)
	}))
	defer pos.Close()

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	db := storetest.Open(t, store.MemoryPath, nil)
	var loc int64
	tokens := store.NewPOSTokens("admin-key")
	err := db.Write(ctx, func(tx *store.Tx) (err error) {
		url, token := pos.URL, "pos-token"
		if loc, err = tx.InsertLocation("Cafe", "providerA"); err != nil {
			return err
		}
		return tx.SetLocationPOS(tokens, loc, &url, &token)
	})
	if err != nil {
		t.Fatal(err)
	}
	m := NewMonitor(MonitorConfig{DB: db, Now: time.Now, HTTPClient: pos.Client(), Tokens: tokens, Logger: slog.New(slog.DiscardHandler),
		HealthInterval: time.Hour, MenuSyncInterval: time.Hour})
	stop := runScheduled(t, m.Schedule, m.Wait)
	defer func() { close(release); stop() }()

	wait := func(what string) {
		t.Helper()
		select {
		case <-arrived:
		case <-time.After(10 * time.Second):
			t.Fatalf("%s never came", what)
		}
	}
	wait("the first health check")
	m.Registered(loc) // while the first check hangs
	release <- struct{}{}
	wait("the health check of the registration")
}
