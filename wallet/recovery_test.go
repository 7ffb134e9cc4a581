package wallet

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/jarcoal/httpmock"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/internal/sdktest"
)

func cardJSON(id int64, gw string, status int) string {
	return `{"cardId":` + strconv.Itoa(int(id)) + `,"last4Digits":"1111","nickname":"","cardTypeId":"1","cardStatusId":` + strconv.Itoa(status) +
		`,"default":false,"expiryMonth":"04","expiryYear":"31","gateways":{"` + gw + `":true}}`
}

// payServer answers payments: 404006 for cards in notTokenised, a payment
// otherwise. It records the card and Idempotency-Key of every attempt.
type payServer struct {
	mu           sync.Mutex
	notTokenised map[int64]bool
	other        client.Code // when set, every payment fails with it
	cards, keys  []string
}

func (p *payServer) responder(t *testing.T) httpmock.Responder {
	return func(r *http.Request) (*http.Response, error) {
		b, _ := io.ReadAll(r.Body)
		var req CreatePaymentRequest
		if err := json.Unmarshal(b, &req); err != nil {
			t.Errorf("payment body: %v", err)
		}
		p.mu.Lock()
		p.cards = append(p.cards, strconv.Itoa(int(req.CardID)))
		p.keys = append(p.keys, r.Header.Get("Idempotency-Key"))
		p.mu.Unlock()
		switch {
		case p.other != 0:
			return httpmock.NewStringResponse(p.other.HTTPStatus(), sdktest.ErrorBody(p.other, "")), nil
		case p.notTokenised[req.CardID]:
			return httpmock.NewStringResponse(404, sdktest.ErrorBody(client.CodeCardNotTokenised, "")), nil
		}
		return httpmock.NewStringResponse(201, paymentJSON(77, req.CardID, "pending")), nil
	}
}

func TestPayWithRecovery(t *testing.T) {
	t.Parallel()
	const key = "order-42-payment"
	tests := []struct {
		name        string
		wallet      string // cards of GET /v1/user/me
		gateway     string
		other       client.Code
		wantErr     error
		wantCards   string // cards paid with, in order
		wantKeys    []string
		wantInserts int
		wantAsked   int
	}{
		{
			name:   "tokenises and pays with the new entry",
			wallet: cardJSON(1, "providerB", 1), gateway: "providerD",
			wantCards: "1,3", wantKeys: []string{key, RecoveryIdempotencyKey(key)}, wantInserts: 1, wantAsked: 1,
		},
		{
			name:   "reuses an entry a previous run inserted",
			wallet: cardJSON(1, "providerB", 1) + "," + cardJSON(3, "providerD", 1) + "," + cardJSON(2, "providerD", 4), gateway: "providerD",
			wantCards: "1,2", wantKeys: []string{key, RecoveryIdempotencyKey(key)},
		},
		{
			name: "skips an entry of another card type with the same last digits and expiry",
			wallet: cardJSON(1, "providerB", 1) + "," +
				strings.Replace(cardJSON(2, "providerD", 1), `"cardTypeId":"1"`, `"cardTypeId":"2"`, 1),
			gateway:   "providerD",
			wantCards: "1,3", wantKeys: []string{key, RecoveryIdempotencyKey(key)}, wantInserts: 1, wantAsked: 1,
		},
		{
			name:   "skips unusable entries",
			wallet: cardJSON(1, "providerB", 1) + "," + cardJSON(2, "providerD", 2), gateway: "providerD",
			wantCards: "1,3", wantKeys: []string{key, RecoveryIdempotencyKey(key)}, wantInserts: 1, wantAsked: 1,
		},
		{
			name:   "unsupported gateway",
			wallet: cardJSON(1, "providerB", 1), gateway: "providerA",
			wantErr: ErrUnsupportedGateway, wantCards: "1", wantKeys: []string{key},
		},
		{
			name: "other errors pass through", other: client.CodeLocationOffline,
			wantErr: client.ErrLocationOffline, wantCards: "1", wantKeys: []string{key},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, m := newMockService(t)
			mockProviders(t, m)
			ps := &payServer{notTokenised: map[int64]bool{1: true}, other: tt.other}
			m.Handle(http.MethodPost, "payments/v1/payment", ps.responder(t))
			m.Reply(http.MethodGet, "v1/location/3", 200,
				`{"location":{"locationId":3,"name":"Quay","locationPaymentDetails":{"gateway":"`+tt.gateway+`"},"posStatus":"online","lastHeartbeat":1700000000,"universalPos":null},`+requestInfoJSON+`}`)
			m.Reply(http.MethodGet, "v1/user/me", 200,
				`{"user":{"userId":1,"userStatus":1,"dateCreated":1,"lastUpdated":1,"defaultCardId":1,"wallet":[`+tt.wallet+`]},`+requestInfoJSON+`}`)
			ins := m.Reply(http.MethodPost, "v3/user/me/wallet/card/insert", 200,
				`{"wallet":[`+cardJSON(1, "providerB", 1)+`,`+cardJSON(3, "providerD", 1)+`],`+requestInfoJSON+`}`)

			asked := 0
			p, err := s.PayWithRecovery(context.Background(), RecoveryRequest{
				Payment:        CreatePaymentRequest{LocationID: 3, CheckNumber: 1042, CardID: 1, Amount: client.MustParseMoney("10")},
				IdempotencyKey: key,
				CardDetails: func(_ context.Context, gw Gateway) (CardDetails, error) {
					asked++
					if string(gw) != tt.gateway {
						t.Errorf("asked for details for %s", gw)
					}
					return testCard, nil
				},
			})
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err = %v, want %v", err, tt.wantErr)
				}
			} else if err != nil {
				t.Fatalf("PayWithRecovery: %v", err)
			} else if got := strconv.Itoa(int(p.CardID)); !strings.HasSuffix(tt.wantCards, got) {
				t.Errorf("paid with card %s, want the last of %s", got, tt.wantCards)
			}
			if got := strings.Join(ps.cards, ","); got != tt.wantCards {
				t.Errorf("payment attempts with cards %s, want %s", got, tt.wantCards)
			}
			if strings.Join(ps.keys, " ") != strings.Join(tt.wantKeys, " ") {
				t.Errorf("Idempotency-Keys %q, want %q", ps.keys, tt.wantKeys)
			}
			if ins.Count() != tt.wantInserts || asked != tt.wantAsked {
				t.Errorf("inserts %d, details asked %d; want %d, %d", ins.Count(), asked, tt.wantInserts, tt.wantAsked)
			}
		})
	}
}

