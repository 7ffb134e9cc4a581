package sandbox_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/sandbox"
	"github.com/hospo-dev/hospo-go/wallet"
)

func TestE2ESnapshots(t *testing.T) {
	t.Parallel()
	env, sb := startSandbox(t)
	ctx := context.Background()

	u, err := sb.CreateUser(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sb.AdvanceClock(ctx, time.Hour); err != nil {
		t.Fatal(err)
	}
	want, err := sb.Fixtures(ctx)
	if err != nil {
		t.Fatal(err)
	}
	snap, err := sb.CreateSnapshot(ctx, "one user")
	if err != nil {
		t.Fatal(err)
	}
	if snap.Name != "one user" || snap.SizeBytes <= 0 || snap.SnapshotID == "" {
		t.Errorf("snapshot = %+v", snap)
	}
	if _, err := sb.CreateSnapshot(ctx, ""); !errors.Is(err, client.ErrValidation) {
		t.Errorf("empty name: err = %v, want ErrValidation", err)
	}

	// What comes after the snapshot is dropped by the restore.
	if _, err := sb.Reset(ctx); err != nil {
		t.Fatal(err)
	}
	later, err := sb.CreateUser(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sb.AddFault(ctx, sandbox.FaultRequest{PathPrefix: "/v1/", Status: 503}); err != nil {
		t.Fatal(err)
	}

	got, err := sb.RestoreSnapshot(ctx, snap.SnapshotID)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("restored fixture (-want +got):\n%s", d)
	}
	if c, err := sb.Clock(ctx); err != nil || c.Offset() != time.Hour {
		t.Errorf("clock after restore: %+v, %v; want the snapshot's hour", c, err)
	}
	if fs, err := sb.Faults(ctx); err != nil || len(fs) != 0 {
		t.Errorf("faults after restore: %v, %v; want none", fs, err)
	}
	walletOf := func(token string) error {
		_, err := wallet.NewService(env.Client(t, client.WithAccessToken(token))).GetWallet(ctx)
		return err
	}
	if err := walletOf(u.AccessToken); err != nil {
		t.Errorf("user of the snapshot: %v", err)
	}
	if err := walletOf(later.AccessToken); !errors.Is(err, client.ErrAccessTokenInvalid) {
		t.Errorf("user made after the snapshot: %v, want ErrAccessTokenInvalid", err)
	}

	list, err := sb.Snapshots(ctx)
	if err != nil || len(list) != 1 || list[0] != snap {
		t.Errorf("snapshots = %+v, %v; want the one", list, err)
	}
	if err := sb.DeleteSnapshot(ctx, snap.SnapshotID); err != nil {
		t.Fatal(err)
	}
	if _, err := sb.RestoreSnapshot(ctx, snap.SnapshotID); !errors.Is(err, client.ErrNotFound) {
		t.Errorf("restore of a deleted snapshot: %v, want ErrNotFound", err)
	}
	if err := sb.DeleteSnapshot(ctx, snap.SnapshotID); !errors.Is(err, client.ErrNotFound) {
		t.Errorf("second delete: %v, want ErrNotFound", err)
	}
}

// TestE2ERestoreBeforeEachSubtest sets a scene up once (a diner with a
// card) and starts each subtest from it with refservertest's Restore, so
// that what one subtest does to the card cannot leak into the next.
func TestE2ERestoreBeforeEachSubtest(t *testing.T) {
	t.Parallel()
	env, sb := startSandbox(t)
	ctx := context.Background()
	trust, err := sb.ProviderTrust(ctx)
	if err != nil {
		t.Fatal(err)
	}
	u, err := sb.CreateUser(ctx)
	if err != nil {
		t.Fatal(err)
	}
	w := wallet.NewService(env.Client(t, client.WithAccessToken(u.AccessToken)), trust)
	card, err := w.AddCard(ctx, wallet.AddCardRequest{Card: testCard(), Providers: []wallet.Gateway{wallet.ProviderB}})
	if err != nil {
		t.Fatal(err)
	}
	scene := env.Snapshot(t, "diner with a card")

	status := func(t *testing.T) wallet.CardStatus {
		t.Helper()
		got, err := w.GetWallet(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Wallet) != 1 {
			t.Fatalf("wallet = %+v, want the one card", got.Wallet)
		}
		return got.Wallet[0].CardStatusID
	}
	// Each subtest blocks the card in its own way and finds it live first.
	for _, block := range []wallet.CardStatus{wallet.CardStatusBlockedFraud, wallet.CardStatusUserCancelled} {
		t.Run(block.String(), func(t *testing.T) {
			env.Restore(t, scene.SnapshotID)
			if got := status(t); got != wallet.CardStatusLive {
				t.Fatalf("card status %v at the start, want live", got)
			}
			if err := sb.SetCardStatus(ctx, card.CardID, block); err != nil {
				t.Fatal(err)
			}
			if got := status(t); got != block {
				t.Errorf("card status %v, want %v", got, block)
			}
		})
	}
}
