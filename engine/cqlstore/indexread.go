package cqlstore

import (
	"bytes"
	"context"
	"slices"
	"sync"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/thriftd/thriftd/engine"
	"github.com/thriftd/thriftd/marshal"
)

// The query side of the KEYS indexes (index.go has their entries, their
// build and doc.go their invariant): IndexedKeys and IndexedRows walk a
// value's entries (walkIndex) and keep those whose row holds the value.

// IndexedKeys implements engine.Indexer with the family's entries: the
// keys, in token order from b's start, of the rows whose column holds
// value now, as the call's consistency level reads them. An empty value
// is not looked up (the caller scans).
func (st *Store) IndexedKeys(ctx context.Context, keyspace, columnFamily string, column, value []byte, b engine.TokenRange, max int) ([]string, bool, error) {
	if err := st.enter(); err != nil {
		return nil, false, err
	}
	defer st.leave()
	var keys []string
	ready, err := st.walkIndex(ctx, keyspace, columnFamily, column, value, b, max, func(ctx context.Context, f *family, cand []indexEntry) (int, error) {
		live, err := st.liveEntries(ctx, f, column, value, cand)
		keys = append(keys, live...)
		return len(live), err
	})
	if err != nil || !ready {
		return nil, ready, err
	}
	return keys[:min(len(keys), max)], true, nil
}

var _ engine.IndexReader = (*Store)(nil)

// IndexedRows implements engine.IndexReader: the index's entries, then the
// filter's columns of their rows, which tell the entries whose row holds
// value from the stale ones (what liveEntries' own read of the column
// tells IndexedKeys), then what q selects of the rows that hold it. A page
// costs the entries' statement and two reads of its rows, where
// IndexedKeys and its caller's two reads (the filter's columns, then q)
// take three. The filter's and q's reads are two statements, not one view
// of a row: a row written between them is judged again by its caller on
// what q returns, as after IndexedKeys.
func (st *Store) IndexedRows(ctx context.Context, keyspace, columnFamily string, column, value []byte, b engine.TokenRange, max int, filter [][]byte, q engine.Query) ([]engine.IndexedRow, bool, error) {
	if err := st.enter(); err != nil {
		return nil, false, err
	}
	defer st.leave()
	// The filter's columns, with the index's column among them to judge
	// each entry; Filter keeps only the filter's.
	names := filter
	own := slices.ContainsFunc(filter, func(n []byte) bool { return bytes.Equal(n, column) })
	if !own {
		names = append(slices.Clone(filter), column)
	}
	var out []engine.IndexedRow
	ready, err := st.walkIndex(ctx, keyspace, columnFamily, column, value, b, max, func(ctx context.Context, f *family, cand []indexEntry) (int, error) {
		keys := make([]string, 0, len(cand))
		seen := make(map[string]bool, len(cand))
		for _, e := range cand {
			if !seen[e.key] {
				seen[e.key] = true
				keys = append(keys, e.key)
			}
		}
		fq := engine.Query{ColumnFamily: columnFamily, Predicate: engine.Predicate{Names: sortedNames(f.def.Comparator, names), Count: len(names)}}
		held, err := st.readRows(ctx, f, keys, fq)
		if err != nil {
			return 0, err
		}
		cells := make(map[string]*engine.Column, len(keys))
		var live []string
		var filters [][]engine.Column
		for i, k := range keys {
			var cols []engine.Column
			for j := range held[i].Columns {
				c := &held[i].Columns[j]
				if bytes.Equal(c.Name, column) {
					cells[k] = c
					if !own {
						continue
					}
				}
				cols = append(cols, *c)
			}
			if c := cells[k]; c != nil && bytes.Equal(c.Value, value) {
				live = append(live, k)
				filters = append(filters, cols)
			}
		}
		var stale []indexEntry
		for _, e := range cand {
			if c := cells[e.key]; c != nil && !bytes.Equal(c.Value, value) && c.Timestamp > e.ts {
				stale = append(stale, e)
			}
		}
		st.deleteStale(ctx, f, column, value, stale)
		if len(live) == 0 {
			return 0, nil
		}
		rows, err := st.readRows(ctx, f, live, q)
		if err != nil {
			return 0, err
		}
		for i := range rows {
			rows[i].Key = live[i]
			out = append(out, engine.IndexedRow{Row: rows[i], Filter: filters[i]})
		}
		return len(live), nil
	})
	if err != nil || !ready {
		return nil, ready, err
	}
	return out[:min(len(out), max)], true, nil
}

// sortedNames is names in c's order, for a read by names.
func sortedNames(c marshal.Comparator, names [][]byte) [][]byte {
	out := slices.Clone(names)
	slices.SortFunc(out, c.Compare)
	return out
}

