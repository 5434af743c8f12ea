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
	"time"

	"github.com/apache/thrift/lib/go/thrift"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/thriftd/thriftd/dht"
	"github.com/thriftd/thriftd/engine"
)

// Metric names of this package, for readers of the registry such as the
// admin endpoint's tpstats and cfstats.
const (
	MetricCalls      = "thriftd_thrift_calls_total"
	MetricErrors     = "thriftd_thrift_errors_total"
	MetricDuration   = "thriftd_thrift_call_duration_seconds"
	MetricActive     = "thriftd_thrift_calls_active"
	MetricReads      = "thriftd_column_family_read_duration_seconds"
	MetricWrites     = "thriftd_column_family_write_duration_seconds"
	latencyBucketMin = 50e-6 // 50 µs, doubling up to about 6.5 s
)

// Metrics are the figures the Thrift services export. One Metrics serves
// both services; it is safe for concurrent use.
type Metrics struct {
	calls    *prometheus.CounterVec
	errors   *prometheus.CounterVec
	duration *prometheus.HistogramVec
	active   *prometheus.GaugeVec
	reads    *prometheus.HistogramVec
	writes   *prometheus.HistogramVec
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
			Help: "Reads of the store by column family (one per row read), and their latency.", Buckets: buckets},
			[]string{"keyspace", "column_family"}),
		writes: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: MetricWrites,
			Help: "Writes to the store by column family (one per row written), and their latency.", Buckets: buckets},
			[]string{"keyspace", "column_family"}),
	}
	reg.MustRegister(m.calls, m.errors, m.duration, m.active, m.reads, m.writes)
	return m
}

// Declare makes method's series exist before its first call, so that
// every method is listed with zeros (as tpstats listed every stage).
func (m *Metrics) Declare(method string) {
	m.calls.WithLabelValues(method)
	m.duration.WithLabelValues(method)
	m.active.WithLabelValues(method)
}

// meteredFunction counts and times one method's calls around the
// processor function that decodes, runs and answers them.
type meteredFunction struct {
	name     string
	fn       thrift.TProcessorFunction
	calls    prometheus.Counter
	duration prometheus.Observer
	active   prometheus.Gauge
	errors   *prometheus.CounterVec
}

// Wrap counts and times the calls of method name around fn, the processor
// function that decodes, runs and answers them.
func (m *Metrics) Wrap(name string, fn thrift.TProcessorFunction) thrift.TProcessorFunction {
	return &meteredFunction{
		name:     name,
		fn:       fn,
		calls:    m.calls.WithLabelValues(name),
		duration: m.duration.WithLabelValues(name),
		active:   m.active.WithLabelValues(name),
		errors:   m.errors,
	}
}

