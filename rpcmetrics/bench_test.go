package rpcmetrics

import (
	"context"
	"syscall"
	"testing"
	"time"

	"github.com/apache/thrift/lib/go/thrift"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/thriftd/thriftd/gen-go/cassandra19"
)

// answerFunction is a processor function that answers at once with an
// empty REPLY, as a generated one does for a call without a result.
type answerFunction struct{}

func (answerFunction) Process(ctx context.Context, seq int32, _, out thrift.TProtocol) (bool, thrift.TException) {
	out.WriteMessageBegin(ctx, "m", thrift.REPLY, seq)
	out.WriteStructBegin(ctx, "m_result")
	out.WriteFieldStop(ctx)
	out.WriteStructEnd(ctx)
	out.WriteMessageEnd(ctx)
	out.Flush(ctx)
	return true, nil
}

// BenchmarkMeteredCall is the cost the metrics add to each call: the
// metered function around a processor function that answers at once,
// into a protocol that discards what it is given.
func BenchmarkMeteredCall(b *testing.B) {
	m := New(prometheus.NewRegistry())
	fn := m.Wrap("get_slice", answerFunction{})
	out := thrift.NewTBinaryProtocolConf(thrift.NewTMemoryBuffer(), nil)
	ctx := context.Background()
	b.ReportAllocs()
	cpu0 := cpuTime()
	for b.Loop() {
		out.Transport().(*thrift.TMemoryBuffer).Reset()
		if _, err := fn.Process(ctx, 1, nil, out); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
}

// BenchmarkReplyWatchEncode is what watching a reply costs its encoding:
// a get_range_slices answer of 100 rows of 5 columns written straight to
// the protocol and through a replyWatch, whose every write is one call
// more.
func BenchmarkReplyWatchEncode(b *testing.B) {
	var slices []*cassandra19.KeySlice
	ts := int64(1)
	for r := 0; r < 100; r++ {
		ks := &cassandra19.KeySlice{Key: []byte("key000001")}
		for c := 0; c < 5; c++ {
			ks.Columns = append(ks.Columns, &cassandra19.ColumnOrSuperColumn{Column: &cassandra19.Column{Name: []byte("col001"), Value: make([]byte, 32), Timestamp: &ts}})
		}
		slices = append(slices, ks)
	}
	res := &cassandra19.CassandraGetRangeSlicesResult{Success: slices}
	ctx := context.Background()
	m := New(prometheus.NewRegistry())
	for _, watch := range []bool{false, true} {
		name := "plain"
		if watch {
			name = "watched"
		}
		b.Run(name, func(b *testing.B) {
			buf := thrift.NewTMemoryBuffer()
			var out thrift.TProtocol = thrift.NewTBinaryProtocolConf(buf, nil)
			cpu0 := cpuTime()
			for b.Loop() {
				buf.Reset()
				p := out
				if watch {
					p = &replyWatch{TProtocol: out, method: m.method("x")}
				}
				p.WriteMessageBegin(ctx, "get_range_slices", thrift.REPLY, 1)
				res.Write(ctx, p)
				p.WriteMessageEnd(ctx)
				p.Flush(ctx)
			}
			b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
		})
	}
}

// cpuTime is the CPU time the process has used, which a busy machine
// does not inflate as it does the time each call takes.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
