package store

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"
)

// The writer's metrics (writer.go).
const (
	// MetricWriteQueue is the number of write functions waiting for the
	// writer.
	MetricWriteQueue = "refserver.store.write.queue"
	// MetricWriteBatchSize is a histogram of the functions sharing one
	// write transaction.
	MetricWriteBatchSize = "refserver.store.write.batch_size"
)

// AttrBatchSize is the attribute of a write transaction's span that holds
// its number of functions.
const AttrBatchSize = attribute.Key("refserver.store.batch_size")

// OpenOption configures Open.
type OpenOption func(*DB)

// WithTelemetry makes the writer trace each write transaction with tracer
// (nil: none) and measure its queue and batches with meter (nil: not).
// Without it the writer pays one nil check per batch.
func WithTelemetry(tracer trace.Tracer, meter metric.Meter) OpenOption {
	return func(db *DB) {
		if tracer != nil || meter != nil {
			db.tel = &writerTelemetry{tracer: tracer, meter: meter}
		}
	}
}

// writerTelemetry is what the writer records with, set before it starts.
type writerTelemetry struct {
	tracer    trace.Tracer
	meter     metric.Meter
	batchSize metric.Int64Histogram
	queueReg  metric.Registration
}

// batchSizeBuckets cover 1 to maxBatch.
var batchSizeBuckets = []float64{1, 2, 4, 8, 16, 32, 64, 128}

// start makes the instruments, reading the queue depth of w.
func (t *writerTelemetry) start(w *writer) error {
	if t.meter == nil {
		return nil
	}
	var err error
	t.batchSize, err = t.meter.Int64Histogram(MetricWriteBatchSize,
		metric.WithUnit("{function}"),
		metric.WithDescription("Write functions sharing one SQLite transaction."),
		metric.WithExplicitBucketBoundaries(batchSizeBuckets...))
	if err != nil {
		return err
	}
	queue, err := t.meter.Int64ObservableGauge(MetricWriteQueue,
		metric.WithUnit("{function}"),
		metric.WithDescription("Write functions waiting for the SQLite writer."))
	if err != nil {
		return err
	}
	t.queueReg, err = t.meter.RegisterCallback(func(_ context.Context, o metric.Observer) error {
		o.ObserveInt64(queue, int64(len(w.queue)))
		return nil
	}, queue)
	return err
}

func (t *writerTelemetry) stop() {
	if t.queueReg != nil {
		_ = t.queueReg.Unregister()
	}
}

// startBatch starts the span of a batch's transaction as a child of the
// first function's context, linked to the others', and records the batch
// size. end reports whether the transaction committed.
func (t *writerTelemetry) startBatch(batch []*writeJob) (end func(committed bool)) {
	if t.batchSize != nil {
		t.batchSize.Record(context.Background(), int64(len(batch)))
	}
	if t.tracer == nil {
		return func(bool) {}
	}
	var links []trace.Link
	for _, j := range batch[1:] {
		if sc := trace.SpanContextFromContext(j.ctx); sc.IsValid() {
			links = append(links, trace.Link{SpanContext: sc})
		}
	}
	_, span := t.tracer.Start(batch[0].ctx, "store write transaction",
		trace.WithSpanKind(trace.SpanKindInternal),
		trace.WithLinks(links...),
		trace.WithAttributes(AttrBatchSize.Int(len(batch)), attribute.String("db.system.name", "sqlite")))
	return func(committed bool) {
		span.SetAttributes(attribute.Bool("refserver.store.committed", committed))
		span.End()
	}
}