// walkIndex walks the entries of f's index of column = value whose rows'
// tokens lie in b, handing them to take a batch at a time, at most as
// many as the answers still wanted; take returns how many of its batch
// became answers, and the walk ends once max have. It reports whether the
// index is usable (IndexedKeys' ready).
func (st *Store) walkIndex(ctx context.Context, keyspace, columnFamily string, column, value []byte, b engine.TokenRange, max int, take func(context.Context, *family, []indexEntry) (int, error)) (bool, error) {
	ctx = nonSerial(ctx)
	f, err := st.family(keyspace, columnFamily)
	if err != nil {
		return false, err
	}
	if f.system || !f.index.indexed(column) || len(value) == 0 || len(value) > maxIndexedValue {
		return false, nil
	}
	if f.def.Comparator != nil && f.def.Comparator.Validate(column) != nil {
		return false, nil
	}
	cqlKS := keyspaceName(st.opts.Prefix, keyspace)
	if ready, err := st.indexReady(ctx, cqlKS, columnFamily, column); err != nil || !ready {
		return false, err
	}
	if max <= 0 {
		return true, nil
	}
	stmt := `SELECT row_token, key, WRITETIME(written) FROM ` + f.index.table + ` WHERE family = ? AND column = ? AND value = ?`
	args := []any{columnFamily, raw(column), entryValue(value)}
	if len(b.Start) > 0 {
		stmt += ` AND row_token >= ?`
		args = append(args, raw(b.Start))
	}
	var (
		n    int
		cand []indexEntry
	)
	flush := func() error {
		got, err := take(ctx, f, cand)
		n += got
		cand = cand[:0]
		return err
	}
	// Each page of entries, and each read of their rows, is a request of
	// its own under Cluster.Timeout (st.pages), as 2.1 bounded each of an
	// index query's requests and not the query.
	err = st.pages(ctx, "read the index of", f.table, stmt, args, min(2*max+16, pageSize), func(iter *gocql.Iter) (bool, error) {
		var (
			tok, key raw
			ts       int64
		)
		for n < max && iter.Scan(&tok, &key, &ts) {
			if len(b.End) > 0 && bytes.Compare(tok, b.End) > 0 {
				return false, nil
			}
			if !b.StartInclusive && bytes.Equal(tok, b.Start) {
				continue
			}
			cand = append(cand, indexEntry{token: tok, key: string(key), ts: ts})
			tok, key = nil, nil
			if len(cand) >= max-n {
				if err := flush(); err != nil {
					return false, err
				}
			}
		}
		return n < max, nil
	})
	if err != nil {
		return false, err
	}
	if len(cand) > 0 {
		if err := flush(); err != nil {
			return false, err
		}
	}
	return true, nil
}

// indexEntry is an entry IndexedKeys met: its row's key and token, and
// its timestamp.
type indexEntry struct {
	token []byte
	key   string
	ts    int64
}

// liveEntries reads the cell of each entry and returns, in order, the keys
// of the rows that hold value in column: one statement per manyKeys rows
// (key IN ?), not one per entry. An entry whose cell holds another value
// written after it is deleted (see the comment at the top of this file);
// a failure to delete it is only logged at debug level, as a later query
// deletes it again.
func (st *Store) liveEntries(ctx context.Context, f *family, column, value []byte, entries []indexEntry) ([]string, error) {
	type cell struct {
		value raw
		ts    int64
	}
	name := f.encode(f.def.Comparator, column)
	uniq := make([]raw, 0, len(entries))
	held := make(map[string]*cell, len(entries))
	for _, e := range entries {
		kb := st.keyOf(f, e.key)
		if _, ok := held[string(kb)]; !ok {
			held[string(kb)] = nil
			uniq = append(uniq, kb)
		}
	}
	var mu sync.Mutex
	chunks := (len(uniq) + manyKeys - 1) / manyKeys
	err := st.each(ctx, chunks, func(ctx context.Context, n int) error {
		part := uniq[n*manyKeys : min((n+1)*manyKeys, len(uniq))]
		cells := valueCells{on: f.valueType != ""}
		stmt := lazyText(&f.texts.indexRead, f, indexReadText)
		var (
			kb, got raw
			ts      int64
			ttl     *int32
		)
		dest := cells.dest([]any{&kb, &got, &ts, &ttl})
		return st.pages(ctx, "read", f.table, stmt, []any{part, name}, pageSize, func(iter *gocql.Iter) (bool, error) {
			for iter.Scan(dest...) {
				v, t, _, ok := cells.merge(got, ts, ttl)
				mu.Lock()
				if c, seen := held[string(kb)]; ok && seen && c == nil {
					held[string(kb)] = &cell{value: v, ts: t}
				}
				mu.Unlock()
				kb, got, ttl = nil, nil, nil
			}
			return true, nil
		})
	})
	if err != nil {
		return nil, err
	}
	var (
		keys  []string
		stale []indexEntry
	)
	for _, e := range entries {
		c := held[string(st.keyOf(f, e.key))]
		switch {
		case c == nil:
		case bytes.Equal(c.value, value):
			keys = append(keys, e.key)
		case c.ts > e.ts:
			stale = append(stale, e)
		}
	}
	st.deleteStale(ctx, f, column, value, stale)
	return keys, nil
}

// deleteStale deletes the index entries of column = value that a later
// write to their rows' column made stale; a failure is only logged at
// debug level, as a later query deletes them again.
func (st *Store) deleteStale(ctx context.Context, f *family, column, value []byte, stale []indexEntry) {
	_ = st.each(ctx, len(stale), func(ctx context.Context, i int) error {
		e := stale[i]
		dctx, cancel := st.withRequestTimeout(ctx)
		defer cancel()
		err := st.session.Query(f.index.delete, e.ts, f.def.Name, raw(column), entryValue(value), raw(e.token), raw(e.key)).
			WithContext(dctx).Consistency(gocql.One).Exec()
		if err != nil {
			st.logger().Debug("deleting a stale index entry failed", "table", f.table, "err", err)
		}
		return nil
	})
}
