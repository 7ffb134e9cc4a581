package rules

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/refserver/internal/api"
	"github.com/hospo-dev/hospo-go/refserver/store"
	"github.com/hospo-dev/hospo-go/wallet"
)

func TestCheckPayment(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		body string
		want map[string]string
	}{
		{"good", `{"locationId":1,"checkNumber":1,"cardId":1,"amount":1.50,"tip":0}`, nil},
		{"missing and null", `{"locationId":1,"cardId":null,"amount":1}`, map[string]string{
			"checkNumber": "required", "cardId": "required", "tip": "required"}},
		{"tip bound", `{"locationId":1,"checkNumber":1,"cardId":1,"amount":1,"tip":1000000.01}`, map[string]string{
			"tip": "must be at most 1000000.00"}},
		{"tip at the bound", `{"locationId":1,"checkNumber":1,"cardId":1,"amount":1,"tip":1000000}`, nil},
		{"negative tip", `{"locationId":1,"checkNumber":1,"cardId":1,"amount":1,"tip":-0.01}`, map[string]string{
			"tip": "must not be negative"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var req wallet.CreatePaymentRequest
			if err := api.DecodeBytes([]byte(tt.body), &req); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, fieldErrors(t, CheckPayment([]byte(tt.body), &req))); diff != "" {
				t.Errorf("fields (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCreatePayment(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		setup  func(t *testing.T, s scene, req *wallet.CreatePaymentRequest)
		amount string
		want   client.Code
	}{
		{"pays", nil, "10.00", 0},
		{"unknown location", func(_ *testing.T, _ scene, req *wallet.CreatePaymentRequest) { req.LocationID = 99 }, "1", client.CodeNotFound},
		{"unknown card", func(_ *testing.T, _ scene, req *wallet.CreatePaymentRequest) { req.CardID = 99 }, "1", client.CodeNotFound},
		{"another user's card", func(t *testing.T, s scene, req *wallet.CreatePaymentRequest) {
			write(t, s.db, func(tx *store.Tx) (err error) {
				req.CardID, err = addCard(tx, s.other, "providerB", false)
				return err
			})
		}, "1", client.CodeNotFound},
		{"unknown check", func(_ *testing.T, _ scene, req *wallet.CreatePaymentRequest) { req.CheckNumber = 8 }, "1", client.CodeNotFound},
		{"void check", func(t *testing.T, s scene, _ *wallet.CreatePaymentRequest) {
			write(t, s.db, func(tx *store.Tx) error {
				_, _, _, err := tx.UpsertCheck(withBillID("unused", checkRow(s.loc, s.check, "void", 1000)))
				return err
			})
		}, "1", client.CodeNotFound},
		{"blocked card", func(t *testing.T, s scene, _ *wallet.CreatePaymentRequest) {
			write(t, s.db, func(tx *store.Tx) error { return tx.SetCardStatus(s.card, int(wallet.CardStatusBlockedFraud)) })
		}, "1", client.CodeCardNotUsable},
		{"temporary card", func(t *testing.T, s scene, _ *wallet.CreatePaymentRequest) {
			write(t, s.db, func(tx *store.Tx) error { return tx.SetCardStatus(s.card, int(wallet.CardStatusTemporary)) })
		}, "1", 0},
		{"no token for the gateway", func(t *testing.T, s scene, req *wallet.CreatePaymentRequest) {
			write(t, s.db, func(tx *store.Tx) (err error) {
				req.CardID, err = addCard(tx, s.user, "providerD", false)
				return err
			})
		}, "1", client.CodeCardNotTokenised},
		{"never a heartbeat", func(t *testing.T, s scene, req *wallet.CreatePaymentRequest) {
			write(t, s.db, func(tx *store.Tx) (err error) {
				if req.LocationID, err = tx.InsertLocation("Quiet", "providerB"); err != nil {
					return err
				}
				_, _, _, err = tx.UpsertCheck(withBillID("quiet-1", checkRow(req.LocationID, req.CheckNumber, "open", 1000)))
				return err
			})
		}, "1", client.CodeLocationOffline},
		{"heartbeat at the window's edge", func(_ *testing.T, s scene, _ *wallet.CreatePaymentRequest) {
			s.clock.Advance(POSOnlineWindow)
		}, "1", 0},
		{"stale heartbeat", func(_ *testing.T, s scene, _ *wallet.CreatePaymentRequest) {
			s.clock.Advance(POSOnlineWindow + time.Second)
		}, "1", client.CodeLocationOffline},
		{"more than outstanding", nil, "10.01", client.CodeAmountExceedsOutstanding},
		{"outstanding less pending", func(t *testing.T, s scene, _ *wallet.CreatePaymentRequest) {
			s.pay(t, "4.00", "0")
		}, "6.00", 0},
		{"more than outstanding less pending", func(t *testing.T, s scene, _ *wallet.CreatePaymentRequest) {
			s.pay(t, "4.00", "0")
		}, "6.01", client.CodeAmountExceedsOutstanding},
		{"declined", func(t *testing.T, s scene, req *wallet.CreatePaymentRequest) {
			write(t, s.db, func(tx *store.Tx) (err error) {
				req.CardID, err = addCard(tx, s.user, "providerB", true)
				return err
			})
		}, "1", client.CodePaymentDeclined},
	}
	// A 404001 names the kind of thing not found, the same for another
	// user's card as for an unknown one.
	notFoundMessages := map[string]string{
		"unknown location":    "Location not found.",
		"unknown card":        "Card not found.",
		"another user's card": "Card not found.",
		"unknown check":       "Check not found.",
		"void check":          "Check not found.",
	}
	// A 409003 tells when the POS was last heard from.
	lastHeartbeat := testNow.Unix()
	offlineContexts := map[string]any{
		"never a heartbeat": offlineContext{LastHeartbeat: nil, OfflineAfterSeconds: 360},
		"stale heartbeat":   offlineContext{LastHeartbeat: &lastHeartbeat, OfflineAfterSeconds: 360},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newScene(t)
			req := wallet.CreatePaymentRequest{LocationID: s.loc, CheckNumber: s.check, CardID: s.card,
				Amount: client.MustParseMoney(tt.amount), Tip: client.MustParseMoney("0.50")}
			if tt.setup != nil {
				tt.setup(t, s, &req)
			}
			p, err := run(t, s.db, func(tx *store.Tx) (wallet.Payment, error) { return CreatePayment(tx, s.user, req) })
			wantCode(t, err, tt.want)
			if err != nil {
				var ae *api.Error
				errors.As(err, &ae)
				if want, ok := notFoundMessages[tt.name]; ok && ae.Message != want {
					t.Errorf("message %q, want %q", ae.Message, want)
				}
				if want, ok := offlineContexts[tt.name]; ok {
					if diff := cmp.Diff(want, ae.ContextData); diff != "" {
						t.Errorf("contextData (-want +got):\n%s", diff)
					}
				}
				return
			}
			want := wallet.Payment{PaymentID: p.PaymentID, LocationID: s.loc, CheckNumber: s.check, BillID: s.bill,
				CardID: req.CardID, Amount: req.Amount, Tip: req.Tip, Status: wallet.PaymentPending,
				CreatedAt: client.UnixTime{Time: s.clock.Now().Truncate(time.Second)}}
			if diff := cmp.Diff(want, p, exactMoney); diff != "" {
				t.Errorf("payment (-want +got):\n%s", diff)
			}
			// What was stored is what was answered.
			got, err := run(t, s.db, func(tx *store.Tx) (wallet.Payment, error) { return GetPayment(tx, s.user, p.PaymentID) })
			if err != nil || got != p {
				t.Errorf("GetPayment = %+v, %v; want %+v", got, err, p)
			}
		})
	}
}

