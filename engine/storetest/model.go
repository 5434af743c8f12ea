package storetest

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/thriftd/thriftd/engine"
)

// cell is one version of a column in the model.
type cell struct {
	ts      int64
	deleted bool
	value   []byte
}

// model is a deliberately naive in-memory statement of 0.6's semantics:
// every version kept, tombstones as plain numbers, everything recomputed
// on read. The store must answer every query as the model does.
type model struct {
	rows map[string]*modelRow // by cf + "/" + key
}

type modelRow struct {
	tomb   int64
	cols   map[string]cell // Standard: name; Super: sc + "\x00" + name
	scs    map[string]int64
	ranges []modelRange
}

// modelRange is a range deletion: of the row's columns or super columns
// (sc nil), or of super column sc's subcolumns; empty bounds are open.
type modelRange struct {
	sc            *string
	start, finish []byte
	at            int64
}

func (r modelRange) covers(name []byte) bool {
	return (len(r.start) == 0 || bytes.Compare(name, r.start) >= 0) && (len(r.finish) == 0 || bytes.Compare(name, r.finish) <= 0)
}

// rangeShadow is the latest range deletion of name: at the top level
// (sc nil) or among sc's subcolumns.
func (r *modelRow) rangeShadow(sc *string, name []byte) int64 {
	at := int64(math.MinInt64)
	for _, g := range r.ranges {
		if (g.sc == nil) == (sc == nil) && (sc == nil || *g.sc == *sc) && g.covers(name) {
			at = max(at, g.at)
		}
	}
	return at
}

func (m *model) row(cf, key string) *modelRow {
	r := m.rows[cf+"/"+key]
	if r == nil {
		r = &modelRow{tomb: math.MinInt64, cols: map[string]cell{}, scs: map[string]int64{}}
		m.rows[cf+"/"+key] = r
	}
	return r
}

func (m *model) apply(key string, mu engine.Mutation) {
	r := m.row(mu.ColumnFamily, key)
	switch {
	case mu.Delete && mu.Range != nil:
		g := modelRange{start: mu.Range.Start, finish: mu.Range.Finish, at: mu.Timestamp}
		if mu.SuperColumn != nil {
			sc := string(mu.SuperColumn)
			g.sc = &sc
		}
		r.ranges = append(r.ranges, g)
	case mu.Delete && mu.Name == nil && mu.SuperColumn == nil:
		r.tomb = max(r.tomb, mu.Timestamp)
	case mu.Delete && mu.Name == nil:
		t, ok := r.scs[string(mu.SuperColumn)]
		if !ok || mu.Timestamp > t {
			r.scs[string(mu.SuperColumn)] = mu.Timestamp
		}
	default:
		k := string(mu.Name)
		if mu.SuperColumn != nil {
			k = string(mu.SuperColumn) + "\x00" + k
		}
		next := cell{ts: mu.Timestamp, deleted: mu.Delete, value: mu.Value}
		if mu.Delete {
			next.value = nil
		}
		if old, ok := r.cols[k]; !ok || modelWins(next, old) {
			r.cols[k] = next
		}
	}
}

// modelWins restates spec 5.1 on its own, so the store's wins is checked
// rather than reused: higher timestamp; on a tie the tombstone; between two
// live values the greater value bytes.
func modelWins(a, b cell) bool {
	switch {
	case a.ts > b.ts:
		return true
	case a.ts < b.ts:
		return false
	case a.deleted || b.deleted:
		return a.deleted && !b.deleted
	}
	return bytes.Compare(a.value, b.value) > 0
}

