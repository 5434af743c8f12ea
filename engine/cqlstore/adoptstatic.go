package cqlstore

import (
	"context"
	"math"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/thriftd/thriftd/engine"
	"github.com/thriftd/thriftd/marshal"
)

// The static shape of an adopted table: a 1.2 static column family's
// declared columns (column_metadata) became STATIC columns when DROP
// COMPACT STORAGE ran, beside column1 and value, which hold the columns
// it did not declare. A Thrift row is both, merged in the comparator's
// order: a declared name is read from and written to its static column,
// every other name to a (column1, value) row. A clustering row whose
// column1 is a declared name (written by CQL) is hidden by the static
// column of that name.

// adoptedLayout is what an adopted family's store needs beyond the
// dynamic layout.
type adoptedLayout struct {
	// statics maps a declared column's name to its quoted CQL column,
	// staticCQL to the statements that write it.
	statics   map[string]string
	staticCQL map[string]staticCQL
	// names are the declared names in the comparator's order.
	names [][]byte
	// staticReads are the texts of readWithStatics' reads of declared
	// columns, by the set of names read (a bit per index in names; for
	// at most 64 names), built on first use and kept.
	staticReads sync.Map
	// plain is the family read and written as the dynamic shape.
	plain *family
	// clustering are the quoted clustering columns of the composite
	// shape (adoptcomposite.go), and reverseOrder the direction of each
	// that reverses the table's order.
	clustering, reverseOrder []string
	// prefixes: a name of fewer components than the clustering columns
	// is the row whose missing components are empty, and a row's trailing
	// empty components are not part of its name (thriftd's own composite
	// tables, clusteringOf). An adopted table's rows are read as they
	// are, and the cluster refuses a name of fewer components.
	prefixes bool
	// super: the table is a super column family's, its subcolumns the
	// entries of the map column "" (adoptsuper.go).
	super bool
}

// staticCQL are the statements that delete, write with a TTL and write a
// declared column's static column.
type staticCQL struct{ delete, setTTL, set string }

// withStatics makes f serve declared columns from the static columns.
func withStatics(f *family, statics []string) {
	plain := *f
	plain.layout = layoutOf(&plain)
	a := &adoptedLayout{statics: map[string]string{}, staticCQL: map[string]staticCQL{}, plain: &plain}
	for _, s := range statics {
		col := quote(s)
		a.statics[s] = col
		a.staticCQL[s] = staticCQL{
			delete: `DELETE ` + col + ` FROM ` + f.table + ` USING TIMESTAMP ? WHERE ` + f.col.key + ` = ?`,
			setTTL: `UPDATE ` + f.table + ` USING TIMESTAMP ? AND TTL ? SET ` + col + ` = ? WHERE ` + f.col.key + ` = ?`,
			set:    `UPDATE ` + f.table + ` USING TIMESTAMP ? SET ` + col + ` = ? WHERE ` + f.col.key + ` = ?`,
		}
		a.names = append(a.names, []byte(s))
	}
	c := f.def.Comparator
	sort.Slice(a.names, func(i, j int) bool { return c.Compare(a.names[i], a.names[j]) < 0 })
	f.adopt = a
	f.layout = layoutOf(f)
}

