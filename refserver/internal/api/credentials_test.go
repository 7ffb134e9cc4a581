package api

import "testing"

func TestCanSeeLocation(t *testing.T) {
	t.Parallel()
	tests := []struct {
		p    Principal
		id   int64
		want bool
	}{
		{Principal{}, 1, false},
		{Principal{Kind: KindUser, UserID: 1}, 1, false},
		{Principal{Kind: KindPOS, LocationID: 2}, 2, true},
		{Principal{Kind: KindPOS, LocationID: 2}, 1, false},
		{Principal{Kind: KindAPIKey, LocationIDs: []int64{1, 3, 7}}, 3, true},
		{Principal{Kind: KindAPIKey, LocationIDs: []int64{1, 3, 7}}, 4, false},
		{Principal{Kind: KindAPIKey}, 1, false},
		{Principal{Kind: KindAdmin}, 99, true},
	}
	for _, tt := range tests {
		if got := tt.p.CanSeeLocation(tt.id); got != tt.want {
			t.Errorf("%+v.CanSeeLocation(%d) = %v, want %v", tt.p, tt.id, got, tt.want)
		}
	}
}