// visible returns the live columns of a Standard row, or of one super
// column, sorted by name (BytesType and 8-byte LongType names both sort as
// bytes here because the test only uses non-negative longs).
func (m *model) visible(cf, key string, sc *string) []engine.Column {
	r := m.row(cf, key)
	var out []engine.Column
	for k, c := range r.cols {
		name, shadow := k, r.tomb
		if sc != nil {
			prefix := *sc + "\x00"
			if len(k) < len(prefix) || k[:len(prefix)] != prefix {
				continue
			}
			name = k[len(prefix):]
			if t, ok := r.scs[*sc]; ok {
				shadow = max(shadow, t)
			}
			shadow = max(shadow, r.rangeShadow(nil, []byte(*sc)), r.rangeShadow(sc, []byte(name)))
		} else {
			shadow = max(shadow, r.rangeShadow(nil, []byte(name)))
		}
		if c.deleted || c.ts <= shadow {
			continue
		}
		out = append(out, engine.Column{Name: []byte(name), Value: c.value, Timestamp: c.ts})
	}
	sort.Slice(out, func(i, j int) bool { return bytes.Compare(out[i].Name, out[j].Name) < 0 })
	return out
}

func (m *model) superNames(cf, key string) []string {
	seen := map[string]bool{}
	for k := range m.row(cf, key).cols {
		seen[k[:bytes.IndexByte([]byte(k), 0)]] = true
	}
	var out []string
	for k := range seen {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// slice applies a range predicate to names in ascending order.
func slice[T any](items []T, name func(T) []byte, p engine.Predicate) []T {
	if p.Reversed {
		rev := make([]T, len(items))
		for i, it := range items {
			rev[len(items)-1-i] = it
		}
		items = rev
	}
	var out []T
	for _, it := range items {
		n := name(it)
		before := func(a, b []byte) bool { // a comes before b in traversal order
			if p.Reversed {
				return bytes.Compare(a, b) > 0
			}
			return bytes.Compare(a, b) < 0
		}
		if len(p.Start) > 0 && before(n, p.Start) {
			continue
		}
		if len(p.Finish) > 0 && before(p.Finish, n) {
			break
		}
		if len(out) == p.Count {
			break
		}
		out = append(out, it)
	}
	return out
}

func (m *model) get(cf, key string, super bool, q engine.Query) engine.Row {
	row := engine.Row{Key: key}
	if !super || q.SuperColumn != nil {
		var sc *string
		if q.SuperColumn != nil {
			s := string(q.SuperColumn)
			sc = &s
		}
		cols := m.visible(cf, key, sc)
		row.Columns = slice(cols, func(c engine.Column) []byte { return c.Name }, q.Predicate)
		return row
	}
	var scs []engine.SuperColumn
	for _, n := range m.superNames(cf, key) {
		n := n
		if cols := m.visible(cf, key, &n); len(cols) > 0 {
			scs = append(scs, engine.SuperColumn{Name: []byte(n), Columns: cols})
		}
	}
	row.SuperColumns = slice(scs, func(s engine.SuperColumn) []byte { return s.Name }, q.Predicate)
	return row
}

func testStoreMatchesModel(t *testing.T, h Harness) {
	st := h.fresh(t)
	m := &model{rows: map[string]*modelRow{}}
	rng := rand.New(rand.NewPCG(1, 2))
	pick := func(s ...string) string { return s[rng.IntN(len(s))] }
	keys := []string{"k1", "k2", "k3"}
	names := []string{"a", "b", "c", "d", "e", "f"}
	scs := []string{"s1", "s2", "s3"}
	ops := 3000
	if testing.Short() {
		ops = 500
	}
	for i := 0; i < ops; i++ {
		key := pick(keys...)
		ts := int64(rng.IntN(8))
		var mu engine.Mutation
		super := rng.IntN(2) == 0
		if super {
			mu = engine.Mutation{ColumnFamily: "Super1", SuperColumn: []byte(pick(scs...)), Name: Long(int64(rng.IntN(5))), Value: []byte(pick("x", "y", "z")), Timestamp: ts}
		} else {
			mu = engine.Mutation{ColumnFamily: "Standard1", Name: []byte(pick(names...)), Value: []byte(pick("x", "y", "z")), Timestamp: ts}
		}
		switch r := rng.IntN(20); {
		case r == 0:
			mu = engine.Mutation{ColumnFamily: mu.ColumnFamily, Timestamp: ts, Delete: true}
		case r == 5 || r == 6:
			// A range deletion: of columns, super columns or subcolumns.
			bound := func() []byte {
				switch {
				case rng.IntN(4) == 0:
					return nil
				case !super:
					return []byte(pick(names...))
				case r == 5:
					return []byte(pick(scs...))
				}
				return Long(int64(rng.IntN(5)))
			}
			g := &engine.NameRange{Start: bound(), Finish: bound()}
			if len(g.Start) > 0 && len(g.Finish) > 0 && bytes.Compare(g.Start, g.Finish) > 0 {
				g.Start, g.Finish = g.Finish, g.Start
			}
			mu = engine.Mutation{ColumnFamily: mu.ColumnFamily, Timestamp: ts, Delete: true, Range: g}
			if super && r == 6 {
				mu.SuperColumn = []byte(pick(scs...))
			}
		case r == 1 && super:
			mu = engine.Mutation{ColumnFamily: mu.ColumnFamily, SuperColumn: mu.SuperColumn, Timestamp: ts, Delete: true}
		case r < 5:
			mu.Delete, mu.Value = true, nil
		}
		Apply(t, st, engine.RowMutation{Key: key, Mutations: []engine.Mutation{mu}})
		m.apply(key, mu)

		// Compare a random query after every write.
		p := engine.Predicate{Count: rng.IntN(5), Reversed: rng.IntN(2) == 0}
		q := engine.Query{ColumnFamily: "Standard1", Predicate: p}
		if super {
			q.ColumnFamily = "Super1"
			if rng.IntN(2) == 0 {
				q.SuperColumn = []byte(pick(scs...))
				if rng.IntN(2) == 0 {
					q.Start = Long(int64(rng.IntN(5)))
				}
			} else if rng.IntN(2) == 0 {
				q.Start = []byte(pick(scs...))
			}
		} else if rng.IntN(2) == 0 {
			q.Start, q.Finish = []byte(pick(names...)), []byte(pick(names...))
			if (bytes.Compare(q.Start, q.Finish) > 0) != q.Reversed {
				q.Start, q.Finish = q.Finish, q.Start
			}
		}
		got, err := st.Get(ctx, Keyspace, key, q)
		if err != nil {
			t.Fatal(err)
		}
		want := m.get(q.ColumnFamily, key, super, q)
		if g, w := Render(got), Render(want); g != w {
			t.Fatalf("op %d: %s %+v\nstore %q\nmodel %q", i, key, fmt.Sprintf("%+v", q), g, w)
		}
	}
}

// Rows written with many mutations at once, across super columns and with
// deletions among them, must come out as the model's, as single mutations
// do (the LevelDB store reads the stored versions of such rows in one walk;
// the Cassandra store sends them as one batch).
func testManyMutationsMatchModel(t *testing.T, h Harness) {
	st := h.fresh(t)
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
		for range 16 + rng.IntN(30) {
			ts := int64(rng.IntN(8))
			mu := engine.Mutation{ColumnFamily: cf, Name: []byte(pick(names...)), Value: []byte(pick("x", "y", "z")), Timestamp: ts}
			if cf == "Super1" {
				mu.SuperColumn = []byte(pick(scs...))
				mu.Name = Long(int64(rng.IntN(40)))
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
		Apply(t, st, engine.RowMutation{Key: key, Mutations: muts})
		for _, mu := range muts {
			m.apply(key, mu)
		}
		for _, k := range keys {
			for _, c := range []string{"Standard1", "Super1"} {
				q := engine.Query{ColumnFamily: c, Predicate: engine.Predicate{Count: -1}}
				got, err := st.Get(ctx, Keyspace, k, q)
				if err != nil {
					t.Fatal(err)
				}
				want := m.get(c, k, c == "Super1", q)
				if g, w := Render(got), Render(want); g != w {
					t.Fatalf("batch %d: %s %s\nstore %q\nmodel %q", b, c, k, g, w)
				}
			}
		}
	}
}
