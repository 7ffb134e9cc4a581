package fielderr

// Reasons that several rules give, worded once.
const (
	// ReasonRequired: the field is missing or null (or, on a Go value
	// where absence cannot be seen, empty).
	ReasonRequired = "required"
	// ReasonNegative: a number or an amount below zero.
	ReasonNegative = "must not be negative"
	// ReasonPositive: an id or a number that must be 1 or more.
	ReasonPositive = "must be positive"
	// ReasonMoneyPrecision: money with more than two fraction digits.
	ReasonMoneyPrecision = "must have at most 2 decimal places"
	// ReasonOutOfRange: a number the field's type cannot hold.
	ReasonOutOfRange = "is out of range"
)
