package rules

import (
	"errors"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/refserver/internal/api"
	"github.com/hospo-dev/hospo-go/refserver/store"
	"github.com/hospo-dev/hospo-go/sandbox"
	"github.com/hospo-dev/hospo-go/wallet"
)

func TestSplitCents(t *testing.T) {
	t.Parallel()
	tests := []struct {
		total, n int64
		want     []int64
	}{
		{1000, 3, []int64{333, 333, 334}},
		{1000, 1, []int64{1000}},
		{1000, 4, []int64{250, 250, 250, 250}},
		{1001, 4, []int64{250, 250, 250, 251}},
		{5, 4, []int64{1, 1, 1, 2}},
		{2, 3, []int64{1, 1}}, // never a payment of zero
		{1, 4, []int64{1}},
	}
	for _, tt := range tests {
		got := SplitCents(tt.total, tt.n)
		if !cmp.Equal(got, tt.want) {
			t.Errorf("SplitCents(%d, %d) = %v, want %v", tt.total, tt.n, got, tt.want)
		}
		var sum int64
		for _, c := range got {
			sum += c
		}
		if sum != tt.total {
			t.Errorf("SplitCents(%d, %d) sums to %d", tt.total, tt.n, sum)
		}
	}
}

func TestTipCents(t *testing.T) {
	t.Parallel()
	tests := []struct{ amount, percent, want int64 }{
		{333, 10, 33}, {334, 10, 33}, {335, 10, 34}, {1000, 0, 0}, {1000, 30, 300}, {1, 30, 0}, {2, 25, 1},
	}
	for _, tt := range tests {
		if got := TipCents(tt.amount, tt.percent); got != tt.want {
			t.Errorf("TipCents(%d, %d) = %d, want %d", tt.amount, tt.percent, got, tt.want)
		}
	}
}

