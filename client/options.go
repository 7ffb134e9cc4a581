package client

import (
	"log/slog"
	"net/http"
	"time"

	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
	"golang.org/x/time/rate"
)

// Environment names the deployment a Client talks to.
type Environment string

// The environments. The sandbox is the reference server, which runs locally
// (go run ./refserver/cmd/refserver); production has no built-in address and
// needs WithBaseURL, so that a misconfigured program fails in New instead of
// sending real credentials to a guessed host.
const (
	EnvironmentSandbox    Environment = "sandbox"
	EnvironmentProduction Environment = "production"
)

// SandboxURL is the default base URL: the reference server on its default
// address.
const SandboxURL = "http://127.0.0.1:8080"

// Version is the SDK version sent in the default User-Agent.
const Version = "0.1.0"

// DefaultUserAgent is the User-Agent sent unless WithUserAgent replaces it.
const DefaultUserAgent = "hospo-go/" + Version

// DefaultTimeout bounds each HTTP attempt (not the whole call with its
// retries; bound that with the ctx passed to Do) unless WithTimeout changes it.
const DefaultTimeout = 30 * time.Second

// RetryPolicy says how often and how patiently a retryable request is
// retried. Only idempotent requests (GET, HEAD, PUT, DELETE, OPTIONS) and
// requests carrying an Idempotency-Key are ever retried, and only after a
// connection error, a 429 or a 5xx other than 501.
type RetryPolicy struct {
	// MaxRetries is the number of retries after the first attempt; 0 turns
	// retries off.
	MaxRetries int
	// MinBackoff is the wait before the first retry; each further retry
	// doubles it, up to MaxBackoff. Every wait is jittered down to between
	// half and all of its value so that many clients do not retry in step.
	MinBackoff time.Duration
	// MaxBackoff caps the exponential wait.
	MaxBackoff time.Duration
	// MaxRetryAfter caps a wait that the server asks for with Retry-After,
	// so that a misbehaving server or proxy cannot park a call for hours.
	// A Retry-After is honoured in place of the exponential wait. Zero
	// means MaxBackoff.
	MaxRetryAfter time.Duration
}

// DefaultRetryPolicy returns the policy a Client uses unless WithRetryPolicy
// or WithMaxRetries changes it: 3 retries, waits from 250ms doubling up to 5s,
// and Retry-After honoured up to 30s.
func DefaultRetryPolicy() RetryPolicy {
	return RetryPolicy{
		MaxRetries:    3,
		MinBackoff:    250 * time.Millisecond,
		MaxBackoff:    5 * time.Second,
		MaxRetryAfter: 30 * time.Second,
	}
}

// Option configures a Client in New, or one call in Do. A per-call option
// overrides the Client's setting for that call only. Options that shape the
// shared transport (WithHTTPClient, WithRateLimit, WithLogger, WithEnvironment,
// WithTracerProvider, WithMeterProvider, WithPropagator) take effect only in
// New and are ignored per call.
type Option func(*settings)

// settings is what the options write to. A Client keeps one as the defaults
// of its calls; Do copies it when a call has options of its own.
type settings struct {
	baseURL     string
	env         Environment
	accessToken string
	apiKey      string
	adminKey    string
	userAgent   string
	timeout     time.Duration
	retry       RetryPolicy
	idemKey     string
	noIdem      bool
	headers     http.Header

	// Applied in New only.
	httpClient *http.Client
	rateLimit  rate.Limit
	rateBurst  int
	rateSet    bool
	logger     *slog.Logger

	// Telemetry (telemetry.go), also New only.
	tracerProvider trace.TracerProvider
	meterProvider  metric.MeterProvider
	propagator     propagation.TextMapPropagator
}

func defaultSettings() settings {
	return settings{
		env:       EnvironmentSandbox,
		userAgent: DefaultUserAgent,
		timeout:   DefaultTimeout,
		retry:     DefaultRetryPolicy(),
	}
}

// WithBaseURL sets the service's base URL, such as "https://api.example.com/"
// or the URL of a test server. It is required for EnvironmentProduction.
// Request paths are resolved below it, so a base URL with a path prefix works.
// It must be an absolute http or https URL without a query or fragment;
// otherwise New (or the call, per call) fails with an error matching
// ErrInvalidBaseURL that names the likely fix ("127.0.0.1:8080" gets
// "use http://127.0.0.1:8080").
func WithBaseURL(u string) Option { return func(s *settings) { s.baseURL = u } }

