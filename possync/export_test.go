package possync

// The external test package (the end-to-end tests) reuses this helper of
// the internal tests.
var StartAgent = startAgent
