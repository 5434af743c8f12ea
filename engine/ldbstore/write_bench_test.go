package ldbstore

import (
	"fmt"
	"testing"

	"github.com/thriftd/thriftd/engine"
)

// BenchmarkWriteWideRow writes rows of 100 columns over 1,000 rows that
// already hold them, batch_mutate's benchmark shape, with rising
// timestamps: no write needs to read the stored versions (newest.go).
//
//	go test -run '^$' -bench WriteWideRow -benchmem ./engine/ldbstore
func BenchmarkWriteWideRow(b *testing.B) {
	st := open(b, b.TempDir(), testSchema(b, "RandomPartitioner"), Options{})
	defer st.Close()
	value := make([]byte, 32)
	names := make([][]byte, 100)
	for c := range names {
		names[c] = []byte(fmt.Sprintf("C%d", c))
	}
	write := func(i int) {
		row := engine.RowMutation{Key: fmt.Sprintf("%07d", i%1000), Mutations: make([]engine.Mutation, len(names))}
		for c, n := range names {
			row.Mutations[c] = engine.Mutation{ColumnFamily: "Standard2", Name: n, Value: value, Timestamp: int64(i)}
		}
		if err := st.Apply(ctx, ks, []engine.RowMutation{row}); err != nil {
			b.Fatal(err)
		}
	}
	for i := range 1000 {
		write(i)
	}
	b.ResetTimer()
	defer reportCPU(b)()
	for i := 0; i < b.N; i++ {
		write(1000 + i)
	}
}

// BenchmarkInsertOneColumn writes one column at a time, with a rising
// timestamp, over 10,000 rows that already hold it: insert's benchmark
// shape.
//
//	go test -run '^$' -bench InsertOneColumn -benchmem ./engine/ldbstore
func BenchmarkInsertOneColumn(b *testing.B) {
	st := open(b, b.TempDir(), testSchema(b, "RandomPartitioner"), Options{})
	defer st.Close()
	value := make([]byte, 32)
	write := func(i int) {
		row := engine.RowMutation{Key: fmt.Sprintf("%07d", i%10000), Mutations: []engine.Mutation{{ColumnFamily: "Standard2", Name: []byte("C0"), Value: value, Timestamp: int64(i)}}}
		if err := st.Apply(ctx, ks, []engine.RowMutation{row}); err != nil {
			b.Fatal(err)
		}
	}
	for i := range 10000 {
		write(i)
	}
	b.ResetTimer()
	defer reportCPU(b)()
	for i := 0; i < b.N; i++ {
		write(10000 + i)
	}
}