func TestPayWithRecoverySecond404006(t *testing.T) {
	t.Parallel()
	s, m := newMockService(t)
	ps := &payServer{notTokenised: map[int64]bool{1: true, 2: true}}
	m.Handle(http.MethodPost, "payments/v1/payment", ps.responder(t))
	m.Reply(http.MethodGet, "v1/location/3", 200,
		`{"location":{"locationId":3,"name":"Q","locationPaymentDetails":{"gateway":"providerD"},"posStatus":"online","lastHeartbeat":null,"universalPos":null},`+requestInfoJSON+`}`)
	m.Reply(http.MethodGet, "v1/user/me", 200,
		`{"user":{"userId":1,"wallet":[`+cardJSON(1, "providerB", 1)+`,`+cardJSON(2, "providerD", 1)+`]},`+requestInfoJSON+`}`)
	_, err := s.PayWithRecovery(context.Background(), RecoveryRequest{
		Payment:        CreatePaymentRequest{LocationID: 3, CheckNumber: 1, CardID: 1, Amount: client.MoneyFromCents(100)},
		IdempotencyKey: "k",
	})
	if !errors.Is(err, client.ErrCardNotTokenised) {
		t.Fatalf("err = %v, want the second 404006", err)
	}
	if len(ps.cards) != 2 {
		t.Errorf("%d payment attempts, want 2 (recovery runs once)", len(ps.cards))
	}
}

func TestPayWithRecoveryNeedsKey(t *testing.T) {
	t.Parallel()
	s, m := newMockService(t)
	if _, err := s.PayWithRecovery(context.Background(), RecoveryRequest{}); err == nil {
		t.Fatal("no error without an idempotency key")
	}
	if n := m.Calls(); n != 0 {
		t.Errorf("%d requests sent", n)
	}
}

func TestRecoveryIdempotencyKey(t *testing.T) {
	t.Parallel()
	a, b := RecoveryIdempotencyKey("k1"), RecoveryIdempotencyKey("k1")
	if a != b || a == RecoveryIdempotencyKey("k2") || a == "k1" {
		t.Errorf("keys not deterministic and distinct: %s %s", a, b)
	}
	if long := RecoveryIdempotencyKey(strings.Repeat("x", 255)); len(long) > 255 {
		t.Errorf("derived key of %d characters, over the 255 limit", len(long))
	}
}
