package cqlstore

import (
	"context"
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/thriftd/thriftd/engine"
	"github.com/thriftd/thriftd/engine/storetest"
)

// BenchmarkStore measures the store's own cost of the benchmark's call
// shapes on a real node (thriftd-bench's, docs/performance.md): the
// allocations per call, which the machine's load cannot move, and the
// CPU time of this process per call (cpu-ns/op: the store and the
// driver, not the node, which is another process).
//
//	go test -run '^$' -bench Store -benchmem ./engine/cqlstore
func BenchmarkStore(b *testing.B) {
	const rows = 200
	s := storetest.TestSchema(b, "RandomPartitioner")
	st, _ := openFresh(b, s, 0)
	ctx := context.Background()
	ks := storetest.Keyspace
	key := func(i int) string { return fmt.Sprintf("key%06d", i) }
	col := func(i int) []byte { return fmt.Appendf(nil, "col%03d", i) }
	value := make([]byte, 32)
	batch := func(cf, k string, n int) []engine.RowMutation {
		ms := make([]engine.Mutation, n)
		for i := range ms {
			ms[i] = engine.Mutation{ColumnFamily: cf, Name: col(i), Value: value, Timestamp: 1}
		}
		return []engine.RowMutation{{Key: k, Mutations: ms}}
	}
	for r := range rows {
		if err := st.Apply(ctx, ks, batch("Standard1", key(r), 100)); err != nil {
			b.Fatal(err)
		}
	}
	first := func(n int) engine.Query {
		return engine.Query{ColumnFamily: "Standard1", Predicate: engine.Predicate{Count: n}}
	}
	keys := make([]string, 10)
	for i := range keys {
		keys[i] = key(i * 7)
	}
	one := batch("Standard2", key(5), 1)
	hundred := batch("Standard2", key(6), 100)
	shapes := []struct {
		name string
		call func() (int, error) // columns read
	}{
		{"get_slice", func() (int, error) {
			r, err := st.Get(ctx, ks, key(3), first(10))
			return len(r.Columns), err
		}},
		{"multiget_slice", func() (int, error) {
			rs, err := st.GetMany(ctx, ks, keys, first(10))
			n := 0
			for _, r := range rs {
				n += len(r.Columns)
			}
			return n, err
		}},
		{"get_range_slices", func() (int, error) {
			rs, err := st.Range(ctx, ks, engine.TokenRange{}, first(5), 100)
			n := 0
			for _, r := range rs {
				n += len(r.Columns)
			}
			return n, err
		}},
		{"insert", func() (int, error) { return 0, st.Apply(ctx, ks, one) }},
		{"batch_mutate", func() (int, error) { return 0, st.Apply(ctx, ks, hundred) }},
	}
	want := map[string]int{"get_slice": 10, "multiget_slice": 100, "get_range_slices": 500}
	for _, sh := range shapes {
		b.Run(sh.name, func(b *testing.B) {
			b.ReportAllocs()
			cpu0 := processCPU()
			for b.Loop() {
				n, err := sh.call()
				if err != nil {
					b.Fatal(err)
				}
				if n != want[sh.name] {
					b.Fatalf("%s read %d columns, want %d", sh.name, n, want[sh.name])
				}
			}
			b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "cpu-ns/op")
		})
	}
}

// processCPU is the CPU time this process has used, user and system.
func processCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