func (f *meteredFunction) Process(ctx context.Context, seq int32, in, out thrift.TProtocol) (bool, thrift.TException) {
	f.active.Inc()
	start := time.Now()
	recorded := false
	record := func(exception string) {
		recorded = true
		f.duration.Observe(time.Since(start).Seconds())
		f.active.Dec()
		f.calls.Inc()
		if exception != "" {
			f.errors.WithLabelValues(f.name, exception).Inc()
		}
	}
	ok, err := f.fn.Process(ctx, seq, in, &replyWatch{TProtocol: out, flushing: record})
	if !recorded {
		// No answer was sent: the request could not be read, was
		// abandoned, or its answer could not be written.
		exception := ""
		if err != nil {
			exception = ExceptionName(err)
		}
		record(exception)
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
	flushing  func(exception string)
	depth     int
	exception string
	flushed   bool
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
		w.flushing(w.exception)
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

// Store returns s with its reads and writes counted and timed per column
// family. The counts follow 0.6's cfstats: a read per row read, a write
// per row and column family written.
func (m *Metrics) Store(s engine.Store) engine.Store {
	return meteredStore{Store: s, m: m}
}

type meteredStore struct {
	engine.Store
	m *Metrics
}

func (s meteredStore) read(keyspace, cf string, rows int, start time.Time) {
	if rows <= 0 {
		return
	}
	h := s.m.reads.WithLabelValues(keyspace, cf)
	per := time.Since(start).Seconds() / float64(rows)
	for range rows {
		h.Observe(per)
	}
}

func (s meteredStore) Apply(ctx context.Context, keyspace string, rows []engine.RowMutation) error {
	start := time.Now()
	err := s.Store.Apply(ctx, keyspace, rows)
	if err != nil {
		return err
	}
	perCF := map[string]int{}
	for _, r := range rows {
		seen := ""
		for _, m := range r.Mutations {
			if m.ColumnFamily != seen {
				perCF[m.ColumnFamily]++
				seen = m.ColumnFamily
			}
		}
	}
	n := 0
	for _, c := range perCF {
		n += c
	}
	per := time.Since(start).Seconds() / float64(max(n, 1))
	for cf, c := range perCF {
		h := s.m.writes.WithLabelValues(keyspace, cf)
		for range c {
			h.Observe(per)
		}
	}
	return nil
}

func (s meteredStore) Get(ctx context.Context, keyspace, key string, q engine.Query) (engine.Row, error) {
	start := time.Now()
	r, err := s.Store.Get(ctx, keyspace, key, q)
	if err == nil {
		s.read(keyspace, q.ColumnFamily, 1, start)
	}
	return r, err
}

func (s meteredStore) GetMany(ctx context.Context, keyspace string, keys []string, q engine.Query) ([]engine.Row, error) {
	start := time.Now()
	r, err := s.Store.GetMany(ctx, keyspace, keys, q)
	if err == nil {
		s.read(keyspace, q.ColumnFamily, len(keys), start)
	}
	return r, err
}

func (s meteredStore) Count(ctx context.Context, keyspace, key, columnFamily string, superColumn []byte) (int, error) {
	start := time.Now()
	n, err := s.Store.Count(ctx, keyspace, key, columnFamily, superColumn)
	if err == nil {
		s.read(keyspace, columnFamily, 1, start)
	}
	return n, err
}

func (s meteredStore) Range(ctx context.Context, keyspace string, b engine.Bounds, q engine.Query, maxRows int) ([]engine.Row, error) {
	start := time.Now()
	r, err := s.Store.Range(ctx, keyspace, b, q, maxRows)
	if err == nil {
		s.read(keyspace, q.ColumnFamily, max(len(r), 1), start)
	}
	return r, err
}

func (s meteredStore) Splits(ctx context.Context, keyspace, columnFamily string, b engine.Bounds, keysPerSplit int) ([]dht.Token, error) {
	return s.Store.Splits(ctx, keyspace, columnFamily, b, keysPerSplit)
}

// errNoTruncate is Truncate's error on a store that cannot truncate.
var errNoTruncate = errors.New("the store cannot truncate")

// Truncate forwards the 19.x API's truncate to the store's
// engine.Truncater, which the wrapping would otherwise hide.
func (s meteredStore) Truncate(ctx context.Context, keyspace, columnFamily string) error {
	t, ok := s.Store.(engine.Truncater)
	if !ok {
		return errNoTruncate
	}
	return t.Truncate(ctx, keyspace, columnFamily)
}

// IndexedKeys forwards index lookups to the store's engine.Indexer, which
// the wrapping would otherwise hide, so that queries read the index
// instead of scanning; on a store without one it answers not ready, and
// the caller scans, as it would on that store unwrapped.
func (s meteredStore) IndexedKeys(ctx context.Context, keyspace, columnFamily string, column, value []byte, b engine.Bounds, max int) ([]string, bool, error) {
	ix, ok := s.Store.(engine.Indexer)
	if !ok {
		return nil, false, nil
	}
	return ix.IndexedKeys(ctx, keyspace, columnFamily, column, value, b, max)
}

// ApplyCounters forwards counter writes to the store's
// engine.CounterStore, which the wrapping would otherwise hide, and
// counts them as writes of their column families.
func (s meteredStore) ApplyCounters(ctx context.Context, keyspace string, rows []engine.CounterRow) error {
	cs, ok := s.Store.(engine.CounterStore)
	if !ok {
		return engine.ErrNoCounters
	}
	start := time.Now()
	if err := cs.ApplyCounters(ctx, keyspace, rows); err != nil {
		return err
	}
	per := time.Since(start).Seconds() / float64(max(len(rows), 1))
	for _, r := range rows {
		if len(r.Mutations) > 0 {
			s.m.writes.WithLabelValues(keyspace, r.Mutations[0].ColumnFamily).Observe(per)
		}
	}
	return nil
}
