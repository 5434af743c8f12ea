// Package rpcmetrics is the figures of the Thrift services, shared by the
// 0.6 and the 19.x service so that an operator sees every call in one set
// of metrics: per method calls, errors by exception and latency, and per
// column family reads and writes (what 0.6's tpstats and cfstats
// reported).
package rpcmetrics

import (
	"context"
	"errors"
	"reflect"
	"sync"
	"time"

	"github.com/apache/thrift/lib/go/thrift"
	"github.com/prometheus/client_golang/prometheus"
)

// Metric names of this package, for readers of the registry such as the
// admin endpoint's tpstats and cfstats.
const (
	MetricCalls       = "thriftd_thrift_calls_total"
	MetricErrors      = "thriftd_thrift_errors_total"
	MetricDuration    = "thriftd_thrift_call_duration_seconds"
	MetricActive      = "thriftd_thrift_calls_active"
	MetricReads       = "thriftd_column_family_read_duration_seconds"
	MetricWrites      = "thriftd_column_family_write_duration_seconds"
	MetricRowsRead    = "thriftd_column_family_rows_read_total"
	MetricRowsWritten = "thriftd_column_family_rows_written_total"
	latencyBucketMin  = 50e-6 // 50 µs, doubling up to about 6.5 s
)

// Metrics are the figures the Thrift services export. One Metrics serves
// both services; it is safe for concurrent use.
type Metrics struct {
	calls       *prometheus.CounterVec
	errors      *prometheus.CounterVec
	duration    *prometheus.HistogramVec
	active      *prometheus.GaugeVec
	reads       *prometheus.HistogramVec
	writes      *prometheus.HistogramVec
	rowsRead    *prometheus.CounterVec
	rowsWritten *prometheus.CounterVec

	// methods are the figures of each method, resolved once: a
	// connection's processor is wrapped method by method, and clients
	// that connect per request would otherwise pay three label lookups
	// per method on every connection.
	mu      sync.RWMutex
	methods map[string]*method
}

// New registers the figures with reg.
func New(reg prometheus.Registerer) *Metrics {
	buckets := prometheus.ExponentialBuckets(latencyBucketMin, 2, 18)
	m := &Metrics{
		calls: prometheus.NewCounterVec(prometheus.CounterOpts{Name: MetricCalls,
			Help: "Thrift calls completed, by method (errors included)."}, []string{"method"}),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{Name: MetricErrors,
			Help: "Thrift calls that ended in an exception, by method and exception type (TApplicationException for internal and protocol errors, abandoned when the client went away)."},
			[]string{"method", "exception"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: MetricDuration,
			Help: "Time from a call's arguments being read to its reply being written, by method.", Buckets: buckets}, []string{"method"}),
		active: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: MetricActive,
			Help: "Thrift calls in progress, by method."}, []string{"method"}),
		reads: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: MetricReads,
			Help: "Calls that read a column family, by column family, and the time they spent in the store.", Buckets: buckets},
			[]string{"keyspace", "column_family"}),
		writes: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: MetricWrites,
			Help: "Calls that wrote a column family, by column family, and the time they spent in the store.", Buckets: buckets},
			[]string{"keyspace", "column_family"}),
		rowsRead: prometheus.NewCounterVec(prometheus.CounterOpts{Name: MetricRowsRead,
			Help: "Rows read, by column family (a 10-key multiget reads 10): what 0.6's cfstats counted as reads."},
			[]string{"keyspace", "column_family"}),
		rowsWritten: prometheus.NewCounterVec(prometheus.CounterOpts{Name: MetricRowsWritten,
			Help: "Rows written, by column family (one per row and column family a call wrote): what 0.6's cfstats counted as writes."},
			[]string{"keyspace", "column_family"}),
		methods: map[string]*method{},
	}
	reg.MustRegister(m.calls, m.errors, m.duration, m.active, m.reads, m.writes, m.rowsRead, m.rowsWritten)
	return m
}

// Declare makes method's series exist before its first call, so that
// every method is listed with zeros (as tpstats listed every stage).
func (m *Metrics) Declare(method string) { m.method(method) }

// method is the figures of one method.
type method struct {
	name     string
	calls    prometheus.Counter
	duration prometheus.Observer
	active   prometheus.Gauge
	errors   *prometheus.CounterVec
}

