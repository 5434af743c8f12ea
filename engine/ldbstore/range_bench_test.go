package ldbstore

import (
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/syndtr/goleveldb/leveldb/util"

	"github.com/thriftd/thriftd/engine"
)

// BenchmarkRangeNarrowSliceOfWideRows reads pages of 100 rows of a
// 5-column slice from rows of 100 columns, the shape paging scripts use
// (a page should cost about what it returns, not the columns it skips),
// and pages of the same rows read whole.
//
//	go test -run '^$' -bench RangeNarrow ./engine/ldbstore
func BenchmarkRangeNarrowSliceOfWideRows(b *testing.B) {
	const rows, width = 5000, 100
	st := open(b, b.TempDir(), testSchema(b, "RandomPartitioner"), Options{})
	defer st.Close()
	value := make([]byte, 32)
	for r := 0; r < rows; r += 100 {
		var batch []engine.RowMutation
		for k := r; k < r+100; k++ {
			row := engine.RowMutation{Key: fmt.Sprintf("%07d", k)}
			for c := range width {
				row.Mutations = append(row.Mutations, engine.Mutation{ColumnFamily: "Standard1", Name: []byte(fmt.Sprintf("C%d", c)), Value: value, Timestamp: 1})
			}
			batch = append(batch, row)
		}
		if err := st.Apply(ctx, ks, batch); err != nil {
			b.Fatal(err)
		}
	}
	p := st.part
	// Right after a write to each of its rows, a page's heads are stale:
	// the scan reads each row from the data region and rebuilds its head
	// (the writes are not timed).
	b.Run("rewritten/columns=5", func(b *testing.B) {
		q := engine.Query{ColumnFamily: "Standard1", Predicate: engine.Predicate{Count: 5}}
		var cpu time.Duration
		for i := 0; i < b.N; i++ {
			first := (i * 7919) % rows
			b.StopTimer()
			var batch []engine.RowMutation
			for k := first; k < first+100; k++ {
				batch = append(batch, engine.RowMutation{Key: fmt.Sprintf("%07d", k%rows), Mutations: []engine.Mutation{{ColumnFamily: "Standard1", Name: []byte("C0"), Value: value, Timestamp: int64(2 + i)}}})
			}
			if err := st.Apply(ctx, ks, batch); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			start := processCPU()
			got, err := st.Range(ctx, ks, engine.TokenRange{Start: p.Token(fmt.Sprintf("%07d", first)), StartInclusive: true}, q, 100)
			cpu += processCPU() - start
			if err != nil || len(got) == 0 || len(got[0].Columns) != 5 {
				b.Fatalf("range: %d rows, %v", len(got), err)
			}
		}
		b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu-µs/op")
	})
	// 5 columns: the walk leaves each row by a seek past its end. 100:
	// each row is read to its end, which leaves the walk on the next row.
	// First right after the load (the memtable and level 0 hold most of
	// it), then once LevelDB has compacted everything.
	for _, state := range []string{"loaded", "compacted"} {
		if state == "compacted" {
			if err := st.db.CompactRange(util.Range{}); err != nil {
				b.Fatal(err)
			}
		}
		for _, count := range []int{5, width} {
			b.Run(fmt.Sprintf("%s/columns=%d", state, count), func(b *testing.B) {
				q := engine.Query{ColumnFamily: "Standard1", Predicate: engine.Predicate{Count: count}}
				defer reportCPU(b)()
				for i := 0; i < b.N; i++ {
					start := p.Token(fmt.Sprintf("%07d", (i*7919)%rows))
					got, err := st.Range(ctx, ks, engine.TokenRange{Start: start, StartInclusive: true}, q, 100)
					if err != nil || len(got) == 0 || len(got[0].Columns) != count {
						b.Fatalf("range from %x: %d rows, %v", start, len(got), err)
					}
				}
			})
		}
	}
}

// reportCPU reports the process's CPU time per operation (user and
// system, the store's background compaction included) when the returned
// func is called: on a shared machine it varies less than the wall time.
func reportCPU(b *testing.B) func() {
	start := processCPU()
	return func() {
		b.ReportMetric(float64((processCPU()-start).Microseconds())/float64(b.N), "cpu-µs/op")
	}
}

// processCPU is the process's CPU time so far, user and system.
func processCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
