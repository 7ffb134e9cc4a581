package sim_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/refserver/sim"
	"github.com/hospo-dev/hospo-go/universalpos"
)

func TestDemoMenusAreValid(t *testing.T) {
	t.Parallel()
	if probs := universalpos.ValidateMenus(sim.DemoMenus()); len(probs) > 0 {
		t.Fatalf("demo menu problems: %v", probs)
	}
}

func TestDemoPOSHandlerPassesChecker(t *testing.T) {
	t.Parallel()
	h := sim.NewDemoPOSHandler("admin-key", nil, nil)
	mux := http.NewServeMux()
	mux.Handle(sim.DemoPOSPath+"/", http.StripPrefix(sim.DemoPOSPath, h))
	srv := httptest.NewServer(mux)
	defer srv.Close()
	report := universalpos.RunConformance(context.Background(), universalpos.ConformanceConfig{
		URL: srv.URL + sim.DemoPOSPath, Token: sim.DemoPOSToken("admin-key"), HTTPClient: srv.Client(),
	})
	var out bytes.Buffer
	_ = report.Write(&out)
	if !report.Passed() {
		t.Fatalf("demo POS fails the checker:\n%s", out.String())
	}
}

func TestDemoPOSCreateOrder(t *testing.T) {
	t.Parallel()
	line := func(plu string, opts ...universalpos.OrderOption) universalpos.OrderItem {
		return universalpos.OrderItem{PLU: plu, Name: plu, Quantity: 1, Price: client.MustParseMoney("1.00"), Options: opts}
	}
	opt := func(plu string, opts ...universalpos.OrderOption) universalpos.OrderOption {
		return universalpos.OrderOption{PLU: plu, Name: plu, Quantity: 1, Options: opts}
	}
	tests := []struct {
		name   string
		items  []universalpos.OrderItem
		fields map[string]string // nil: accepted
	}{
		{"burger with nested fries size", []universalpos.OrderItem{
			line("GRL-001", opt("CK-MEDIUM"), opt("SIDE-FRIES", opt("FRIES-LARGE"))),
		}, nil},
		{"meal deal", []universalpos.OrderItem{
			line("DEAL-BURGER-MEAL", opt("GRL-001", opt("CK-WELL")), opt("SD-FRIES"), opt("DRK-003")),
		}, nil},
		{"unknown plu", []universalpos.OrderItem{line("NOPE")}, map[string]string{"items[0].plu": "unknown plu"}},
		{"sold out", []universalpos.OrderItem{line("DRK-004")}, map[string]string{"items[0].plu": "sold out"}},
		{"option of another item", []universalpos.OrderItem{
			line("GRL-002", opt("SIDE-FRIES")),
		}, map[string]string{"items[0].options[0].plu": "not an option of this item"}},
		{"nested option in the wrong place", []universalpos.OrderItem{
			line("GRL-001", opt("SIDE-SALAD", opt("FRIES-LARGE"))),
		}, map[string]string{"items[0].options[0].options[0].plu": "not an option of this item"}},
		{"deal with a foreign item", []universalpos.OrderItem{
			line("DEAL-BRUNCH", opt("GRL-001")),
		}, map[string]string{"items[0].options[0].plu": "not an item of this deal"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := sim.NewDemoPOS(nil)
			id, err := p.CreateOrder(context.Background(), universalpos.Order{OrderID: "o1", Items: tc.items})
			if tc.fields == nil {
				if err != nil || id == "" || p.OrderCount() != 1 {
					t.Fatalf("got %q, %v", id, err)
				}
				return
			}
			var e *universalpos.Error
			if !errors.As(err, &e) || e.StatusCode != http.StatusUnprocessableEntity || e.Temporary() {
				t.Fatalf("err = %v, want a final 422", err)
			}
			if diff := cmp.Diff(tc.fields, e.Fields); diff != "" {
				t.Errorf("fields (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDemoPOSOrderIDsAreDistinct(t *testing.T) {
	t.Parallel()
	a, b := sim.NewDemoPOS(nil), sim.NewDemoPOS(nil)
	order := universalpos.Order{Items: []universalpos.OrderItem{{PLU: "DRK-003", Quantity: 1}}}
	ida, _ := a.CreateOrder(context.Background(), order)
	ida2, _ := a.CreateOrder(context.Background(), order)
	idb, _ := b.CreateOrder(context.Background(), order)
	if ida == ida2 || ida == idb {
		t.Errorf("posOrderIds %q %q %q repeat", ida, ida2, idb)
	}
}
