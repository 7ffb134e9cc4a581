package openapi

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
)

// decimalPlacesKey is the documents' extension for money: a number with at
// most that many decimal places ("x-decimal-places": 2). The documents do
// not say multipleOf: 0.01, because validators that compute in binary
// floating point refuse valid amounts with it (19.99 / 0.01 is not a whole
// number in float64, nor is 0.07 / 0.01). kin-openapi's multipleOf is no
// better: it prints the value with ten decimals first, which turns
// 1234567.89 into 1234567.8899999999 and refuses it. So applyDecimalPlaces
// gives every such schema, in memory, a number format of its own whose
// validator counts the decimals of the shortest representation of the
// value, the digits the JSON had: the refserver's validators refuse 10.005
// and take 1234567.89, while the served documents stay readable by every
// validator.
const decimalPlacesKey = "x-decimal-places"

// decimalFormatPrefix names the in-memory formats: "decimal-places-2".
const decimalFormatPrefix = "decimal-places-"

// registerDecimalFormats defines the formats for 0 to 10 places in
// kin-openapi's registry (which is global), once per process.
var registerDecimalFormats = sync.OnceFunc(func() {
	for n := 0; n <= 10; n++ {
		openapi3.DefineNumberFormatValidator(decimalFormatPrefix+strconv.Itoa(n),
			openapi3.NewCallbackValidator(func(v float64) error {
				if decimalPlaces(v) > n {
					return fmt.Errorf("must have at most %d decimal places", n)
				}
				return nil
			}))
	}
})

// decimalPlaces counts the fraction digits of the shortest decimal that
// reads back as v. A JSON number with up to 15 significant digits reads
// back as itself, so this is the count the client sent.
func decimalPlaces(v float64) int {
	s := strconv.FormatFloat(v, 'f', -1, 64)
	if i := strings.IndexByte(s, '.'); i >= 0 {
		return len(s) - i - 1
	}
	return 0
}

// applyDecimalPlaces sets the decimal-places format on every schema that
// carries x-decimal-places.
func applyDecimalPlaces(doc *openapi3.T) error {
	registerDecimalFormats()
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
		s.Format = decimalFormatPrefix + strconv.Itoa(int(n))
	})
	return err
}
