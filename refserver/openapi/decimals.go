package openapi

import (
	"fmt"
	"math"

	"github.com/getkin/kin-openapi/openapi3"
)

// decimalPlacesKey is the documents' extension for money: a number with at
// most that many decimal places ("x-decimal-places": 2). The documents do
// not say multipleOf: 0.01, because validators that compute in binary
// floating point refuse valid amounts with it (19.99 / 0.01 is not a whole
// number in float64, nor is 0.07 / 0.01). kin-openapi checks multipleOf in
// decimal arithmetic, so applyDecimalPlaces turns the extension back into
// multipleOf for it, in memory: the refserver's validators keep refusing
// 10.005 while the served documents stay readable by every validator.
const decimalPlacesKey = "x-decimal-places"

// applyDecimalPlaces sets multipleOf on every schema that carries
// x-decimal-places.
func applyDecimalPlaces(doc *openapi3.T) error {
	var err error
	eachSchema(doc, func(s *openapi3.Schema) {
		v, ok := s.Extensions[decimalPlacesKey]
		if !ok || err != nil {
			return
		}
		n, isNum := v.(float64)
		if !isNum || n != math.Trunc(n) || n < 0 || n > 10 {
			err = fmt.Errorf("openapi: %s must be a whole number from 0 to 10, not %v", decimalPlacesKey, v)
			return
		}
		step := math.Pow10(-int(n))
		s.MultipleOf = &step
	})
	return err
}
