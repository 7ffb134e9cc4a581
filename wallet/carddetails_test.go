package wallet

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/internal/cardnum"
)

const testNumber = "4111111111111111"

func TestCardDetailsMasking(t *testing.T) {
	t.Parallel()
	d := CardDetails{Number: testNumber, CVC: "987", ExpiryMonth: 4, ExpiryYear: 2031, HolderName: "A Diner"}
	var outs []string
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%d", "%x", "%X", "%q", "%10.3v"} {
		outs = append(outs, fmt.Sprintf(verb, d), fmt.Sprintf(verb, &d), fmt.Sprintf(verb, []CardDetails{d}))
	}
	outs = append(outs, fmt.Sprint(d), fmt.Sprintln(d), d.String(), d.GoString(),
		fmt.Sprintf("%v", struct{ C CardDetails }{d}), fmt.Sprintf("%+v", map[string]CardDetails{"k": d}))

	// The log lines leave out their time, whose digits could hold the CVC.
	var buf bytes.Buffer
	noTime := &slog.HandlerOptions{ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
		if len(groups) == 0 && a.Key == slog.TimeKey {
			return slog.Attr{}
		}
		return a
	}}
	slog.New(slog.NewJSONHandler(&buf, noTime)).Info("card", "card", d)
	slog.New(slog.NewTextHandler(&buf, noTime)).Info("card", "card", d, "ptr", &d)
	outs = append(outs, buf.String())

	j, err := json.Marshal(struct{ Card CardDetails }{d})
	if err != nil {
		t.Fatal(err)
	}
	outs = append(outs, string(j))

	r := ProviderDTokenRequest{KeyID: "k1", Number: testNumber, CVC: "987", ExpiryMonth: 4, ExpiryYear: 31}
	outs = append(outs, fmt.Sprintf("%v %+v %#v %s %d", r, r, r, r, r))

	for _, out := range outs {
		if strings.Contains(out, testNumber) || strings.Contains(out, "411111") {
			t.Errorf("number leaked: %s", out)
		}
		if strings.Contains(out, "987") {
			t.Errorf("cvc leaked: %s", out)
		}
	}
	if got, want := d.String(), `CardDetails{Number:************1111 CVC:*** Expiry:04/31 HolderName:"A Diner"}`; got != want {
		t.Errorf("String() = %s, want %s", got, want)
	}
	if !strings.Contains(buf.String(), "************1111") {
		t.Errorf("slog output lacks the masked number: %s", buf.String())
	}
}

func TestMaskedNumber(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"":                    "",
		"1234567":             "*******",
		"12345678":            "****5678",
		"4111111111111111":    "************1111",
		"6011000990139424123": "***************4123",
	} {
		if got := (CardDetails{Number: in}).MaskedNumber(); got != want {
			t.Errorf("MaskedNumber(%d digits) = %q, want %q", len(in), got, want)
		}
	}
}

func TestCardDetailsValidate(t *testing.T) {
	t.Parallel()
	ok := CardDetails{Number: testNumber, CVC: "123", ExpiryMonth: 12, ExpiryYear: 30}
	tests := []struct {
		name   string
		mod    func(*CardDetails)
		fields map[string]string // nil when valid
	}{
		{"valid", func(*CardDetails) {}, nil},
		{"four-digit year", func(d *CardDetails) { d.ExpiryYear = 2030 }, nil},
		{"four-digit cvc", func(d *CardDetails) { d.CVC = "1234" }, nil},
		{"luhn", func(d *CardDetails) { d.Number = "4111111111111112" }, map[string]string{"number": "fails the Luhn check"}},
		{"spaces", func(d *CardDetails) { d.Number = "4111 1111 1111 1111" }, map[string]string{"number": "must be 12 to 19 digits"}},
		{"short", func(d *CardDetails) { d.Number = "42" }, map[string]string{"number": "must be 12 to 19 digits"}},
		{"cvc letters", func(d *CardDetails) { d.CVC = "12a" }, map[string]string{"cvc": "must be 3 or 4 digits"}},
		{"cvc empty", func(d *CardDetails) { d.CVC = "" }, map[string]string{"cvc": "must be 3 or 4 digits"}},
		{"month 0", func(d *CardDetails) { d.ExpiryMonth = 0 }, map[string]string{"expiryMonth": "must be 1 to 12"}},
		{"month 13", func(d *CardDetails) { d.ExpiryMonth = 13 }, map[string]string{"expiryMonth": "must be 1 to 12"}},
		{"year 123", func(d *CardDetails) { d.ExpiryYear = 123 }, map[string]string{"expiryYear": "must be a two-digit year (0 to 99)"}},
		{"year 2100", func(d *CardDetails) { d.ExpiryYear = 2100 }, map[string]string{"expiryYear": "must be a two-digit year (0 to 99)"}},
		{"holder name", func(d *CardDetails) { d.HolderName = strings.Repeat("n", 201) }, map[string]string{"holderName": "must be at most 200 characters"}},
		{"all", func(d *CardDetails) { *d = CardDetails{Number: "1", CVC: "x", ExpiryYear: -1} }, map[string]string{
			"number": "must be 12 to 19 digits", "cvc": "must be 3 or 4 digits",
			"expiryMonth": "must be 1 to 12", "expiryYear": "must be a two-digit year (0 to 99)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d := ok
			tt.mod(&d)
			err := d.Validate()
			if tt.fields == nil {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
				return
			}
			var ve *client.ValidationError
			if !errors.As(err, &ve) || !errors.Is(err, client.ErrValidation) {
				t.Fatalf("Validate = %v, want a *client.ValidationError", err)
			}
			if diff := cmp.Diff(tt.fields, ve.Fields); diff != "" {
				t.Errorf("fields (-want +got):\n%s", diff)
			}
			if d.Number != "" && len(d.Number) > 4 && strings.Contains(err.Error(), d.Number) {
				t.Errorf("error leaks the number: %v", err)
			}
		})
	}
}

func FuzzCardDetailsFormat(f *testing.F) {
	f.Add("4111111111111111", "123", 4, 29, "A B")
	f.Add("123456789012", "0000", 0, 0, "")
	f.Fuzz(func(t *testing.T, number, cvc string, month, year int, holder string) {
		// Card numbers are 12 to 19 digits. Other fields are free text that
		// may contain anything, so keep them from spelling the number.
		if len(number) < 12 || len(number) > 19 || !cardnum.Digits(number) || strings.Contains(holder, number) {
			return
		}
		d := CardDetails{Number: number, CVC: cvc, ExpiryMonth: month % 100, ExpiryYear: year % 100, HolderName: holder}
		// The same card with every digit of its number changed: what still
		// spells the number there comes from the other fields (a holder of
		// "\x0000000000000" is escaped to "\u000000000000" in JSON).
		other := d
		other.Number = strings.Map(func(r rune) rune { return '0' + (r-'0'+1)%10 }, number)
		render := func(d CardDetails) []string {
			j, _ := json.Marshal(d)
			return []string{fmt.Sprintf("%v|%+v|%#v|%s|%d|%x", d, d, d, d, d, d), string(j)}
		}
		others := render(other)
		for i, out := range render(d) {
			if strings.Contains(out, number) && !strings.Contains(others[i], number) {
				t.Fatalf("number %q leaked in %q", number, out)
			}
		}
	})
}
