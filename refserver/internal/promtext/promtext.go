// Package promtext writes OpenTelemetry metrics in the Prometheus text
// exposition format (version 0.0.4), so that the refserver's -metrics
// listener can be scraped without the Prometheus client library.
//
// Names follow the OpenTelemetry-to-Prometheus conventions: characters
// other than letters, digits, '_' and ':' become '_', a unit of seconds
// adds "_seconds", a monotonic sum is a counter with "_total", a
// non-monotonic sum or a gauge is a gauge, and a histogram is written as
// its cumulative "_bucket" series with "_sum" and "_count". Attributes
// become labels, named the same way.
package promtext

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

// ContentType is the media type of the format.
const ContentType = "text/plain; version=0.0.4; charset=utf-8"

// Handler serves the metrics that reader collects at each request.
func Handler(reader sdkmetric.Reader) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var rm metricdata.ResourceMetrics
		if err := reader.Collect(r.Context(), &rm); err != nil {
			http.Error(w, "collecting metrics failed", http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", ContentType)
		_ = Write(w, &rm) // a scraper that hung up has nothing more to read
	})
}

// family is one metric name with its type, help and samples.
type family struct {
	name, typ, help string
	samples         []sample
}

type sample struct {
	suffix string // "", "_bucket", "_sum", "_count"
	labels []label
	value  float64
}

type label struct{ name, value string }

// Write writes rm to w.
func Write(w io.Writer, rm *metricdata.ResourceMetrics) error {
	fams := map[string]*family{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			addMetric(fams, m)
		}
	}
	names := make([]string, 0, len(fams))
	for n := range fams {
		names = append(names, n)
	}
	slices.Sort(names)
	bw := bufio.NewWriter(w)
	for _, n := range names {
		f := fams[n]
		if f.help != "" {
			fmt.Fprintf(bw, "# HELP %s %s\n", f.name, escapeHelp(f.help))
		}
		fmt.Fprintf(bw, "# TYPE %s %s\n", f.name, f.typ)
		for _, s := range f.samples {
			bw.WriteString(f.name)
			bw.WriteString(s.suffix)
			if len(s.labels) > 0 {
				bw.WriteByte('{')
				for i, l := range s.labels {
					if i > 0 {
						bw.WriteByte(',')
					}
					bw.WriteString(l.name)
					bw.WriteString(`="`)
					bw.WriteString(escapeLabel(l.value))
					bw.WriteByte('"')
				}
				bw.WriteByte('}')
			}
			bw.WriteByte(' ')
			bw.WriteString(formatFloat(s.value))
			bw.WriteByte('\n')
		}
	}
	return bw.Flush()
}

func addMetric(fams map[string]*family, m metricdata.Metrics) {
	base := sanitize(m.Name)
	if m.Unit == "s" && !strings.HasSuffix(base, "_seconds") {
		base += "_seconds"
	}
	get := func(name, typ string) *family {
		f := fams[name]
		if f == nil {
			f = &family{name: name, typ: typ, help: m.Description}
			fams[name] = f
		}
		return f
	}
	switch d := m.Data.(type) {
	case metricdata.Sum[int64]:
		addSum(get, base, d.IsMonotonic, d.DataPoints)
	case metricdata.Sum[float64]:
		addSum(get, base, d.IsMonotonic, d.DataPoints)
	case metricdata.Gauge[int64]:
		addPoints(get(base, "gauge"), d.DataPoints)
	case metricdata.Gauge[float64]:
		addPoints(get(base, "gauge"), d.DataPoints)
	case metricdata.Histogram[int64]:
		addHistogram(get(base, "histogram"), d.DataPoints)
	case metricdata.Histogram[float64]:
		addHistogram(get(base, "histogram"), d.DataPoints)
	}
}

func addSum[N int64 | float64](get func(name, typ string) *family, base string, monotonic bool, pts []metricdata.DataPoint[N]) {
	if monotonic {
		addPoints(get(strings.TrimSuffix(base, "_total")+"_total", "counter"), pts)
		return
	}
	addPoints(get(base, "gauge"), pts)
}

func addPoints[N int64 | float64](f *family, pts []metricdata.DataPoint[N]) {
	for _, p := range sortedPoints(pts, func(p metricdata.DataPoint[N]) attribute.Set { return p.Attributes }) {
		f.samples = append(f.samples, sample{labels: labels(p.Attributes), value: float64(p.Value)})
	}
}

func addHistogram[N int64 | float64](f *family, pts []metricdata.HistogramDataPoint[N]) {
	for _, p := range sortedPoints(pts, func(p metricdata.HistogramDataPoint[N]) attribute.Set { return p.Attributes }) {
		ls := labels(p.Attributes)
		var cum uint64
		for i, bound := range p.Bounds {
			cum += p.BucketCounts[i]
			f.samples = append(f.samples, sample{suffix: "_bucket", labels: withLabel(ls, "le", formatFloat(bound)), value: float64(cum)})
		}
		f.samples = append(f.samples,
			sample{suffix: "_bucket", labels: withLabel(ls, "le", "+Inf"), value: float64(p.Count)},
			sample{suffix: "_sum", labels: ls, value: float64(p.Sum)},
			sample{suffix: "_count", labels: ls, value: float64(p.Count)})
	}
}

// sortedPoints orders points by their attributes, so that a scrape lists
// series in a stable order.
func sortedPoints[P any](pts []P, attrs func(P) attribute.Set) []P {
	type keyed struct {
		key string
		p   P
	}
	ks := make([]keyed, len(pts))
	for i, p := range pts {
		set := attrs(p)
		ks[i] = keyed{set.Encoded(attribute.DefaultEncoder()), p}
	}
	slices.SortFunc(ks, func(a, b keyed) int { return cmp.Compare(a.key, b.key) })
	out := make([]P, len(ks))
	for i, k := range ks {
		out[i] = k.p
	}
	return out
}

func labels(set attribute.Set) []label {
	ls := make([]label, 0, set.Len())
	for _, kv := range set.ToSlice() {
		ls = append(ls, label{name: sanitize(string(kv.Key)), value: kv.Value.String()})
	}
	return ls
}

func withLabel(ls []label, name, value string) []label {
	return append(slices.Clip(ls), label{name: name, value: value})
}

// sanitize makes s a valid metric or label name.
func sanitize(s string) string {
	b := []byte(s)
	for i, c := range b {
		ok := c == '_' || c == ':' || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || (i > 0 && '0' <= c && c <= '9')
		if !ok {
			b[i] = '_'
		}
	}
	return string(b)
}

var (
	helpEscaper  = strings.NewReplacer(`\`, `\\`, "\n", `\n`)
	labelEscaper = strings.NewReplacer(`\`, `\\`, "\n", `\n`, `"`, `\"`)
)

func escapeHelp(s string) string  { return helpEscaper.Replace(s) }
func escapeLabel(s string) string { return labelEscaper.Replace(s) }

func formatFloat(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "+Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	case math.IsNaN(v):
		return "NaN"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}