// readWithStatics is readColumns of a family of the static shape.
func (st *Store) readWithStatics(ctx context.Context, f *family, key string, q engine.Query) ([]engine.Column, error) {
	a := f.adopt
	if len(a.clustering) > 0 {
		return st.readComposite(ctx, f, key, q)
	}
	c := f.def.Comparator
	dq := q
	if q.Names != nil {
		dq.Names = nil
		for _, n := range q.Names {
			if _, ok := a.statics[string(n)]; !ok {
				dq.Names = append(dq.Names, n)
			}
		}
		if dq.Names == nil {
			dq.Names = [][]byte{}
		}
	}
	var dynamic []engine.Column
	if dq.Names == nil || len(dq.Names) > 0 {
		var err error
		// At most Count of them are returned, whatever the statics.
		if dynamic, err = st.readColumns(ctx, a.plain, key, dq); err != nil {
			return nil, err
		}
	}
	// The statics the predicate selects (wanted: their indexes in
	// a.names, while there are at most 64).
	var want []string
	var wanted uint64
	for i, n := range a.names {
		if q.Names != nil {
			for _, m := range q.Names {
				if string(m) == string(n) {
					want = append(want, string(n))
					wanted |= 1 << (i % 64)
					break
				}
			}
			continue
		}
		lo, hi := q.Start, q.Finish
		if q.Reversed {
			lo, hi = q.Finish, q.Start
		}
		if (len(lo) == 0 || c.Compare(n, lo) >= 0) && (len(hi) == 0 || c.Compare(n, hi) <= 0) {
			want = append(want, string(n))
			wanted |= 1 << (i % 64)
		}
	}
	out := dynamic[:0:0]
	for _, d := range dynamic {
		if _, ok := a.statics[string(d.Name)]; !ok {
			out = append(out, d)
		}
	}
	if len(want) > 0 {
		iter := st.readQuery(ctx, f.staticRead(want, wanted), st.keyOf(f, key)).Iter()
		values := make([]raw, len(want))
		stamps := make([]*int64, len(want))
		ttls := make([]*int32, len(want))
		dest := make([]any, 0, 3*len(want))
		for i := range want {
			dest = append(dest, &values[i], &stamps[i], &ttls[i])
		}
		found := iter.Scan(dest...)
		if err := iter.Close(); err != nil {
			return nil, clusterError(ctx, "read "+f.table, err)
		}
		now := time.Now().Unix()
		for i, n := range want {
			if found && values[i] != nil && stamps[i] != nil {
				out = append(out, expiring(engine.Column{Name: []byte(n), Value: nonNil(values[i]), Timestamp: *stamps[i]}, ttls[i], now))
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		r := c.Compare(out[i].Name, out[j].Name)
		if q.Reversed && q.Names == nil {
			return r > 0
		}
		return r < 0
	})
	if q.Names == nil && q.Count >= 0 && len(out) > q.Count {
		out = out[:q.Count]
	}
	return out, nil
}

// staticRead is the text of the read of the declared columns want,
// whose indexes in f.adopt.names are the bits of wanted: kept per set of
// names where the family declares at most 64.
func (f *family) staticRead(want []string, wanted uint64) string {
	a := f.adopt
	cache := len(a.names) <= 64
	if cache {
		if s, ok := a.staticReads.Load(wanted); ok {
			return s.(string)
		}
	}
	cols := make([]string, 0, 3*len(want))
	for _, n := range want {
		s := a.statics[n]
		cols = append(cols, s, "writetime("+s+")", "ttl("+s+")")
	}
	s := `SELECT ` + strings.Join(cols, ", ") + ` FROM ` + f.table + ` WHERE ` + f.col.key + ` = ? LIMIT 1`
	if cache {
		a.staticReads.Store(wanted, s)
	}
	return s
}

// countWithStatics is Count of a family of the static shape.
func (st *Store) countWithStatics(ctx context.Context, f *family, key string) (int, error) {
	cols, err := st.readWithStatics(ctx, f, key, engine.Query{ColumnFamily: f.def.Name, Predicate: engine.Predicate{Count: math.MaxInt32}})
	return len(cols), err
}

// staticStatement is the statement of a mutation of a declared column,
// or false when m names no declared column.
func (f *family) staticStatement(key raw, m engine.Mutation) (statement, bool) {
	if f.adopt == nil || m.SuperColumn != nil || m.Name == nil {
		return statement{}, false
	}
	cql, ok := f.adopt.staticCQL[string(m.Name)]
	if !ok {
		return statement{}, false
	}
	switch {
	case m.Delete:
		return statement{cql.delete, []any{m.Timestamp, key}}, true
	case m.TTL > 0:
		return statement{cql.setTTL, []any{m.Timestamp, min(int(m.TTL), maxTTL), raw(nonNil(m.Value)), key}}, true
	}
	return statement{cql.set, []any{m.Timestamp, raw(nonNil(m.Value)), key}}, true
}

// staticLayout is an adopted table whose static columns are served as
// declared columns beside its dynamic ones (adoptstatic.go).
type staticLayout struct{}

func (staticLayout) readRow(ctx context.Context, st *Store, f *family, key string, q engine.Query) (engine.Row, error) {
	ctx, cancel := st.withRequestTimeout(ctx)
	defer cancel()
	cols, err := st.readWithStatics(ctx, f, key, q)
	return engine.Row{Key: key, Columns: cols}, err
}

func (staticLayout) count(ctx context.Context, st *Store, f *family, key string, _ []byte) (int, error) {
	return st.countWithStatics(ctx, f, key)
}

func (staticLayout) check(*family, engine.Mutation) error { return nil }

func (staticLayout) mutation(out []statement, f *family, w rowWrite, m engine.Mutation) ([]statement, rowWrite) {
	if rangeDeletion(m) {
		return f.rangeStatements(out, w.key, m), w
	}
	if s, ok := f.staticStatement(w.key, m); ok {
		return append(out, s), w
	}
	return f.ownStatements(out, w, m)
}

func (staticLayout) readsMany(*family) bool { return false }

func (staticLayout) casFenced(*family) bool { return false }

func (staticLayout) row(f *family, c marshal.Comparator, name []byte) ([]string, []any) {
	return []string{f.col.column1}, []any{f.encode(c, name)}
}
