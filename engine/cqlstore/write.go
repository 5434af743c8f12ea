package cqlstore

import (
	"context"
	"fmt"
	"math"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/thriftd/thriftd/engine"
)

// maxTTL is Cassandra's largest TTL (20 years).
const maxTTL = 630720000

// maxExpiry is the latest expiry (local deletion time, seconds since the
// epoch) every Cassandra 4 and 5 node stores: 2038-01-19T03:14:06Z, Java's
// Integer.MAX_VALUE - 1 (Cassandra 5.0 in its default
// storage_compatibility_mode). A node refuses a TTL reaching past it (its
// expiration_date_overflow_policy REJECT); 1.2 accepted any TTL up to
// maxTTL.
const maxExpiry = math.MaxInt32 - 1

// expiryMargin is kept between a capped expiry and maxExpiry for the
// clocks of the nodes and the time the write takes.
const expiryMargin = 3600

// capTTL is the TTL a cell is written with for a TTL of ttl seconds: at
// most maxTTL, and expiring no later than maxExpiry less expiryMargin, as
// a node whose expiration_date_overflow_policy is CAP caps it. The TTL the
// client wrote is kept beside it (written_ttl) and answered.
func capTTL(ttl int) int {
	limit := int(maxExpiry - expiryMargin - time.Now().Unix())
	return max(1, min(ttl, maxTTL, limit))
}

// Apply implements engine.Store. Each RowMutation is one CQL batch: an
// unlogged batch when it touches one column family (one partition of one
// table, which Cassandra applies atomically and in isolation), a logged
// batch when it touches several (several tables: the batch log makes it
// all-or-nothing in the end, but a reader may see one table's part before
// another's). Rows are applied concurrently and independently: unlike the
// LevelDB store, a failed call may have applied some rows and not others,
// as in 0.6. Every column family is checked before anything is written.
func (st *Store) Apply(ctx context.Context, keyspace string, rows []engine.RowMutation) error {
	if err := st.enter(); err != nil {
		return err
	}
	defer st.leave()
	for _, r := range rows {
		for _, m := range r.Mutations {
			f, err := st.family(keyspace, m.ColumnFamily)
			if err != nil {
				return err
			}
			if f.system {
				return fmt.Errorf("cqlstore: column family %s.%s is read-only", keyspace, m.ColumnFamily)
			}
			if err := f.layout.check(f, m); err != nil {
				return err
			}
		}
	}
	cl := writeConsistency(engine.Consistency(ctx))
	return st.each(ctx, len(rows), func(ctx context.Context, i int) error {
		return st.applyRow(ctx, keyspace, rows[i], cl)
	})
}

// statement is one CQL statement of a batch.
type statement struct {
	cql  string
	args []any
}

// applyRow writes one row's mutations: the entries of its indexed
// columns first (index.go), then its cells.
func (st *Store) applyRow(ctx context.Context, keyspace string, r engine.RowMutation, cl gocql.Consistency) error {
	var stmts, entries []statement
	var err error
	families := 1
	if oneFamily(r.Mutations) {
		// The common case (insert, remove, a row of one column family)
		// needs no grouping.
		f, _ := st.family(keyspace, r.Mutations[0].ColumnFamily)
		if entries, err = st.indexStatements(nil, f, r.Key, r.Mutations); err != nil {
			return err
		}
		stmts = st.familyStatements(nil, f, st.keyOf(f, r.Key), r.Mutations)
	} else {
		var order []string
		byCF := map[string][]engine.Mutation{}
		for _, m := range r.Mutations {
			if _, ok := byCF[m.ColumnFamily]; !ok {
				order = append(order, m.ColumnFamily)
			}
			byCF[m.ColumnFamily] = append(byCF[m.ColumnFamily], m)
		}
		for _, cf := range order {
			f, _ := st.family(keyspace, cf)
			if entries, err = st.indexStatements(entries, f, r.Key, byCF[cf]); err != nil {
				return err
			}
			stmts = st.familyStatements(stmts, f, st.keyOf(f, r.Key), byCF[cf])
		}
		families = len(order)
	}
	if len(stmts) == 0 {
		return nil
	}
	ctx, cancel := st.withRequestTimeout(ctx)
	defer cancel()
	if len(entries) > 0 {
		// Written and acknowledged before the cells, so that no reader
		// ever finds a cell its entry does not point at.
		if err := st.exec(ctx, entries, gocql.UnloggedBatch, cl); err != nil {
			return err
		}
	}
	typ := gocql.UnloggedBatch
	if families > 1 {
		typ = gocql.LoggedBatch
	}
	return st.exec(ctx, stmts, typ, cl)
}

// exec runs stmts, one at least: a single statement alone, several as a
// batch of typ. A write the driver could not send (no connection, or no
// free stream, to any node: a pool reconnecting to a busy node) is sent
// again while a node accepts connections, until ctx ends: it was not
// applied, so sending it again is safe.
func (st *Store) exec(ctx context.Context, stmts []statement, typ gocql.BatchType, cl gocql.Consistency) error {
	for pause := 20 * time.Millisecond; ; pause = min(2*pause, 500*time.Millisecond) {
		var err error
		if len(stmts) == 1 {
			err = st.session.Query(stmts[0].cql, stmts[0].args...).WithContext(ctx).Consistency(cl).Idempotent(true).
				RetryPolicy(writeRetry{}).Exec()
		} else {
			b := st.session.Batch(typ).WithContext(ctx).Consistency(cl)
			for _, s := range stmts {
				b.Query(s.cql, s.args...)
			}
			err = b.Exec()
		}
		if err == nil || !unreached(err) || !nodeListening(ctx) {
			return clusterError(ctx, "write", err)
		}
		select {
		case <-ctx.Done():
			return clusterError(ctx, "write", err)
		case <-time.After(pause):
		}
	}
}

