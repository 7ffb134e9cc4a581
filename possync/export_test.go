package possync

// The external test package (the end-to-end tests) reuses these helpers of
// the internal tests.
var (
	StartAgent = startAgent
	WaitFor    = waitFor
)
