package outbound

import (
	"net/http"

	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/hospo-dev/hospo-go/refserver/internal/api"
)

// WithTraceContext returns a copy of hc whose requests carry the trace
// context of their own context in p's headers (traceparent, for W3C Trace
// Context), as the SDK's calls do: a universal POS's or a webhook
// receiver's spans then join the trace of the try or check that called
// them. A request made outside any trace goes out as it is.
func WithTraceContext(hc *http.Client, p propagation.TextMapPropagator) *http.Client {
	return api.WrapTransport(hc, func(base http.RoundTripper) http.RoundTripper { return traceContextTransport{base: base, p: p} })
}

type traceContextTransport struct {
	base http.RoundTripper
	p    propagation.TextMapPropagator
}

func (t traceContextTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if !trace.SpanContextFromContext(r.Context()).IsValid() {
		return t.base.RoundTrip(r)
	}
	r = r.Clone(r.Context()) // a RoundTripper must not change the request it is given
	t.p.Inject(r.Context(), propagation.HeaderCarrier(r.Header))
	return t.base.RoundTrip(r)
}
