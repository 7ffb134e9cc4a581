package fielderr

import (
	"slices"
	"strconv"
)

// MaxReported is the most failing fields one 400002 names; the message of
// one that fails more says how many there are.
const MaxReported = 100

// Report returns what a 400002 shows of fields and omitted more failures
// (those a Set counted without keeping them): the fields themselves, or,
// when there are more than MaxReported in all, the first MaxReported of
// fields in path order with a message saying how many failed ("Validation
// failed: 100 of 2,431 problems shown."). message is "" when every field
// is shown.
func Report(fields map[string]string, omitted int) (shown map[string]string, message string) {
	total := len(fields) + omitted
	if total <= MaxReported {
		return fields, ""
	}
	if len(fields) <= MaxReported {
		return fields, "Validation failed: " + strconv.Itoa(len(fields)) + " of " + thousands(total) + " problems shown."
	}
	paths := make([]string, 0, len(fields))
	for p := range fields {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	shown = make(map[string]string, MaxReported)
	for _, p := range paths[:MaxReported] {
		shown[p] = fields[p]
	}
	return shown, "Validation failed: " + strconv.Itoa(MaxReported) + " of " + thousands(total) + " problems shown."
}

// thousands formats n with commas between groups of three digits.
func thousands(n int) string {
	s := strconv.Itoa(n)
	out := make([]byte, 0, len(s)+len(s)/3)
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	return string(out)
}
