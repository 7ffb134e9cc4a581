package rules

import (
	"testing"

	"github.com/hospo-dev/hospo-go/refserver/store"
)

// BenchmarkPaymentsPoll reads a location's pending payments, three of
// them, in a read transaction under a context that can be cancelled: the
// payments poll that every POS agent makes every few seconds, minus HTTP.
//
//	go test -run '^$' -bench PaymentsPoll -benchtime 20000x ./refserver/rules/
func BenchmarkPaymentsPoll(b *testing.B) {
	s := newScene(b)
	for _, amount := range []string{"1", "2", "3"} {
		s.pay(b, amount, "0")
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		err := s.db.Read(b.Context(), func(tx *store.Tx) error {
			checks, err := PendingPayments(tx, s.loc)
			if err == nil && len(checks[s.check]) != 3 {
				b.Fatalf("pending payments: %v", checks)
			}
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}
