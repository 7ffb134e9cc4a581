package checkwire

import (
	"crypto/sha256"
	"testing"
)

// BenchmarkCheckPushDecode measures the push's work outside the database
// and the HTTP: decoding the body with presence, validation, the canonical
// encoding and its hash, for the 2 KB fixture check.
//
//	go test -run='^$' -bench=CheckPushDecode -benchmem ./refserver/internal/checkwire/
func BenchmarkCheckPushDecode(b *testing.B) {
	body := fixture(b)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		p, err := Decode(body)
		if err != nil {
			b.Fatal(err)
		}
		if err := p.Validate(); err != nil {
			b.Fatal(err)
		}
		canonical, err := p.Check.MarshalJSON()
		if err != nil {
			b.Fatal(err)
		}
		_ = sha256.Sum256(canonical)
	}
}
