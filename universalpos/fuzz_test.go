package universalpos_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hospo-dev/hospo-go/universalpos"
)

// orderSeeds returns the order bodies in testdata/orders: valid_*.json must
// decode, invalid_*.json must not.
func orderSeeds(tb testing.TB) map[string][]byte {
	tb.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "orders", "*.json"))
	if err != nil || len(files) == 0 {
		tb.Fatalf("no seeds: %v", err)
	}
	seeds := map[string][]byte{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		seeds[filepath.Base(f)] = b
	}
	return seeds
}

func TestOrderSeeds(t *testing.T) {
	t.Parallel()
	for name, body := range orderSeeds(t) {
		_, err := universalpos.DecodeOrder(body)
		if strings.HasPrefix(name, "valid_") != (err == nil) {
			t.Errorf("%s: DecodeOrder error %v", name, err)
		}
	}
}

// acceptAll is a Provider that accepts every order.
type acceptAll struct{}

func (acceptAll) Health(context.Context) (universalpos.HealthStatus, error) {
	return universalpos.HealthStatus{Status: universalpos.HealthOK}, nil
}
func (acceptAll) Menus(context.Context) ([]universalpos.Menu, error) { return nil, nil }
func (acceptAll) CreateOrder(_ context.Context, o universalpos.Order) (string, error) {
	return "P-" + o.OrderID, nil
}

// FuzzDecodeOrder feeds arbitrary bodies to the order decoder and to the
// handler. Run it with: go test ./universalpos -run '^$' -fuzz FuzzDecodeOrder
//
// Properties: nothing panics; a refused body is a 400 *Error; an accepted
// order encodes to a body that decodes to the same order (so what the
// provider gets is exactly what was validated); the handler answers 2xx
// exactly when DecodeOrder accepts.
func FuzzDecodeOrder(f *testing.F) {
	for _, body := range orderSeeds(f) {
		f.Add(body)
	}
	h := universalpos.NewHandler(acceptAll{}, universalpos.HandlerOptions{
		Token: "t", Orders: universalpos.NewMemoryOrderStore(64),
	})
	f.Fuzz(func(t *testing.T, body []byte) {
		order, err := universalpos.DecodeOrder(body)
		req := httptest.NewRequest(http.MethodPost, "/orders", strings.NewReader(string(body)))
		req.Header.Set("Authorization", "Bearer t")
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)

		if err != nil {
			var e *universalpos.Error
			if !errors.As(err, &e) || e.StatusCode != http.StatusBadRequest {
				t.Fatalf("refusal is not a 400 *Error: %#v", err)
			}
			if rec.Code != http.StatusBadRequest && rec.Code != http.StatusRequestEntityTooLarge {
				t.Fatalf("handler answered %d to a body DecodeOrder refuses", rec.Code)
			}
			return
		}
		if rec.Code != http.StatusCreated && rec.Code != http.StatusOK {
			t.Fatalf("handler answered %d to a body DecodeOrder accepts: %s", rec.Code, rec.Body)
		}
		if order.OrderID == "" || len(order.Items) == 0 || order.Total.IsNegative() {
			t.Fatalf("accepted an order that breaks the rules: %+v", order)
		}
		again, err := json.Marshal(order)
		if err != nil {
			t.Fatalf("accepted order does not encode: %v", err)
		}
		back, err := universalpos.DecodeOrder(again)
		if err != nil {
			t.Fatalf("re-encoded order %s is refused: %v", again, err)
		}
		if diff := cmp.Diff(order, back, cmpMoney); diff != "" {
			t.Fatalf("round trip changed the order (-first +second):\n%s", diff)
		}
	})
}
