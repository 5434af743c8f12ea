package ldbstore

import (
	"encoding/binary"
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/thriftd/thriftd/engine"
)

// BenchmarkWideRowSlice reads 100 columns from the middle of a row of
// 1,000,000 columns and reports the latency percentiles. Run it with
//
//	go test -run '^$' -bench WideRowSlice -benchtime 2000x ./engine/ldbstore
func BenchmarkWideRowSlice(b *testing.B) {
	const width = 1_000_000
	st := open(b, b.TempDir(), testSchema(b, "RandomPartitioner"), Options{})
	defer st.Close()
	name := func(i int) []byte { return binary.BigEndian.AppendUint64(nil, uint64(i)) }
	start := time.Now()
	for done := 0; done < width; {
		row := engine.RowMutation{Key: "wide"}
		for i := 0; i < 10_000 && done < width; i, done = i+1, done+1 {
			row.Mutations = append(row.Mutations, engine.Mutation{ColumnFamily: "StandardLong1", Name: name(done), Value: []byte("0123456789abcdef"), Timestamp: 1})
		}
		if err := st.Apply(ctx, ks, []engine.RowMutation{row}); err != nil {
			b.Fatal(err)
		}
	}
	b.Logf("loaded %d columns in %v", width, time.Since(start).Round(time.Millisecond))
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		from := width/2 + (i*7919)%(width/4)
		t0 := time.Now()
		r, err := st.Get(ctx, ks, "wide", engine.Query{ColumnFamily: "StandardLong1", Predicate: engine.Predicate{Start: name(from), Count: 100}})
		lat = append(lat, time.Since(t0))
		if err != nil || len(r.Columns) != 100 || binary.BigEndian.Uint64(r.Columns[0].Name) != uint64(from) {
			b.Fatalf("slice from %d: %d columns, %v", from, len(r.Columns), err)
		}
	}
	b.StopTimer()
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	pct := func(p float64) float64 { return float64(lat[int(p*float64(len(lat)-1))].Microseconds()) / 1000 }
	b.ReportMetric(pct(0.5), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
	b.Logf("%s", fmt.Sprintf("100-column slice of a %d-column row: p50 %.3f ms, p99 %.3f ms over %d reads", width, pct(0.5), pct(0.99), len(lat)))
}
