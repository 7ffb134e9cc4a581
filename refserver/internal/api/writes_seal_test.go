package api

import (
	"os"
	"testing"
)

// A response stored before the seal moved to package seal still opens:
// testdata/idempotency/sealed-v1.bin was sealed by the earlier code, under
// admin key "golden-admin-key", for caller user:7 and key golden-key-1.
func TestStoredResponseSealedByEarlierCodeOpens(t *testing.T) {
	t.Parallel()
	sealed, err := os.ReadFile("testdata/idempotency/sealed-v1.bin")
	if err != nil {
		t.Fatal(err)
	}
	req := &idemRequest{credential: "user:7", key: "golden-key-1"}
	const want = `{"payment":{"paymentId":42},"requestInfo":{"apiVersion":1}}`

	ws := NewWrites(nil, nil, nil, "golden-admin-key")
	got, err := ws.box.Open(sealed, req.binding())
	if err != nil || string(got) != want {
		t.Fatalf("open the stored record: %q, %v; want %q", got, err, want)
	}
	// Bound to its caller and key, and to the admin key.
	other := &idemRequest{credential: "user:8", key: "golden-key-1"}
	if _, err := ws.box.Open(sealed, other.binding()); err == nil {
		t.Error("the record opened for another caller")
	}
	if _, err := NewWrites(nil, nil, nil, "another-admin-key").box.Open(sealed, req.binding()); err == nil {
		t.Error("the record opened under another admin key")
	}
	// What is sealed now opens the same way.
	resealed := ws.box.Seal([]byte(want), req.binding())
	if got, err := ws.box.Open(resealed, req.binding()); err != nil || string(got) != want {
		t.Errorf("a record sealed now: %q, %v", got, err)
	}
}