// oneFamily reports whether ms, at least one, all name one column family.
func oneFamily(ms []engine.Mutation) bool {
	if len(ms) == 0 {
		return false
	}
	for _, m := range ms[1:] {
		if m.ColumnFamily != ms[0].ColumnFamily {
			return false
		}
	}
	return true
}

// familyStatements appends the statements of one column family's
// mutations of a row. 0.6's reconciliation is Cassandra's own: the
// higher timestamp wins, a tombstone wins a tie, and between live values
// the greater value; a deletion shadows writes at or before it.
func (st *Store) familyStatements(out []statement, f *family, key raw, muts []engine.Mutation) []statement {
	// Of several row deletions only the last counts (0.6 set, rather
	// than merged, a mutation's row tombstone).
	rowDel := -1
	for i, m := range muts {
		if m.IsRowDeletion() {
			rowDel = i
		}
	}
	deleted := false
	var latest int64 = math.MinInt64
	// The longest TTL of an expiring write and the latest such write, for
	// its ghost marker.
	ghostTTL, ghostTS := 0, int64(math.MinInt64)
	grace := st.opts.GCGraceSeconds
	if f.writtenTTL {
		// A 19.x table: its family's own gc_grace_seconds.
		grace = st.gcGrace(f.def)
	}
	w := rowWrite{key: key, n: len(muts)}
	for i, m := range muts {
		if m.Delete {
			if m.IsRowDeletion() && i != rowDel {
				continue
			}
			deleted = true
			latest = max(latest, m.Timestamp)
		}
		// Long.MIN_VALUE is refused by Cassandra, and a write or deletion
		// at it is invisible in 0.6 anyway: nothing is shadowed by it,
		// and it is shadowed by "not deleted".
		if m.Timestamp == math.MinInt64 {
			continue
		}
		if !m.Delete && m.TTL > 0 {
			ghostTTL, ghostTS = max(ghostTTL, capTTL(int(m.TTL))), max(ghostTS, m.Timestamp)
		}
		// Apply refused what the shape cannot store.
		out, w = f.layout.mutation(out, f, w, m)
	}
	if deleted && f.ghost && grace > 0 {
		// The range ghost marker, just after the latest deletion so that
		// a row deletion does not shadow it, expiring when 0.6 would
		// purge the tombstone.
		ts := latest
		if ts < math.MaxInt64 {
			ts++
		}
		out = append(out, statement{f.cql.ghost,
			[]any{capTTL(grace), ts, []byte{}, key}})
	}
	if ghostTTL > 0 && !deleted && f.ghost {
		// An expired column leaves the row in range reads until its
		// tombstone would be purged.
		out = append(out, statement{f.cql.ghost,
			[]any{capTTL(ghostTTL + max(grace, 0)), ghostTS, []byte{}, key}})
	}
	return out
}

// rowWrite is what the statements of one row's mutations of a family
// share: the row's stored key, and the arrays its plain inserts bind from
// (bind.go), made on first use for n mutations. It is passed by value
// and returned, so that a call through tableLayout does not move it to
// the heap.
type rowWrite struct {
	key raw
	n   int
	ins *inserts
}

// ownStatements appends the statements of m, a mutation of a column
// (or super column, or row) of a table of thriftd's own layouts, or of a
// column an adopted table holds as one: its other spellings'
// deletions first (spellings.go), then its write or deletion.
func (f *family) ownStatements(out []statement, w rowWrite, m engine.Mutation) ([]statement, rowWrite) {
	key := w.key
	var sc, name raw
	if m.SuperColumn != nil {
		sc = f.encode(f.def.Comparator, m.SuperColumn)
	}
	if m.Name != nil {
		c := f.def.Comparator
		if m.SuperColumn != nil {
			c = f.def.SubComparator
		}
		name = f.encode(c, m.Name)
		if spelled(f, c) {
			out = f.otherSpellings(out, c, key, sc, m.Name, name, m.Timestamp, m.Delete)
		}
	}
	if !m.Delete && sc == nil && f.valueType != "" {
		out = append(out, f.valueInsert(key, false, []any{name}, m))
		return out, w
	}
	if !m.Delete && m.TTL > 0 {
		ttl := capTTL(int(m.TTL))
		switch {
		case sc == nil && f.writtenTTL:
			out = append(out, statement{f.cql.insertTTL, []any{key, name, raw(nonNil(m.Value)), m.TTL, m.Timestamp, ttl}})
		case sc == nil:
			out = append(out, statement{f.cql.insertTTL, []any{key, name, raw(nonNil(m.Value)), m.Timestamp, ttl}})
		default:
			out = append(out, statement{f.cql.insertSubTTL, []any{key, sc, name, raw(nonNil(m.Value)), m.Timestamp, ttl}})
		}
		return out, w
	}
	switch {
	case !m.Delete && sc == nil:
		if w.ins == nil {
			w.ins = newInserts(key, w.n)
		}
		out = append(out, statement{f.cql.insert, w.ins.insert(name, nonNil(m.Value), m.Timestamp)})
	case !m.Delete:
		out = append(out, statement{f.cql.insertSub,
			[]any{key, sc, name, raw(nonNil(m.Value)), m.Timestamp}})
	case sc == nil && name == nil:
		out = append(out, statement{f.cql.deleteRow, []any{m.Timestamp, key}})
	case name == nil:
		out = append(out, statement{f.cql.deleteSuper, []any{m.Timestamp, key, sc}})
	case sc == nil:
		out = append(out, statement{f.cql.deleteColumn, []any{m.Timestamp, key, name}})
	default:
		out = append(out, statement{f.cql.deleteSub, []any{m.Timestamp, key, sc, name}})
	}
	return out, w
}
