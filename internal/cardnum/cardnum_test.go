package cardnum

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hospo-dev/hospo-go/internal/fielderr"
)

func TestLuhn(t *testing.T) {
	t.Parallel()
	for n, want := range map[string]bool{
		"4111111111111111": true, "4000000000000002": true, "5555555555554444": true, "378282246310005": true,
		"4111111111111112": false, "1234567812345678": false, "": false, "abc": false, "4111-1111": false,
	} {
		if got := Luhn(n); got != want {
			t.Errorf("Luhn(%q) = %v", n, got)
		}
	}
}

func TestCheck(t *testing.T) {
	t.Parallel()
	good := Card{Number: "4111111111111111", CVC: "123", ExpiryMonth: 6, ExpiryYear: 30}
	tests := []struct {
		name string
		mod  func(*Card)
		want map[string]string
	}{
		{"good", func(*Card) {}, nil},
		{"luhn", func(c *Card) { c.Number = "4111111111111112" }, map[string]string{"number": ReasonLuhn}},
		{"letters", func(c *Card) { c.Number = "4111-1111-1111-1111" }, map[string]string{"number": ReasonNumber}},
		{"long", func(c *Card) { c.Number = "41111111111111111111" }, map[string]string{"number": ReasonNumber}},
		{"cvc", func(c *Card) { c.CVC = "12345" }, map[string]string{"cvc": ReasonCVC}},
		{"expiry", func(c *Card) { c.ExpiryMonth, c.ExpiryYear = 0, 100 }, map[string]string{"expiryMonth": ReasonMonth, "expiryYear": ReasonYear}},
		{"holder", func(c *Card) { c.HolderName = string(make([]byte, 201)) }, map[string]string{"holderName": ReasonHolder}},
	}
	for _, tt := range tests {
		c := good
		tt.mod(&c)
		var s fielderr.Set
		Check(&s, c)
		if d := cmp.Diff(tt.want, s.Map()); d != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, d)
		}
	}
}

func TestCheckDigits(t *testing.T) {
	t.Parallel()
	var s fielderr.Set
	CheckDigits(&s, "first6Digits", "411111", 6)
	CheckDigits(&s, "last4Digits", "11a1", 4)
	CheckDigits(&s, "first6Digits2", "4111111", 6)
	want := map[string]string{"last4Digits": "must be 4 digits", "first6Digits2": "must be 6 digits"}
	if d := cmp.Diff(want, s.Map()); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

func TestExpired(t *testing.T) {
	t.Parallel()
	june2030 := time.Date(2030, time.June, 15, 12, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		month, yy int
		want      bool
	}{{6, 30, false}, {5, 30, true}, {12, 29, true}, {1, 31, false}} {
		if got := Expired(tt.month, tt.yy, june2030); got != tt.want {
			t.Errorf("Expired(%d, %d) = %v", tt.month, tt.yy, got)
		}
	}
}

func TestParts(t *testing.T) {
	t.Parallel()
	if First6("4111111111111111") != "411111" || Last4("4111111111111111") != "1111" || First6("41111") != "" || Last4("411") != "" {
		t.Error("First6/Last4")
	}
	for in, want := range map[string]string{"": "", "1234567": "*******", "12345678": "****5678"} {
		if got := Mask(in); got != want {
			t.Errorf("Mask(%q) = %q, want %q", in, got, want)
		}
	}
	for n, want := range map[int]string{4: "04", 0: "00", 12: "12", 30: "30"} {
		if got := TwoDigits(n); got != want {
			t.Errorf("TwoDigits(%d) = %q", n, got)
		}
	}
}
