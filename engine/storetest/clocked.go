package storetest

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/thriftd/thriftd/engine"
)

// Writes stamped mostly by a rising clock, as clients stamp them, with
// some older and some equal timestamps among them, singly and many to a
// row, must read as the model says. A store may write a version newer
// than anything stored without reading what is stored (the LevelDB store
// does); the older and equal ones must still reconcile.
func testClockedWritesMatchModel(t *testing.T, h Harness) {
	st := h.fresh(t)
	m := &model{rows: map[string]*modelRow{}}
	rng := rand.New(rand.NewPCG(9, 10))
	pick := func(s ...string) string { return s[rng.IntN(len(s))] }
	keys := []string{"k1", "k2", "k3", "k4"}
	scs := []string{"s1", "s2"}
	var names []string
	for i := range 24 {
		names = append(names, fmt.Sprintf("n%02d", i))
	}
	clock := int64(1000)
	stamp := func() int64 {
		switch r := rng.IntN(10); {
		case r < 6:
			clock += int64(1 + rng.IntN(3))
			return clock
		case r < 8:
			return clock // a tie with the latest
		default:
			return clock - int64(rng.IntN(20)) // out of order
		}
	}
	calls := 600
	if testing.Short() {
		calls = 150
	}
	for c := 0; c < calls; c++ {
		key := pick(keys...)
		cf := pick("Standard1", "Super1")
		n := 1
		if rng.IntN(4) == 0 {
			n = 16 + rng.IntN(20)
		}
		ts := stamp() // a call's columns usually share one timestamp
		var muts []engine.Mutation
		rowDeleted := false
		for range n {
			if rng.IntN(5) == 0 {
				ts = stamp()
			}
			mu := engine.Mutation{ColumnFamily: cf, Name: []byte(pick(names...)), Value: []byte(pick("x", "y", "z")), Timestamp: ts}
			if cf == "Super1" {
				mu.SuperColumn, mu.Name = []byte(pick(scs...)), Long(int64(rng.IntN(6)))
			}
			switch r := rng.IntN(30); {
			case r == 0 && !rowDeleted:
				rowDeleted = true
				mu = engine.Mutation{ColumnFamily: cf, Timestamp: ts, Delete: true}
			case r == 1 && cf == "Super1":
				mu = engine.Mutation{ColumnFamily: cf, SuperColumn: mu.SuperColumn, Timestamp: ts, Delete: true}
			case r < 6:
				mu.Delete, mu.Value = true, nil
			}
			muts = append(muts, mu)
		}
		Apply(t, st, engine.RowMutation{Key: key, Mutations: muts})
		for _, mu := range muts {
			m.apply(key, mu)
		}
		for _, cf := range []string{"Standard1", "Super1"} {
			q := engine.Query{ColumnFamily: cf, Predicate: engine.Predicate{Count: -1}}
			got, err := st.Get(ctx, Keyspace, key, q)
			if err != nil {
				t.Fatal(err)
			}
			want := m.get(cf, key, cf == "Super1", q)
			if g, w := Render(got), Render(want); g != w {
				t.Fatalf("call %d: %s %s\nstore %q\nmodel %q", c, cf, key, g, w)
			}
		}
	}
}
