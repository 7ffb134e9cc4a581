package wallet

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCardTypeJSON(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in     string
		want   CardType
		str    string
		known  bool
		wantMJ string
	}{
		{`"1"`, CardTypeNetwork1, "network-1", true, `"1"`},
		{`"0"`, CardTypeUnknown, "unknown", true, `"0"`},
		{`"5"`, CardTypeMobileWallet2, "mobile-wallet-2", true, `"5"`},
		{`3`, CardTypeNetwork3, "network-3", true, `"3"`},   // a number is tolerated
		{`"9"`, CardType("9"), "CardType(9)", false, `"9"`}, // unknown, kept visible
		{`"VIRTUAL"`, CardType("VIRTUAL"), "CardType(VIRTUAL)", false, `"VIRTUAL"`},
		{`42`, CardType("42"), "CardType(42)", false, `"42"`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			var got CardType
			if err := json.Unmarshal([]byte(tt.in), &got); err != nil {
				t.Fatalf("Unmarshal(%s): %v", tt.in, err)
			}
			if got != tt.want || got.String() != tt.str || got.Known() != tt.known {
				t.Errorf("Unmarshal(%s) = %q (%s, known %v), want %q (%s, known %v)", tt.in, got, got, got.Known(), tt.want, tt.str, tt.known)
			}
			b, err := json.Marshal(got)
			if err != nil || string(b) != tt.wantMJ {
				t.Errorf("Marshal = %s, %v; want %s", b, err, tt.wantMJ)
			}
		})
	}
	var ct CardType = CardTypeNetwork2
	if err := json.Unmarshal([]byte(`null`), &ct); err != nil || ct != CardTypeNetwork2 {
		t.Errorf("null: got %q, %v; want unchanged", ct, err)
	}
	for _, bad := range []string{`true`, `{}`, `[]`} {
		if err := json.Unmarshal([]byte(bad), &ct); err == nil {
			t.Errorf("Unmarshal(%s): no error", bad)
		}
	}
}

func TestCardStatus(t *testing.T) {
	t.Parallel()
	tests := []struct {
		s      CardStatus
		str    string
		known  bool
		usable bool
	}{
		{CardStatusLive, "live", true, true},
		{CardStatusUserCancelled, "user-cancelled", true, false},
		{CardStatusSystemCancelled, "system-cancelled", true, false},
		{CardStatusTemporary, "temporary", true, true},
		{CardStatusBlockedFraud, "blocked-fraud", true, false},
		{CardStatus(0), "CardStatus(0)", false, false},
		{CardStatus(17), "CardStatus(17)", false, false},
	}
	for _, tt := range tests {
		if got := tt.s.String(); got != tt.str {
			t.Errorf("CardStatus(%d).String() = %q, want %q", int(tt.s), got, tt.str)
		}
		if tt.s.Known() != tt.known || tt.s.Usable() != tt.usable {
			t.Errorf("CardStatus(%d): known %v usable %v, want %v %v", int(tt.s), tt.s.Known(), tt.s.Usable(), tt.known, tt.usable)
		}
	}
}

func TestCardDecodeTolerant(t *testing.T) {
	t.Parallel()
	in := `{"cardId":7,"last4Digits":"1111","nickname":"x","cardTypeId":"8","cardStatusId":9,"default":true,
		"expiryMonth":"04","expiryYear":"29","gateways":{"providerA":false,"providerB":true,"providerC":false,"providerD":true,"providerE":false,"providerZ":true},
		"futureField":{"a":1}}`
	var c Card
	if err := json.Unmarshal([]byte(in), &c); err != nil {
		t.Fatal(err)
	}
	want := Card{CardID: 7, Last4Digits: "1111", Nickname: "x", CardTypeID: "8", CardStatusID: 9, Default: true,
		ExpiryMonth: "04", ExpiryYear: "29", Gateways: Gateways{ProviderB: true, ProviderD: true}}
	if d := cmp.Diff(want, c); d != "" {
		t.Errorf("decode (-want +got):\n%s", d)
	}
	if c.CardTypeID.String() != "CardType(8)" || c.CardStatusID.String() != "CardStatus(9)" {
		t.Errorf("unknown values not visible: %s %s", c.CardTypeID, c.CardStatusID)
	}
}

func TestGateways(t *testing.T) {
	t.Parallel()
	var g Gateways
	for _, p := range []Gateway{ProviderA, ProviderB, ProviderC, ProviderD, ProviderE} {
		if g.Has(p) {
			t.Errorf("zero Gateways has %s", p)
		}
		if !g.Set(p) || !g.Has(p) {
			t.Errorf("Set(%s) did not take", p)
		}
	}
	if g.Set("providerZ") || g.Has("providerZ") {
		t.Error("unknown gateway accepted")
	}
}

func FuzzCardTypeUnmarshal(f *testing.F) {
	for _, s := range []string{`"1"`, `2`, `"x"`, `null`, `1e3`, `"\u0031"`, `-1`, `{}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		var ct CardType
		if err := json.Unmarshal([]byte(in), &ct); err != nil {
			return
		}
		// Whatever decodes must survive a round trip unchanged.
		b, err := json.Marshal(ct)
		if err != nil {
			t.Fatalf("Marshal(%q): %v", ct, err)
		}
		var back CardType
		if err := json.Unmarshal(b, &back); err != nil || back != ct {
			t.Fatalf("round trip %q -> %s -> %q, %v", ct, b, back, err)
		}
	})
}
