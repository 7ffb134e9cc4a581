package wallet

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/internal/sdktest"
)

func TestGetLocation(t *testing.T) {
	t.Parallel()
	ts := func(n int64) *client.UnixTime { return &client.UnixTime{Time: time.Unix(n, 0).UTC()} }
	health := POSHealthFailed
	msg := "kitchen printer offline"
	tests := []struct {
		name string
		body string
		want Location
	}{
		{
			name: "no heartbeat, no universal POS",
			body: `{"location":{"locationId":3,"name":"Quay","locationPaymentDetails":{"gateway":"providerD"},"posStatus":"offline","lastHeartbeat":null,"universalPos":null},` + requestInfoJSON + `}`,
			want: Location{LocationID: 3, Name: "Quay", LocationPaymentDetails: PaymentDetails{Gateway: ProviderD}, POSStatus: POSStatusOffline},
		},
		{
			name: "online with universal POS",
			body: `{"location":{"locationId":3,"name":"Quay","locationPaymentDetails":{"gateway":"providerQ"},"posStatus":"online","lastHeartbeat":1700000000,
				"universalPos":{"health":"FAILED","message":"kitchen printer offline","checkedAt":1700000010,"menuSyncedAt":null}},` + requestInfoJSON + `}`,
			want: Location{LocationID: 3, Name: "Quay", LocationPaymentDetails: PaymentDetails{Gateway: "providerQ"}, POSStatus: POSStatusOnline,
				LastHeartbeat: ts(1700000000),
				UniversalPOS:  &UniversalPOS{Health: &health, Message: &msg, CheckedAt: ts(1700000010)}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, m := newMockService(t)
			rec := m.Reply(http.MethodGet, "v1/location/3", 200, tt.body)
			got, err := s.GetLocation(context.Background(), 3)
			if err != nil {
				t.Fatal(err)
			}
			c := rec.Last(t)
			sdktest.TestPath(t, c, http.MethodGet, "/prefix/v1/location/3")
			if len(c.Query) != 0 {
				t.Errorf("credential sent to a public endpoint: %v", c.Query)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("location (-want +got):\n%s", d)
			}
		})
	}
}

func TestGetLocationNotFound(t *testing.T) {
	t.Parallel()
	s, m := newMockService(t)
	m.Reply(http.MethodGet, "v1/location/99", 404, sdktest.ErrorBody(client.CodeNotFound, ""))
	if _, err := s.GetLocation(context.Background(), 99); !errors.Is(err, client.ErrNotFound) {
		t.Fatalf("err = %v", err)
	}
}
