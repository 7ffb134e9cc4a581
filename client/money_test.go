package client

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseMoney(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		cents   int64
		str     string
		wantErr error
	}{
		{in: "0.1", cents: 10, str: "0.10"},
		{in: "0.2", cents: 20, str: "0.20"},
		{in: "7.69", cents: 769, str: "7.69"},
		{in: "-1.99", cents: -199, str: "-1.99"},
		{in: "0", cents: 0, str: "0.00"},
		{in: "-0", cents: 0, str: "0.00"},
		{in: "0e999", cents: 0, str: "0.00"},
		{in: "0.00e-99999999999999999999", cents: 0, str: "0.00"},
		{in: "1000e-1", cents: 10000, str: "100.00"},
		{in: "12", cents: 1200, str: "12.00"},
		{in: "1.230", cents: 123, str: "1.23"}, // the value has two fraction digits
		{in: "1e2", cents: 10000, str: "100.00"},
		{in: "1E+2", cents: 10000, str: "100.00"},
		{in: "1.5e-1", cents: 15, str: "0.15"},
		{in: "92233720368547758.07", cents: math.MaxInt64, str: "92233720368547758.07"},
		{in: "-92233720368547758.08", cents: math.MinInt64, str: "-92233720368547758.08"},
		{in: "1e-3", wantErr: ErrMoneyPrecision},
		{in: "1.234", wantErr: ErrMoneyPrecision},
		{in: "0.001", wantErr: ErrMoneyPrecision},
		{in: "92233720368547758.08", wantErr: ErrMoneyRange},
		{in: "1e30", wantErr: ErrMoneyRange},
		{in: "123456789012345678901234567890", wantErr: ErrMoneyRange},
		{in: "", wantErr: ErrMoneySyntax},
		{in: "-", wantErr: ErrMoneySyntax},
		{in: "+1", wantErr: ErrMoneySyntax},
		{in: "1.", wantErr: ErrMoneySyntax},
		{in: ".5", wantErr: ErrMoneySyntax},
		{in: "1e", wantErr: ErrMoneySyntax},
		// Valid JSON numbers whatever the exponent: a 400002, never a
		// 400001, on the service.
		{in: "1e999", wantErr: ErrMoneyRange},
		{in: "1e31", wantErr: ErrMoneyRange},
		{in: "-1e99999999999999999999", wantErr: ErrMoneyRange},
		{in: "1e-31", wantErr: ErrMoneyPrecision},
		{in: "5e-99999999999999999999", wantErr: ErrMoneyPrecision},
		{in: "1e+", wantErr: ErrMoneySyntax},
		{in: "1e1.5", wantErr: ErrMoneySyntax},
		{in: "0x10", wantErr: ErrMoneySyntax},
		{in: "NaN", wantErr: ErrMoneySyntax},
		{in: "Inf", wantErr: ErrMoneySyntax},
		{in: "1,5", wantErr: ErrMoneySyntax},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			m, err := ParseMoney(tt.in)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("ParseMoney(%q) err = %v, want %v", tt.in, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseMoney(%q): %v", tt.in, err)
			}
			if m.Cents() != tt.cents || m.String() != tt.str {
				t.Errorf("ParseMoney(%q) = %d cents %q, want %d %q", tt.in, m.Cents(), m, tt.cents, tt.str)
			}
			// JSON round trip.
			b, err := json.Marshal(m)
			if err != nil || string(b) != tt.str {
				t.Fatalf("Marshal = %s, %v; want %s", b, err, tt.str)
			}
			var back Money
			if err := json.Unmarshal(b, &back); err != nil || back != m {
				t.Errorf("Unmarshal(%s) = %v, %v; want %v", b, back, err, m)
			}
		})
	}
}

func TestMoneyExactArithmetic(t *testing.T) {
	t.Parallel()
	a, b := MustParseMoney("0.10"), MustParseMoney("0.20")
	if got := a.Add(b); got != MustParseMoney("0.30") {
		t.Errorf("0.10 + 0.20 = %v, want 0.30", got)
	}
	if got := MustParseMoney("7.69").Mul(3).Sub(MustParseMoney("0.07")); got.String() != "23.00" {
		t.Errorf("7.69*3-0.07 = %v", got)
	}
	if n := MustParseMoney("1.99").Neg(); !n.IsNegative() || n.String() != "-1.99" {
		t.Errorf("Neg = %v", n)
	}
	if MoneyFromCents(5).Cmp(MoneyFromCents(7)) != -1 || MoneyFromCents(7).Cmp(MoneyFromCents(5)) != 1 || MoneyFromCents(5).Cmp(MoneyFromCents(5)) != 0 {
		t.Error("Cmp")
	}
	if !(Money{}).IsZero() || (Money{}).String() != "0.00" {
		t.Error("zero value")
	}
	if MoneyFromCents(-5).String() != "-0.05" {
		t.Errorf("MoneyFromCents(-5) = %v", MoneyFromCents(-5))
	}
}

