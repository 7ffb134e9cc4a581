package universalpos

// HealthState is the status field of GET /health.
//
// Unknown values decode without error; the service counts anything but
// HealthOK as not healthy.
type HealthState string

// The health states of the contract.
const (
	// HealthOK means the POS takes orders.
	HealthOK HealthState = "OK"
	// HealthFailed means the POS answers but cannot take orders now; the
	// message says why.
	HealthFailed HealthState = "FAILED"
)

// String returns the wire form of s.
func (s HealthState) String() string { return string(s) }

// HealthStatus is the body of GET /health: {"status": "OK"} or
// {"status": "FAILED", "message": "..."}.
type HealthStatus struct {
	Status HealthState `json:"status"`
	// Message explains a FAILED status to the operator; it is shown in the
	// service's location details, so it must not hold secrets.
	Message string `json:"message,omitempty"`
}

// OK reports whether the status is HealthOK.
func (h HealthStatus) OK() bool { return h.Status == HealthOK }
