package cqlstore

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/thriftd/thriftd/engine"
	"github.com/thriftd/thriftd/marshal"
)

// pageSize is how many CQL rows a scan fetches per round trip.
const pageSize = 1000

// Get implements engine.Store.
func (st *Store) Get(ctx context.Context, keyspace, key string, q engine.Query) (engine.Row, error) {
	if err := st.enter(); err != nil {
		return engine.Row{}, err
	}
	defer st.leave()
	f, err := st.family(keyspace, q.ColumnFamily)
	if err != nil {
		return engine.Row{}, err
	}
	return st.readRow(ctx, f, key, q)
}

// GetMany implements engine.Store with one read of up to 100 keys where
// readsAsMany allows, else one read per key; up to Options.Concurrency
// reads at once. Unlike the LevelDB store, the rows are not
// read from one snapshot: Cassandra has none (docs/cassandra.md).
func (st *Store) GetMany(ctx context.Context, keyspace string, keys []string, q engine.Query) ([]engine.Row, error) {
	if err := st.enter(); err != nil {
		return nil, err
	}
	defer st.leave()
	f, err := st.family(keyspace, q.ColumnFamily)
	if err != nil {
		return nil, err
	}
	return st.readRows(ctx, f, keys, q)
}

// readRows reads q from every key concurrently; out[i] is keys[i]'s row.
func (st *Store) readRows(ctx context.Context, f *family, keys []string, q engine.Query) ([]engine.Row, error) {
	if len(keys) > 1 && readsAsMany(f, q) {
		return st.readMany(ctx, f, keys, q)
	}
	out := make([]engine.Row, len(keys))
	err := st.each(ctx, len(keys), func(ctx context.Context, i int) error {
		r, err := st.readRow(ctx, f, keys[i], q)
		out[i] = r
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// each runs fn(0..n-1) with at most Options.Concurrency at once, and
// returns the first error, after every started call has returned; the
// first error cancels the context the others run under.
func (st *Store) each(ctx context.Context, n int, fn func(context.Context, int) error) error {
	if n == 1 {
		return fn(ctx, 0)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg    sync.WaitGroup
		once  sync.Once
		first error
	)
	sem := make(chan struct{}, st.opts.Concurrency)
	for i := 0; i < n; i++ {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			if err := fn(ctx, i); err != nil {
				once.Do(func() { first = err; cancel() })
			}
		}()
	}
	wg.Wait()
	if first != nil {
		return first
	}
	// The caller's context ended before every call started.
	return context.Cause(ctx)
}

// Count implements engine.Store.
func (st *Store) Count(ctx context.Context, keyspace, key, cf string, superColumn []byte) (int, error) {
	if err := st.enter(); err != nil {
		return 0, err
	}
	defer st.leave()
	f, err := st.family(keyspace, cf)
	if err != nil {
		return 0, err
	}
	if f.system {
		return 0, nil
	}
	ctx, cancel := st.withRequestTimeout(ctx)
	defer cancel()
	return f.layout.count(ctx, st, f, key, superColumn)
}

// readQuery is a read of the cluster at the call's consistency level,
// under ctx, retried by readRetry.
func (st *Store) readQuery(ctx context.Context, stmt string, args ...any) *gocql.Query {
	return st.session.Query(stmt, args...).WithContext(ctx).
		Consistency(readConsistency(engine.Consistency(ctx))).Idempotent(true).RetryPolicy(readRetry{})
}

// readRow reads what q selects of one row.
func (st *Store) readRow(ctx context.Context, f *family, key string, q engine.Query) (engine.Row, error) {
	row := engine.Row{Key: key}
	if f.system || (q.Names == nil && q.Count == 0) || (q.Names != nil && len(q.Names) == 0) {
		return row, nil
	}
	return f.layout.readRow(ctx, st, f, key, q)
}

// uniqueEncoded returns the stored forms of names in ascending byte
// order, once each.
func uniqueEncoded(f *family, c marshal.Comparator, names [][]byte) []raw {
	out := make([]raw, 0, len(names))
	for _, n := range names {
		out = append(out, f.encode(c, n))
	}
	sort.Slice(out, func(i, j int) bool { return bytes.Compare(out[i], out[j]) < 0 })
	uniq := out[:0]
	for i, e := range out {
		if i == 0 || !bytes.Equal(e, uniq[len(uniq)-1]) {
			uniq = append(uniq, e)
		}
	}
	return uniq
}

// where builds the restriction of a clustering column col of f, compared
// by c, for a predicate: the IN list of Names, or the bounds of a run. A
// bound the column cannot hold is left out and returned as a filter the
// names read must pass (nil when there is none).
func where(f *family, col string, c marshal.Comparator, p engine.Predicate) (string, []any, *boundFilter) {
	args, cl, filter := restrict(f, c, p)
	return whereText(col, cl), args, filter
}

// clauses are the restrictions of a clustering column that restrict
// chose.
type clauses uint8

const (
	clauseIn    clauses = 1 << iota // col IN ?
	clauseStart                     // col >= ?
	clauseEnd                       // col <= ?
	clauseMask  = clauseIn | clauseStart | clauseEnd
)

// restrict is where's choice of clauses, with their arguments in the
// order whereText writes them.
func restrict(f *family, c marshal.Comparator, p engine.Predicate) ([]any, clauses, *boundFilter) {
	if p.Names != nil {
		return []any{uniqueEncoded(f, c, p.Names)}, clauseIn, nil
	}
	var (
		args   []any
		cl     clauses
		filter *boundFilter
	)
	lo, hi := p.Start, p.Finish
	if p.Reversed != f.desc {
		lo, hi = p.Finish, p.Start
	}
	limit := func(clause clauses, b []byte) {
		b = f.storedBound(c, b)
		if f.rawNames && !valid12(c, b) {
			if filter == nil {
				base, _ := marshal.Unreversed(c)
				filter = &boundFilter{c: base}
			}
			if clause == clauseStart {
				filter.lo = b
			} else {
				filter.hi = b
			}
			return
		}
		cl |= clause
		args = append(args, f.encode(c, b))
	}
	if len(lo) > 0 {
		limit(clauseStart, lo)
	}
	if len(hi) > 0 {
		limit(clauseEnd, hi)
	}
	return args, cl, filter
}

// whereText is the text of the clauses cl on column col.
func whereText(col string, cl clauses) string {
	switch {
	case cl&clauseIn != 0:
		return ` AND ` + col + ` IN ?`
	case cl == clauseStart:
		return ` AND ` + col + ` >= ?`
	case cl == clauseEnd:
		return ` AND ` + col + ` <= ?`
	case cl == clauseStart|clauseEnd:
		return ` AND ` + col + ` >= ? AND ` + col + ` <= ?`
	}
	return ""
}

// boundFilter holds the bounds of a slice that its clustering column
// cannot hold (a start column of get_paged_slice, which 1.2 did not
// validate, of another type than the column's), in the column's own
// order: c is the comparator without its ReversedType.
type boundFilter struct {
	c      marshal.Comparator
	lo, hi []byte
}

// outside reports whether name lies outside the bounds, each placed where
// its encoding falls among the names' (as the LevelDB store places it).
func (b *boundFilter) outside(name []byte) bool {
	enc := b.c.Encode(nil, name)
	return len(b.lo) > 0 && bytes.Compare(enc, b.c.Encode(nil, b.lo)) < 0 ||
		len(b.hi) > 0 && bytes.Compare(enc, b.c.Encode(nil, b.hi)) > 0
}

// valid12 reports whether 1.2's type of c's name accepts name, as the
// clustering column of its CQL type does (nameTypes).
func valid12(c marshal.Comparator, name []byte) bool {
	if t, err := marshal.Parse(c.Name()); err == nil {
		c = t
	}
	return c.Validate(name) == nil
}

// storedBound is a slice bound of f's names compared by c, as the
// column holds it. A bound c does not accept (get_paged_slice's start column, which 1.2
// did not check) falls where its encoding falls among the names' (as in
// the LevelDB store, and as 1.2 compared it); a column of the comparator's
// own CQL type would refuse it, so it is bound as the valid name of the
// same encoding where there is one (where returns a filter for the rest).
func (f *family) storedBound(c marshal.Comparator, b []byte) []byte {
	if !f.rawNames || valid12(c, b) {
		return b
	}
	enc := c.Encode(nil, b)
	name, rest, err := c.Decode(enc)
	if err != nil || len(rest) != 0 || !valid12(c, name) || !bytes.Equal(c.Encode(nil, name), enc) {
		return b
	}
	return name
}

// readColumns reads the columns of a Standard row, or the subcolumns of
// one super column, of a table of thriftd's own layouts (blobLayout,
// typedLayout; an adopted static table's dynamic columns, staticLayout).
func (st *Store) readColumns(ctx context.Context, f *family, key string, q engine.Query) ([]engine.Column, error) {
	if c := f.def.Comparator; q.SuperColumn == nil && spelled(f, c) {
		return st.readSpelled(ctx, f, key, q, c)
	} else if c := f.def.SubComparator; q.SuperColumn != nil && spelled(f, c) {
		return st.readSpelled(ctx, f, key, q, c)
	}
	sel := st.columnsSelect(f, q, st.keyOf(f, key), false)
	c, cells, filter := sel.c, sel.cells, sel.filter
	iter := st.readQuery(ctx, sel.stmt, sel.args...).PageSize(pageSize).Iter()
	out := make([]engine.Column, 0, resultCap(q))
	now := time.Now().Unix()
	s := &cellScan{}
	dest := s.dest(false, f.writtenTTL, &cells)
	for (filter == nil || q.Names != nil || q.Count <= 0 || len(out) < q.Count) && iter.Scan(dest...) {
		if len(s.enc) == 0 {
			continue // a partition with only the ghost marker
		}
		value, ts, ttl, live := cells.merge(s.value, s.ts, s.ttl)
		if !live {
			s.clear()
			continue
		}
		name, err := f.decodeScanned(c, s.enc)
		if err != nil {
			iter.Close()
			return nil, fmt.Errorf("%s: stored column name: %w", f.table, err)
		}
		if filter != nil && filter.outside(name) {
			s.clear()
			continue
		}
		col := expiring(engine.Column{Name: name, Value: nonNil(value), Timestamp: ts}, ttl, now)
		out = append(out, asWritten(col, s.wrote))
		s.clear()
	}
	if err := iter.Close(); err != nil {
		return out, clusterError(ctx, "read "+f.table, err)
	}
	return out, nil
}

// supersShape tells apart the texts of readSupers: the clauses of
// restrict in its low bits, then whether the order is reversed.
type supersShape uint8

const (
	supersReversed supersShape = 1 << (iota + 3)
	supersShapes               = 1 << (iota + 3)
)

// supersTexts are a family's texts of a read of its super columns
// (readSupers; readAdoptedSuper), each built by build on first use and
// kept for the family's life (as selectTexts).
type supersTexts [supersShapes]atomic.Pointer[string]

func (t *supersTexts) text(f *family, shape supersShape, build func(*family, supersShape) string) string {
	if p := t[shape].Load(); p != nil {
		return *p
	}
	stmt := build(f, shape)
	t[shape].Store(&stmt)
	return stmt
}

// supersText is readSupers' text of shape.
func supersText(f *family, shape supersShape) string {
	stmt := `SELECT super_column, ` + f.col.column1 + `, ` + f.col.value + `, writetime(` + f.col.value + `), ttl(` + f.col.value + `) FROM ` + f.table + ` WHERE ` + f.col.key + ` = ?` +
		whereText("super_column", clauses(shape)&clauseMask)
	if shape&supersReversed != 0 {
		stmt += ` ORDER BY super_column DESC, ` + f.col.column1 + ` DESC`
	}
	return stmt
}

// readSupers reads whole super columns, each with all its live
// subcolumns, at most p.Count of them (Names: every one named).
func (st *Store) readSupers(ctx context.Context, f *family, key string, p engine.Predicate) ([]engine.SuperColumn, error) {
	args := []any{st.keyOf(f, key)}
	wargs, cl, _ := restrict(f, f.def.Comparator, p) // the 0.6 layout: every name is a blob
	args = append(args, wargs...)
	shape := supersShape(cl)
	if p.Names == nil && p.Reversed {
		shape |= supersReversed
	}
	stmt := f.texts.supers.text(f, shape, supersText)
	iter := st.readQuery(ctx, stmt, args...).PageSize(pageSize).Iter()
	var (
		out               []engine.SuperColumn
		scEnc, enc, value raw
		last              []byte
		ts                int64
		ttl               *int32
	)
	now := time.Now().Unix()
	limit := p.Count
	if p.Names != nil || limit < 0 {
		limit = math.MaxInt
	}
	finish := func() {
		if n := len(out); n > 0 && p.Reversed {
			cols := out[n-1].Columns
			for i, j := 0, len(cols)-1; i < j; i, j = i+1, j-1 {
				cols[i], cols[j] = cols[j], cols[i]
			}
		}
	}
	full := false
	subSpelled := spelled(f, f.def.SubComparator)
	var lastSub []byte
	for iter.Scan(&scEnc, &enc, &value, &ts, &ttl) {
		if len(scEnc) == 0 {
			continue
		}
		if !bytes.Equal(scEnc, last) {
			finish()
			if len(out) == limit {
				full = true
				break
			}
			name, err := f.decode(f.def.Comparator, scEnc)
			if err != nil {
				iter.Close()
				return nil, fmt.Errorf("%s: stored super column name: %w", f.table, err)
			}
			out = append(out, engine.SuperColumn{Name: name})
			last = append(last[:0], scEnc...)
		}
		name, err := f.decode(f.def.SubComparator, enc)
		if err != nil {
			iter.Close()
			return nil, fmt.Errorf("%s: stored subcolumn name: %w", f.table, err)
		}
		sc := &out[len(out)-1]
		col := expiring(engine.Column{Name: name, Value: nonNil(value), Timestamp: ts}, ttl, now)
		if subSpelled {
			// One subcolumn of a name's spellings (spellings.go).
			prefix, _ := marshal.SpellingsOf(f.def.SubComparator, enc)
			if n := len(sc.Columns); n > 0 && bytes.Equal(prefix, lastSub) {
				if newerSpelling(col, sc.Columns[n-1], col.Name, sc.Columns[n-1].Name) {
					sc.Columns[n-1] = col
				}
				scEnc, enc, value, ttl = nil, nil, nil, nil
				continue
			}
			lastSub = append(lastSub[:0], prefix...)
		}
		sc.Columns = append(sc.Columns, col)
		scEnc, enc, value, ttl = nil, nil, nil, nil
	}
	if !full {
		finish()
	}
	return out, clusterError(ctx, "read "+f.table, iter.Close())
}

// resultCap is the room to make for the columns of q: what it can
// return, up to a page.
func resultCap(q engine.Query) int {
	if q.Names != nil {
		return min(len(q.Names), pageSize)
	}
	if q.Count > 0 {
		return min(q.Count, pageSize)
	}
	return 0
}

func nonNil[B ~[]byte](b B) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}

// asWritten gives an expiring column the TTL it was written with
// (written_ttl, nil where the table has none or the column does not
// expire): capTTL may have shortened the cell's.
func asWritten(c engine.Column, wrote *int32) engine.Column {
	if c.TTL > 0 && wrote != nil && *wrote >= c.TTL {
		c.TTL = *wrote
	}
	return c
}

// expiring adds to c what CQL tells of its expiry: the seconds it has left
// (ttl, nil for a column that never expires), as of now.
func expiring(c engine.Column, ttl *int32, now int64) engine.Column {
	if ttl != nil && *ttl > 0 {
		c.TTL = *ttl
		c.ExpiresAt = now + int64(*ttl)
	}
	return c
}
