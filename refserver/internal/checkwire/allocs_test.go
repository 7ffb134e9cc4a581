package checkwire

import "testing"

// maxDecodeAllocs is what decoding the fixture check allocates: the Push,
// the body as a string (all the check's strings are substrings of it),
// the discounts, the items, and one slab each for the categories, the
// item discounts and the modifiers (see slabs); the decoder comes from a
// pool. It was 18 when every category, discount and list of modifiers
// took its own allocation, the readers' closures moved their variables to
// the heap, and every push allocated its decoder.
const maxDecodeAllocs = 7

// TestDecodeAllocs holds the decoder to maxDecodeAllocs for a realistic
// check, so that a change that puts an allocation back per member, per
// category or per list fails here rather than only in a benchmark.
func TestDecodeAllocs(t *testing.T) {
	body := fixture(t)
	var err error
	allocs := testing.AllocsPerRun(100, func() {
		var p *Push
		if p, err = Decode(body); err == nil {
			err = p.Validate()
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if allocs > maxDecodeAllocs {
		t.Errorf("decoding and validating the fixture check took %v allocations, want at most %d", allocs, maxDecodeAllocs)
	}
}
