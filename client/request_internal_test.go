package client

import "testing"

func TestRoutePath(t *testing.T) {
	t.Parallel()
	tests := []struct {
		route  string
		params []string
		want   string
	}{
		{"/v1/user/me", nil, "v1/user/me"},
		{"/v3/bill/{billId}", []string{"b 1/2?"}, "v3/bill/b%201%2F2%3F"},
		{"/v1/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver", []string{"w", "d"}, "v1/webhooks/w/deliveries/d/redeliver"},
		{"/v2/location/{id}/menu", []string{"7"}, "v2/location/7/menu"},
	}
	for _, tc := range tests {
		got, err := routePath(tc.route, tc.params)
		if err != nil || got != tc.want {
			t.Errorf("routePath(%q, %q) = %q, %v; want %q", tc.route, tc.params, got, err, tc.want)
		}
	}
	for _, bad := range []struct {
		route  string
		params []string
	}{
		{"v1/user/me", nil},                       // no leading slash
		{"/v3/bill/{billId}", nil},                // too few
		{"/v1/user/me", []string{"x"}},            // too many
		{"/v3/bill/{billId", []string{"b"}},       // unclosed
		{"/v3/bill/{billId}", []string{"a", "b"}}, // too many
	} {
		if got, err := routePath(bad.route, bad.params); err == nil {
			t.Errorf("routePath(%q, %q) = %q, want an error", bad.route, bad.params, got)
		}
	}
}