// A card without a token for the location's gateway names the gateway,
// so that a client can add the card for it.
func TestCreatePaymentNamesTheMissingGateway(t *testing.T) {
	t.Parallel()
	s := newScene(t)
	var card int64
	write(t, s.db, func(tx *store.Tx) (err error) {
		card, err = addCard(tx, s.user, "providerD", false)
		return err
	})
	_, err := run(t, s.db, func(tx *store.Tx) (wallet.Payment, error) {
		return CreatePayment(tx, s.user, wallet.CreatePaymentRequest{LocationID: s.loc, CheckNumber: s.check, CardID: card, Amount: client.MustParseMoney("1")})
	})
	var ae *api.Error
	if !errors.As(err, &ae) || ae.Code != client.CodeCardNotTokenised {
		t.Fatalf("err = %v, want 404006", err)
	}
	if diff := cmp.Diff(map[string]string{"gateway": "providerB"}, ae.ContextData); diff != "" {
		t.Errorf("contextData (-want +got):\n%s", diff)
	}
}

func TestGetPayment(t *testing.T) {
	t.Parallel()
	s := newScene(t)
	p := s.pay(t, "1", "0")
	tests := []struct {
		name      string
		user, id  int64
		wantFound bool
	}{
		{"own", s.user, p.PaymentID, true},
		{"another user's", s.other, p.PaymentID, false},
		{"unknown", s.user, p.PaymentID + 1, false},
	}
	for _, tt := range tests {
		got, err := run(t, s.db, func(tx *store.Tx) (wallet.Payment, error) { return GetPayment(tx, tt.user, tt.id) })
		if tt.wantFound {
			if err != nil || got != p {
				t.Errorf("%s: %+v, %v; want %+v", tt.name, got, err, p)
			}
			continue
		}
		if !errors.Is(err, client.ErrNotFound) || err.(*api.Error).Message != "Payment not found." {
			t.Errorf("%s: err = %v, want 404001 Payment not found.", tt.name, err)
		}
	}
}
