package refserver

import (
	"crypto/sha256"
	"os"
	"testing"
)

// BenchmarkCheckPushDecode measures the push's work outside the database:
// decoding the body with presence tracking, validation, the canonical
// encoding and its hash, for the 2 KB fixture check.
//
//	go test -run='^$' -bench=CheckPushDecode ./refserver/
func BenchmarkCheckPushDecode(b *testing.B) {
	body, err := os.ReadFile("../possync/testdata/check.json")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		var wc wireCheck
		if err := decodeCheck(body, &wc); err != nil {
			b.Fatal(err)
		}
		c, err := checkFromWire(&wc)
		if err != nil {
			b.Fatal(err)
		}
		canonical, err := c.MarshalJSON()
		if err != nil {
			b.Fatal(err)
		}
		_ = sha256.Sum256(canonical)
	}
}