func TestMoneyJSON(t *testing.T) {
	t.Parallel()
	type item struct {
		Price Money  `json:"price"`
		Tip   *Money `json:"tip"`
	}
	var got item
	if err := json.Unmarshal([]byte(`{"price": 7.69, "tip": null}`), &got); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(item{Price: MustParseMoney("7.69")}, got, cmp.AllowUnexported(Money{})); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	keep := MustParseMoney("1.00")
	if err := json.Unmarshal([]byte(`null`), &keep); err != nil || keep != MustParseMoney("1.00") {
		t.Errorf("null changed the value: %v %v", keep, err)
	}
	for _, bad := range []string{`"7.69"`, `1.234`, `1e-3`, `true`, `{}`, `[1]`, `1e400`, `"` + strings.Repeat("9", 100) + `"`} {
		var m Money
		if err := json.Unmarshal([]byte(bad), &m); err == nil {
			t.Errorf("Unmarshal(%s) accepted %v", bad, m)
		} else if len(err.Error()) > 200 {
			t.Errorf("Unmarshal(%s) error is %d bytes long", bad, len(err.Error()))
		}
	}
	b, err := json.Marshal(map[string]any{"a": MustParseMoney("-1.99"), "b": MustParseMoney("1e2")})
	if err != nil || string(b) != `{"a":-1.99,"b":100.00}` {
		t.Errorf("Marshal = %s, %v", b, err)
	}
	// Text form (query strings, map keys).
	var m Money
	if err := m.UnmarshalText([]byte("12.5")); err != nil || m.String() != "12.50" {
		t.Errorf("UnmarshalText = %v, %v", m, err)
	}
	if txt, _ := m.MarshalText(); string(txt) != "12.50" {
		t.Errorf("MarshalText = %s", txt)
	}
	if b, err := MoneyFromCents(-5).AppendText([]byte("x=")); err != nil || string(b) != "x=-0.05" {
		t.Errorf("AppendText = %s, %v", b, err)
	}
}

func TestMustParseMoneyPanics(t *testing.T) {
	t.Parallel()
	defer func() {
		if recover() == nil {
			t.Error("no panic")
		}
	}()
	MustParseMoney("1.234")
}

// FuzzMoney checks that parsing never panics and that whatever parses comes
// back identical through String and JSON.
func FuzzMoney(f *testing.F) {
	for _, s := range []string{"0.1", "0.2", "7.69", "-1.99", "1e2", "1e-3", "1.234", "92233720368547758.07", "-92233720368547758.08", "-0", "00.10", "1.5e-1", "1E+2", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if plain, ok := parsePlainMoney(s); ok {
			if general, err := parseMoney(s); err != nil || general != plain {
				t.Fatalf("parsePlainMoney(%q) = %v; parseMoney = %v, %v", s, plain, general, err)
			}
		}
		m, err := ParseMoney(s)
		if err != nil {
			if !errors.Is(err, ErrMoneySyntax) && !errors.Is(err, ErrMoneyPrecision) && !errors.Is(err, ErrMoneyRange) {
				t.Fatalf("ParseMoney(%q): unclassified error %v", s, err)
			}
			return
		}
		again, err := ParseMoney(m.String())
		if err != nil || again != m {
			t.Fatalf("ParseMoney(%q) = %v; reparse of %q = %v, %v", s, m, m.String(), again, err)
		}
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		var viaJSON Money
		if err := json.Unmarshal(b, &viaJSON); err != nil || viaJSON != m {
			t.Fatalf("JSON round trip of %v via %s = %v, %v", m, b, viaJSON, err)
		}
	})
}

// TestParseMoneySpace checks that white space around an amount is ignored,
// as exponent notation is accepted, and that white space inside it is not.
func TestParseMoneySpace(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		in   string
		want string
	}{{"12.50 ", "12.50"}, {" -1.99\n", "-1.99"}, {"\t1e3", "1000.00"}, {"1e3", "1000.00"}} {
		m, err := ParseMoney(tt.in)
		if err != nil || m.String() != tt.want {
			t.Errorf("ParseMoney(%q) = %v, %v; want %s", tt.in, m, err, tt.want)
		}
	}
	for _, in := range []string{"1 2", "12. 50", "- 1", "", "  "} {
		if _, err := ParseMoney(in); !errors.Is(err, ErrMoneySyntax) {
			t.Errorf("ParseMoney(%q) error = %v, want ErrMoneySyntax", in, err)
		}
	}
}
