package ldbstore

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/thriftd/thriftd/engine"
)

// Rows written with many mutations at once have their stored versions
// prefetched in one ordered walk instead of a Get per column; the outcome
// must be the model's, as for single mutations.
func TestPrefetchedWritesMatchModel(t *testing.T) {
	st := newStore(t)
	m := &model{rows: map[string]*modelRow{}}
	rng := rand.New(rand.NewPCG(5, 6))
	pick := func(s ...string) string { return s[rng.IntN(len(s))] }
	keys := []string{"k1", "k2", "k3"}
	scs := []string{"s1", "s2", "s3"}
	var names []string
	for i := range 40 {
		names = append(names, fmt.Sprintf("n%02d", i))
	}
	batches := 300
	if testing.Short() {
		batches = 60
	}
	for b := 0; b < batches; b++ {
		key := pick(keys...)
		cf := pick("Standard1", "Super1")
		rowDeleted := false
		var muts []engine.Mutation
		for range prefetchMin + rng.IntN(30) {
			ts := int64(rng.IntN(8))
			mu := engine.Mutation{ColumnFamily: cf, Name: []byte(pick(names...)), Value: []byte(pick("x", "y", "z")), Timestamp: ts}
			if cf == "Super1" {
				mu.SuperColumn = []byte(pick(scs...))
				mu.Name = long(int64(rng.IntN(40)))
			}
			switch r := rng.IntN(40); {
			case r == 0 && !rowDeleted:
				// One row deletion per mutation: of several, the store
				// keeps the last and the model the latest.
				rowDeleted = true
				mu = engine.Mutation{ColumnFamily: cf, Timestamp: ts, Delete: true}
			case r == 1 && cf == "Super1":
				mu = engine.Mutation{ColumnFamily: cf, SuperColumn: mu.SuperColumn, Timestamp: ts, Delete: true}
			case r < 8:
				mu.Delete, mu.Value = true, nil
			}
			muts = append(muts, mu)
		}
		apply(t, st, engine.RowMutation{Key: key, Mutations: muts})
		for _, mu := range muts {
			m.apply(key, mu)
		}
		for _, k := range keys {
			for _, c := range []string{"Standard1", "Super1"} {
				q := engine.Query{ColumnFamily: c, Predicate: engine.Predicate{Count: -1}}
				got, err := st.Get(ctx, ks, k, q)
				if err != nil {
					t.Fatal(err)
				}
				want := m.get(c, k, c == "Super1", q)
				if g, w := render(got), render(want); g != w {
					t.Fatalf("batch %d: %s %s\nstore %q\nmodel %q", b, c, k, g, w)
				}
			}
		}
	}
}
