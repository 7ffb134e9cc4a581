// Package client is the transport core of the hospo-go SDK: the Client that
// the area packages (wallet, bills, possync, fulfillment) share, and the
// types they all use on the wire.
//
// A Client holds the base URL, the credentials, the retry policy, an optional
// client-side rate limit and an optional logger:
//
//	c, err := client.New(
//		client.WithBaseURL("https://api.example.com/"),
//		client.WithEnvironment(client.EnvironmentProduction),
//		client.WithAccessToken(token),
//	)
//
// Area packages describe each endpoint as a Request and call Do, which
// sends it and decodes the JSON answer. Every option also works per call,
// for that call only, except those that shape the shared transport (see
// Option):
//
//	_, err = c.Do(ctx, &client.Request{Path: "v1/user/me", Auth: client.AuthAccessToken},
//		&out, client.WithAccessToken(otherUsersToken))
//
// # Credentials
//
// Each endpoint takes one credential (Auth): a user or POS access token,
// sent as the accessToken query parameter; a vendor API key, sent as the
// X-Vendor-API-Key header; or the sandbox admin key, sent as the
// X-Sandbox-Admin-Key header. Do attaches only the credential the endpoint
// takes, and fails with ErrNoCredential, sending nothing, when it is missing.
// Credentials never appear in an error string or a log line of the SDK:
// URLs are redacted before they reach either.
//
// # Retries and idempotency
//
// Requests go through github.com/hashicorp/go-retryablehttp. GET, HEAD, PUT,
// DELETE and OPTIONS requests, and requests carrying an Idempotency-Key, are
// retried after connection errors, 429s and 5xx responses other than 501,
// with jittered exponential backoff; a Retry-After header is honoured up to
// RetryPolicy.MaxRetryAfter. Every POST gets an Idempotency-Key, generated
// once per call and repeated on every retry, so that the service carries it
// out once however often it arrives. WithoutIdempotencyKey sends none, and
// then the POST is never retried. Cancelling ctx stops the call at once,
// during a backoff wait too.
//
// # Errors
//
// A non-2xx response becomes an *APIError. Match its code with errors.Is
// and the sentinels of the catalogue (ErrCardNotTokenised, ErrValidation,
// ...; see Codes), and read a validation error's fields with FieldErrors.
// Failures without a response (connection refused, timeouts, cancellation)
// are returned wrapped, so errors.Is(err, context.Canceled) works; a
// refused connection to a loopback base URL adds that the sandbox may not
// be running. A base URL that cannot work (no scheme, no host, a scheme
// other than http or https, a query or fragment) fails in New with an
// error matching ErrInvalidBaseURL that names the likely fix.
//
// The Validate methods of the area packages refuse a request before it is
// sent with a *ValidationError, whose Fields are the JSON paths and
// reasons the service would give in a 400002; errors.Is(err,
// ErrValidation) matches both.
//
// # Telemetry
//
// WithTracerProvider and WithMeterProvider turn on OpenTelemetry: a client
// span per call named by its route template (Request.Route), never by its
// URL, with an event per retry and the trace context in the request
// headers; and the MetricCallDuration and MetricRetries metrics. Both are
// off by default. The package imports the OpenTelemetry API only.
//
// # Wire types
//
// Money is an exact decimal amount that never passes through float64.
// RequestInfo is the requestInfo object of responses. UnixTime and BillTime
// carry the service's two time formats; FormatQueryTime formats the from and
// to query parameters.
package client