func (m *Metrics) method(name string) *method {
	m.mu.RLock()
	f := m.methods[name]
	m.mu.RUnlock()
	if f != nil {
		return f
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if f = m.methods[name]; f == nil {
		f = &method{
			name:     name,
			calls:    m.calls.WithLabelValues(name),
			duration: m.duration.WithLabelValues(name),
			active:   m.active.WithLabelValues(name),
			errors:   m.errors,
		}
		m.methods[name] = f
	}
	return f
}

// record counts one call that answered exception ("" for none) and
// took from start until now.
func (f *method) record(start time.Time, exception string) {
	f.duration.Observe(time.Since(start).Seconds())
	f.active.Dec()
	f.calls.Inc()
	if exception != "" {
		f.errors.WithLabelValues(f.name, exception).Inc()
	}
}

// meteredFunction counts and times one method's calls around the
// processor function that decodes, runs and answers them.
type meteredFunction struct {
	*method
	fn thrift.TProcessorFunction
}

// Wrap counts and times the calls of method name around fn, the processor
// function that decodes, runs and answers them.
func (m *Metrics) Wrap(name string, fn thrift.TProcessorFunction) thrift.TProcessorFunction {
	return &meteredFunction{method: m.method(name), fn: fn}
}

// Process runs the call through a replyWatch, the one allocation the
// figures cost a call.
func (f *meteredFunction) Process(ctx context.Context, seq int32, in, out thrift.TProtocol) (bool, thrift.TException) {
	f.active.Inc()
	w := &replyWatch{TProtocol: out, method: f.method, start: time.Now()}
	ok, err := f.fn.Process(ctx, seq, in, w)
	if !w.flushed {
		// No answer was sent: the request could not be read, was
		// abandoned, or its answer could not be written.
		exception := ""
		if err != nil {
			exception = ExceptionName(err)
		}
		w.flushed = true
		f.record(w.start, exception)
	}
	return ok, err
}

// replyWatch stands between a processor function and its output protocol
// and records the call's figures just before its answer is flushed, so that
// a client holding its answer finds the call counted (a scrape right after
// a call sees it). It learns from the answer itself which exception it
// carries: a TApplicationException is an EXCEPTION message; an exception
// the IDL declares is a field of the REPLY's result struct other than
// success (field 0).
type replyWatch struct {
	thrift.TProtocol
	method    *method
	start     time.Time
	depth     int
	exception string
	// flushed is set once the call is recorded.
	flushed bool
}

// resultExceptions names the exception each result field of the two IDLs
// carries.
var resultExceptions = map[string]string{
	"ire":    "InvalidRequestException",
	"nfe":    "NotFoundException",
	"ue":     "UnavailableException",
	"te":     "TimedOutException",
	"sde":    "SchemaDisagreementException",
	"authnx": "AuthenticationException",
	"authzx": "AuthorizationException",
}

func (w *replyWatch) WriteMessageBegin(ctx context.Context, name string, typeID thrift.TMessageType, seq int32) error {
	if typeID == thrift.EXCEPTION {
		w.exception = "TApplicationException"
	}
	return w.TProtocol.WriteMessageBegin(ctx, name, typeID, seq)
}

func (w *replyWatch) WriteStructBegin(ctx context.Context, name string) error {
	w.depth++
	return w.TProtocol.WriteStructBegin(ctx, name)
}

func (w *replyWatch) WriteStructEnd(ctx context.Context) error {
	w.depth--
	return w.TProtocol.WriteStructEnd(ctx)
}

func (w *replyWatch) WriteFieldBegin(ctx context.Context, name string, typeID thrift.TType, id int16) error {
	if w.depth == 1 && id != 0 && w.exception == "" {
		if e, ok := resultExceptions[name]; ok {
			w.exception = e
		} else {
			w.exception = name
		}
	}
	return w.TProtocol.WriteFieldBegin(ctx, name, typeID, id)
}

func (w *replyWatch) Flush(ctx context.Context) error {
	if !w.flushed {
		w.flushed = true
		w.method.record(w.start, w.exception)
	}
	return w.TProtocol.Flush(ctx)
}

// ExceptionName is the IDL name of the exception a call's client
// received, the same for both APIs' exceptions of one name.
func ExceptionName(err error) string {
	var app thrift.TApplicationException
	var te thrift.TException
	switch {
	case errors.Is(err, thrift.ErrAbandonRequest), errors.Is(err, context.Canceled):
		return "abandoned"
	case errors.As(err, &app):
		return "TApplicationException"
	case errors.As(err, &te) && te.TExceptionType() == thrift.TExceptionTypeCompiled:
		// An exception an IDL declares: its generated type's name.
		t := reflect.TypeOf(te)
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		return t.Name()
	}
	return "TApplicationException"
}

// Family is the figures of one column family's reads and writes. A call
// records each column family it read or wrote once, when its store work is
// done: the rows, and the time the call spent in the store. Resolve it once
// per column family (a handler keeps it with the family's schema), not per
// call.
type Family struct {
	reads, writes       prometheus.Observer
	rowsRead, rowsWrote prometheus.Counter
}

// Family returns the figures of column family cf of keyspace.
func (m *Metrics) Family(keyspace, cf string) *Family {
	return &Family{
		reads:     m.reads.WithLabelValues(keyspace, cf),
		writes:    m.writes.WithLabelValues(keyspace, cf),
		rowsRead:  m.rowsRead.WithLabelValues(keyspace, cf),
		rowsWrote: m.rowsWritten.WithLabelValues(keyspace, cf),
	}
}

// Read records a call that read rows rows of the family in d.
func (f *Family) Read(rows int, d time.Duration) {
	f.rowsRead.Add(float64(rows))
	f.reads.Observe(d.Seconds())
}

// Wrote records a call that wrote rows rows of the family in d.
func (f *Family) Wrote(rows int, d time.Duration) {
	f.rowsWrote.Add(float64(rows))
	f.writes.Observe(d.Seconds())
}