func TestPayCheck(t *testing.T) {
	t.Parallel()
	s := newScene(t)
	pay := func(req sandbox.PayCheckRequest) (wallet.Payment, error) {
		return run(t, s.db, func(tx *store.Tx) (wallet.Payment, error) { return PayCheck(tx, s.loc, s.check, req) })
	}
	m := func(s string) *client.Money { v := client.MustParseMoney(s); return &v }

	first, err := pay(sandbox.PayCheckRequest{Amount: m("2.50"), Tip: m("0.50")})
	if err != nil {
		t.Fatal(err)
	}
	rest, err := pay(sandbox.PayCheckRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if rest.Amount.Cents() != 750 || rest.Tip.Cents() != 0 || rest.CardID != first.CardID {
		t.Errorf("default payment = %+v, want 7.50 with the same card", rest)
	}
	_, err = pay(sandbox.PayCheckRequest{})
	wantCode(t, err, client.CodeAmountExceedsOutstanding)
	_, err = run(t, s.db, func(tx *store.Tx) (wallet.Payment, error) {
		return PayCheck(tx, s.loc, 99, sandbox.PayCheckRequest{})
	})
	if !notFoundAs(err, "Check not found.") {
		t.Errorf("unknown check: err = %v", err)
	}
	// The diner is one user of its own with one card per gateway.
	write(t, s.db, func(tx *store.Tx) error {
		uid, cid, err := tx.SandboxDinerCard("providerB")
		if err != nil {
			return err
		}
		if uid == s.user || uid == s.other || cid != first.CardID {
			t.Errorf("diner user %d card %d", uid, cid)
		}
		return nil
	})
}

func TestCheckPayCheck(t *testing.T) {
	t.Parallel()
	m := func(s string) *client.Money { v := client.MustParseMoney(s); return &v }
	tests := []struct {
		req  sandbox.PayCheckRequest
		want []string
	}{
		{sandbox.PayCheckRequest{}, nil},
		{sandbox.PayCheckRequest{Amount: m("0.01"), Tip: m("0")}, nil},
		{sandbox.PayCheckRequest{Amount: m("0")}, []string{"amount"}},
		{sandbox.PayCheckRequest{Tip: m("-0.01")}, []string{"tip"}},
		{sandbox.PayCheckRequest{Amount: m("-1"), Tip: m("-1")}, []string{"amount", "tip"}},
	}
	for _, tt := range tests {
		if got := sortedKeys(fieldErrors(t, CheckPayCheck(tt.req))); !cmp.Equal(got, tt.want) {
			t.Errorf("CheckPayCheck(%+v) names %v, want %v", tt.req, got, tt.want)
		}
	}
}

func TestCheckDinersAndDemoPOS(t *testing.T) {
	t.Parallel()
	n := func(v int64) *int64 { return &v }
	str := func(v string) *string { return &v }
	diners := []struct {
		raw  string
		req  DinersRequest
		want []string
	}{
		{`{"everySeconds":1}`, DinersRequest{EverySeconds: n(1)}, nil},
		{`{"everySeconds":60,"split":4,"tipPercent":30}`, DinersRequest{EverySeconds: n(60), Split: n(4), TipPercent: n(30)}, nil},
		{`{}`, DinersRequest{}, []string{"everySeconds"}},
		{`{"everySeconds":0,"split":0,"tipPercent":-1}`, DinersRequest{EverySeconds: n(0), Split: n(0), TipPercent: n(-1)}, []string{"everySeconds", "split", "tipPercent"}},
		{`{"everySeconds":5,"split":5,"tipPercent":31}`, DinersRequest{EverySeconds: n(5), Split: n(5), TipPercent: n(31)}, []string{"split", "tipPercent"}},
	}
	for _, tt := range diners {
		if got := sortedKeys(fieldErrors(t, CheckDiners([]byte(tt.raw), &tt.req))); !cmp.Equal(got, tt.want) {
			t.Errorf("CheckDiners(%s) names %v, want %v", tt.raw, got, tt.want)
		}
	}
	demo := []struct {
		raw  string
		req  DemoPOSRequest
		want []string
	}{
		{`{"mode":"accept"}`, DemoPOSRequest{Mode: str("accept")}, nil},
		{`{"mode":"fail-then-accept","failCount":0}`, DemoPOSRequest{Mode: str("fail-then-accept"), FailCount: n(0)}, nil},
		{`{"mode":"slow","delayMs":60000}`, DemoPOSRequest{Mode: str("slow"), DelayMs: n(60000)}, nil},
		{`{}`, DemoPOSRequest{}, []string{"mode"}},
		{`{"mode":"sleepy","failCount":-1,"delayMs":0}`, DemoPOSRequest{Mode: str("sleepy"), FailCount: n(-1), DelayMs: n(0)}, []string{"delayMs", "failCount", "mode"}},
		{`{"mode":"slow","delayMs":60001}`, DemoPOSRequest{Mode: str("slow"), DelayMs: n(60001)}, []string{"delayMs"}},
	}
	for _, tt := range demo {
		if got := sortedKeys(fieldErrors(t, CheckDemoPOS([]byte(tt.raw), &tt.req))); !cmp.Equal(got, tt.want) {
			t.Errorf("CheckDemoPOS(%s) names %v, want %v", tt.raw, got, tt.want)
		}
	}
}

// A round of diners pays the owed checks without a pending payment, and a
// round refused by a rule records why without paying.
func TestRunDiners(t *testing.T) {
	t.Parallel()
	s := newScene(t)
	every, split, tip := int64(60), int64(3), int64(10)
	if _, err := run(t, s.db, func(tx *store.Tx) (sandbox.Diners, error) {
		return SetDiners(tx, s.loc, DinersRequest{EverySeconds: &every, Split: &split, TipPercent: &tip})
	}); err != nil {
		t.Fatal(err)
	}
	round := func() (int, error) {
		return run(t, s.db, func(tx *store.Tx) (int, error) { return RunDiners(tx, s.loc) })
	}
	if n, err := round(); n != 0 || err != nil {
		t.Fatalf("round before it is due: %d, %v", n, err)
	}
	s.clock.Advance(60e9)
	if n, err := round(); n != 3 || err != nil {
		t.Fatalf("due round: %d payments, %v; want 3", n, err)
	}
	write(t, s.db, func(tx *store.Tx) error {
		pending, err := tx.PendingPayments(s.loc)
		if err != nil {
			return err
		}
		var amounts, tips []int64
		for _, p := range pending {
			amounts, tips = append(amounts, p.Amount), append(tips, p.Tip)
		}
		if !cmp.Equal(amounts, []int64{333, 333, 334}) || !cmp.Equal(tips, []int64{33, 33, 33}) {
			t.Errorf("payments %v tips %v", amounts, tips)
		}
		return nil
	})
	s.clock.Advance(60e9)
	if n, err := round(); n != 0 || err != nil {
		t.Errorf("round with payments pending: %d, %v; want none", n, err)
	}

	// Offline: the round fails as a whole and is recorded.
	write(t, s.db, func(tx *store.Tx) (err error) {
		for _, p := range []int64{1, 2, 3} {
			if _, err := tx.AcceptPayment(s.loc, p); err != nil {
				return err
			}
		}
		return nil
	})
	s.clock.Advance(POSOnlineWindow)
	_, err := round()
	wantCode(t, err, client.CodeLocationOffline)
	write(t, s.db, func(tx *store.Tx) error { return RecordDinersFailure(tx, s.loc, err) })
	d, gerr := run(t, s.db, func(tx *store.Tx) (sandbox.Diners, error) { return GetDiners(tx, s.loc) })
	if gerr != nil || d.LastError == nil || *d.LastError != "Location offline." || d.NextRunAt.Unix() != s.clock.Now().Unix()+60 {
		t.Errorf("diners after a failed round = %+v, %v", d, gerr)
	}
}

// A payment with the fraudulent magic card is declined with its
// declineCode through api.Committed, and the card is blocked in the same
// transaction; the insufficient-funds card only declines.
func TestDeclineCodes(t *testing.T) {
	t.Parallel()
	s := newScene(t)
	card := func(code string) int64 {
		var id int64
		write(t, s.db, func(tx *store.Tx) (err error) {
			id, err = tx.InsertCard(store.Card{UserID: s.user, First6: "400000", Last4: "0259", CardTypeID: 1,
				CardStatusID: 1, ExpiryMonth: "07", ExpiryYear: "33"})
			if err != nil {
				return err
			}
			token := "magic-" + code
			if err := tx.InsertProviderToken(store.ProviderToken{Token: token, Provider: "providerB",
				First6: "400000", Last4: "0259", ExpiryMonth: 7, ExpiryYear: 33, Decline: true, DeclineCode: code}); err != nil {
				return err
			}
			return tx.InsertCardToken(id, "providerB", token)
		})
		return id
	}
	for _, tt := range []struct {
		code      string
		committed bool
		status    wallet.CardStatus
	}{
		{"insufficient_funds", false, wallet.CardStatusLive},
		{"fraudulent", true, wallet.CardStatusBlockedFraud},
	} {
		id := card(tt.code)
		var status int
		_ = s.db.Write(t.Context(), func(tx *store.Tx) error {
			_, err := CreatePayment(tx, s.user, wallet.CreatePaymentRequest{LocationID: s.loc, CheckNumber: s.check, CardID: id,
				Amount: client.MustParseMoney("1.00")})
			var ae *api.Error
			if !errors.As(err, &ae) || ae.Code != client.CodePaymentDeclined ||
				!cmp.Equal(ae.ContextData, map[string]string{"declineCode": tt.code}) {
				t.Errorf("%s: err = %v, want 402001 with its declineCode", tt.code, err)
			}
			var plain *api.Error
			if committed := errors.As(err, &plain) && err != error(plain); committed != tt.committed {
				t.Errorf("%s: committed = %v, want %v", tt.code, committed, tt.committed)
			}
			c, gerr := tx.GetCard(id)
			status = c.CardStatusID
			return gerr
		})
		if wallet.CardStatus(status) != tt.status {
			t.Errorf("%s: card status %d, want %v", tt.code, status, tt.status)
		}
	}
}

// sortedKeys returns the keys of m in order, nil for none.
func sortedKeys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
