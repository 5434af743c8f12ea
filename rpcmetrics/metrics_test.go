package rpcmetrics

import (
	"context"
	"errors"
	"math"
	"testing"
	"time"

	"github.com/apache/thrift/lib/go/thrift"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"

	"github.com/thriftd/thriftd/gen-go/cassandra"
	"github.com/thriftd/thriftd/gen-go/cassandra19"
)

func TestExceptionName(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{thrift.WrapTException(&cassandra.InvalidRequestException{Why: "x"}), "InvalidRequestException"},
		{thrift.WrapTException(cassandra.NewNotFoundException()), "NotFoundException"},
		{cassandra.NewUnavailableException(), "UnavailableException"},
		{cassandra.NewTimedOutException(), "TimedOutException"},
		{&cassandra.AuthenticationException{}, "AuthenticationException"},
		{&cassandra.AuthorizationException{}, "AuthorizationException"},
		{&cassandra19.InvalidRequestException{Why: "x"}, "InvalidRequestException"},
		{cassandra19.NewSchemaDisagreementException(), "SchemaDisagreementException"},
		{thrift.WrapTException(errors.New("internal error")), "TApplicationException"},
		{thrift.NewTApplicationException(thrift.PROTOCOL_ERROR, "bad"), "TApplicationException"},
		{thrift.WrapTException(thrift.ErrAbandonRequest), "abandoned"},
		{thrift.WrapTException(context.Canceled), "abandoned"},
		{errors.New("other"), "TApplicationException"},
	} {
		if got := ExceptionName(tc.err); got != tc.want {
			t.Errorf("ExceptionName(%v) = %s, want %s", tc.err, got, tc.want)
		}
	}
}

// A call records a column family once: its rows counted, its time in the
// store observed once, however many rows it read or wrote.
func TestFamilyRecordsOncePerCall(t *testing.T) {
	m := New(prometheus.NewRegistry())
	f := m.Family("KS", "CF")
	f.Read(10, 3*time.Millisecond)
	f.Read(1, time.Millisecond)
	f.Wrote(100, 2*time.Millisecond)
	if got := testutil.ToFloat64(m.rowsRead.WithLabelValues("KS", "CF")); got != 11 {
		t.Errorf("rows read = %v, want 11", got)
	}
	if got := testutil.ToFloat64(m.rowsWritten.WithLabelValues("KS", "CF")); got != 100 {
		t.Errorf("rows written = %v, want 100", got)
	}
	for _, tc := range []struct {
		h     *prometheus.HistogramVec
		count uint64
		sum   float64
	}{{m.reads, 2, 0.004}, {m.writes, 1, 0.002}} {
		var out dto.Metric
		if err := tc.h.WithLabelValues("KS", "CF").(prometheus.Histogram).Write(&out); err != nil {
			t.Fatal(err)
		}
		if h := out.GetHistogram(); h.GetSampleCount() != tc.count || math.Abs(h.GetSampleSum()-tc.sum) > 1e-9 {
			t.Errorf("histogram: %d observations of %v s in all, want %d of %v", h.GetSampleCount(), h.GetSampleSum(), tc.count, tc.sum)
		}
	}
	if m.Family("KS", "CF").reads != f.reads {
		t.Error("a family's figures are not the same series each time")
	}
}

// getHandler answers get with err (or a column when err is nil); the
// other methods are not called.
type getHandler struct {
	cassandra.Cassandra
	err error
}

func (h getHandler) Get(context.Context, string, string, *cassandra.ColumnPath, cassandra.ConsistencyLevel) (*cassandra.ColumnOrSuperColumn, error) {
	if h.err != nil {
		return nil, h.err
	}
	return &cassandra.ColumnOrSuperColumn{Column: &cassandra.Column{Name: []byte("c"), Value: []byte("v"), Timestamp: 1}}, nil
}

// atFlush calls check when the answer is flushed to the client.
type atFlush struct {
	thrift.TProtocol
	check func()
}

func (p atFlush) Flush(ctx context.Context) error {
	p.check()
	return p.TProtocol.Flush(ctx)
}

// A call is counted, with the exception it answered, before its answer is
// flushed: a client that has its answer and then scrapes /metrics finds
// the call there.
func TestCallCountedBeforeItsAnswer(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		err       error
		exception string
	}{
		{nil, ""},
		{cassandra.NewNotFoundException(), "NotFoundException"},
		{&cassandra.InvalidRequestException{Why: "no"}, "InvalidRequestException"},
		{cassandra.NewTimedOutException(), "TimedOutException"},
		{errors.New("broken"), "TApplicationException"},
	} {
		reg := prometheus.NewRegistry()
		m := New(reg)
		fn, ok := cassandra.NewCassandraProcessor(getHandler{err: tc.err}).GetProcessorFunction("get")
		if !ok {
			t.Fatal("no processor function for get")
		}
		metered := m.Wrap("get", fn)

		inBuf := thrift.NewTMemoryBuffer()
		in := thrift.NewTBinaryProtocolConf(inBuf, nil)
		args := cassandra.CassandraGetArgs{Keyspace: "Keyspace1", Key: "k", ColumnPath: &cassandra.ColumnPath{ColumnFamily: "Standard1", Column: []byte("c")}, ConsistencyLevel: cassandra.ConsistencyLevel_ONE}
		must(t, in.WriteMessageBegin(ctx, "get", thrift.CALL, 1))
		must(t, args.Write(ctx, in))
		must(t, in.WriteMessageEnd(ctx))
		name, _, seq, err := in.ReadMessageBegin(ctx)
		if err != nil || name != "get" {
			t.Fatalf("ReadMessageBegin = %q, %v", name, err)
		}

		checked := false
		out := atFlush{TProtocol: thrift.NewTBinaryProtocolConf(thrift.NewTMemoryBuffer(), nil), check: func() {
			checked = true
			if got := testutil.ToFloat64(m.calls.WithLabelValues("get")); got != 1 {
				t.Errorf("%v: calls = %v when the answer is flushed, want 1", tc.err, got)
			}
			if got := testutil.ToFloat64(m.active.WithLabelValues("get")); got != 0 {
				t.Errorf("%v: active = %v when the answer is flushed, want 0", tc.err, got)
			}
			if tc.exception != "" {
				if got := testutil.ToFloat64(m.errors.WithLabelValues("get", tc.exception)); got != 1 {
					t.Errorf("%v: errors{%s} = %v when the answer is flushed, want 1", tc.err, tc.exception, got)
				}
			}
			if got := testutil.CollectAndCount(m.errors); tc.exception == "" && got != 0 {
				t.Errorf("a successful call counted %d error series", got)
			}
		}}
		metered.Process(ctx, seq, in, out)
		if !checked {
			t.Fatalf("%v: no answer was flushed", tc.err)
		}
		if got := testutil.ToFloat64(m.calls.WithLabelValues("get")); got != 1 {
			t.Errorf("%v: calls = %v after the call, want 1 (counted once)", tc.err, got)
		}
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
