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

// BenchmarkCheckDecode measures the decoder alone, on the same fixture:
// the part of BenchmarkCheckPushDecode that this package owns, without
// the canonical encoding and its hash.
//
//	go test -run='^$' -bench=CheckDecode -benchmem ./refserver/internal/checkwire/
func BenchmarkCheckDecode(b *testing.B) {
	body := fixture(b)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Decode(body); err != nil {
			b.Fatal(err)
		}
	}
}

// hostileBody returns a check push of about 1 MiB (the body limit) whose
// menu items are all empty objects: every item misses all of its members,
// the most problems per byte a body can make.
func hostileBody() []byte {
	b := []byte(`{"locationId":1,"checkNumber":1,"status":"open","menuItems":[{}`)
	for len(b) < 1<<20-8 {
		b = append(b, ",{}"...)
	}
	return append(b, "]}"...)
}

// BenchmarkCheckPushManyProblems measures the cost of refusing the body
// with the most problems per byte: what one hostile push costs the server
// outside the database.
//
//	go test -run='^$' -bench=CheckPushManyProblems -benchmem ./refserver/internal/checkwire/
func BenchmarkCheckPushManyProblems(b *testing.B) {
	body := hostileBody()
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		p, err := Decode(body)
		if err != nil {
			b.Fatal(err)
		}
		if err := p.Validate(); err == nil {
			b.Fatal("hostile body accepted")
		}
	}
}