// WithEnvironment selects the environment. EnvironmentSandbox (the default)
// uses SandboxURL unless WithBaseURL says otherwise; EnvironmentProduction
// requires WithBaseURL. New only.
func WithEnvironment(e Environment) Option { return func(s *settings) { s.env = e } }

// WithAccessToken sets the user or POS access token, sent as the accessToken
// query parameter to the endpoints that take one. Per call it lets one
// Client act for several users or POS terminals.
func WithAccessToken(token string) Option { return func(s *settings) { s.accessToken = token } }

// WithAPIKey sets the vendor API key, sent as the X-Vendor-API-Key header to
// the bills endpoints.
func WithAPIKey(key string) Option { return func(s *settings) { s.apiKey = key } }

// WithAdminKey sets the sandbox admin key, sent as the X-Sandbox-Admin-Key
// header to the /sandbox/ endpoints.
func WithAdminKey(key string) Option { return func(s *settings) { s.adminKey = key } }

// WithHTTPClient sets the *http.Client whose transport carries the requests
// (for proxies, custom TLS roots, or httpmock in tests). The Client does not
// modify it: it copies it and wraps its Transport (http.DefaultTransport when
// nil) with the rate limiter and logging. New only.
func WithHTTPClient(hc *http.Client) Option { return func(s *settings) { s.httpClient = hc } }

// WithTimeout bounds each HTTP attempt, reading the response body included.
// The whole call, retries and waits included, is bounded by the ctx given to
// Do. Zero or less means no per-attempt bound. The default is DefaultTimeout.
func WithTimeout(d time.Duration) Option { return func(s *settings) { s.timeout = d } }

// WithRetryPolicy replaces the retry policy (see RetryPolicy).
func WithRetryPolicy(p RetryPolicy) Option { return func(s *settings) { s.retry = p } }

// WithMaxRetries changes only the number of retries of the policy; 0 turns
// retries off.
func WithMaxRetries(n int) Option {
	return func(s *settings) { s.retry.MaxRetries = max(n, 0) }
}

// WithRateLimit limits the rate of HTTP attempts leaving the Client to r per
// second with bursts of up to burst. Retries spend tokens like first
// attempts, so a struggling server is not hammered. Waiting for a token
// honours the call's ctx. r must be positive (rate.Inf means no limit).
// New only; the default is no limit.
func WithRateLimit(r rate.Limit, burst int) Option {
	return func(s *settings) { s.rateLimit, s.rateBurst, s.rateSet = r, burst, true }
}

// WithLogger makes the Client log through l: one debug line per HTTP attempt
// (method, path without query, status, attempt, duration) and a warning when
// it gives up on a retryable failure. Credentials never appear in these
// lines. The Client is silent without it. New only.
func WithLogger(l *slog.Logger) Option { return func(s *settings) { s.logger = l } }

// WithUserAgent sets the User-Agent header (DefaultUserAgent by default).
func WithUserAgent(ua string) Option { return func(s *settings) { s.userAgent = ua } }

// WithIdempotencyKey sends key as the Idempotency-Key header of one call, in
// place of the generated one; use it to make a call safe to repeat across
// process restarts. A request carrying a key is retried like an idempotent
// one. It is a per-call option: New rejects it, since one key shared by
// every call would make the second call a 409004.
func WithIdempotencyKey(key string) Option {
	return func(s *settings) { s.idemKey, s.noIdem = key, false }
}

// WithoutIdempotencyKey sends no Idempotency-Key. A POST without a key is
// never retried, because the SDK cannot know whether the first attempt took
// effect.
func WithoutIdempotencyKey() Option {
	return func(s *settings) { s.idemKey, s.noIdem = "", true }
}

// WithHeader sets an extra request header. Later options win over earlier
// ones for the same header; the Client's own headers (credentials,
// Content-Type, Idempotency-Key) win over both.
func WithHeader(key, value string) Option {
	return func(s *settings) {
		h := s.headers.Clone() // copy on write: the Client's map is shared by calls
		if h == nil {
			h = make(http.Header)
		}
		h.Set(key, value)
		s.headers = h
	}
}
