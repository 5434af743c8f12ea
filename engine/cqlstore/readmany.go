package cqlstore

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"strings"
	"sync/atomic"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/thriftd/thriftd/engine"
	"github.com/thriftd/thriftd/marshal"
)

// columnsSelect is the SELECT of readColumns's own path (a row of a
// family that is neither adopted nor of spelled names): the columns of q
// in the row whose stored key is key, or, when many, in every row whose
// stored key is in the list key, each row's rows led by its key and at
// most q.Count of them per row (PER PARTITION LIMIT, Cassandra 3.6+).
type columnsSelect struct {
	stmt   string
	args   []any
	c      marshal.Comparator
	filter *boundFilter
	cells  valueCells
}

func (st *Store) columnsSelect(f *family, q engine.Query, key any, many bool) columnsSelect {
	out := columnsSelect{c: f.def.Comparator, cells: valueCells{on: f.valueType != "" && q.SuperColumn == nil}}
	var shape selectShape
	if many {
		shape |= selectMany
	}
	args := []any{key}
	if q.SuperColumn != nil {
		shape |= selectSuper
		args = append(args, f.encode(f.def.Comparator, q.SuperColumn))
		out.c = f.def.SubComparator
	}
	wargs, clauses, filter := restrict(f, out.c, q.Predicate)
	shape |= selectShape(clauses)
	args = append(args, wargs...)
	if q.Names == nil && q.Reversed {
		shape |= selectReversed
	}
	if q.Names == nil && q.Count > 0 && filter == nil {
		shape |= selectLimit
		args = append(args, min(q.Count, math.MaxInt32))
	}
	out.stmt, out.args, out.filter = f.selects.text(f, shape), args, filter
	return out
}

// selectShape tells apart the texts of columnsSelect: the clauses of
// restrict in its low bits, then the rest of the statement.
type selectShape uint8

const (
	selectMany selectShape = 1 << (iota + 3)
	selectSuper
	selectReversed
	selectLimit
	selectShapes = 1 << (iota + 3)
)

// selectTexts are a family's columnsSelect texts, each built on first use
// and kept for the family's life, so that a read neither concatenates its
// statement nor makes the driver hash a new string per call. A family's
// copies (adoptedLayout.plain) share them: they differ only in fields the
// texts do not depend on.
type selectTexts [selectShapes]atomic.Pointer[string]

func (t *selectTexts) text(f *family, shape selectShape) string {
	if p := t[shape].Load(); p != nil {
		return *p
	}
	s := selectText(f, shape)
	t[shape].Store(&s)
	return s
}

// selectText builds the text of shape for f.
func selectText(f *family, shape selectShape) string {
	var sb strings.Builder
	sb.WriteString(`SELECT `)
	if shape&selectMany != 0 {
		sb.WriteString(f.col.key + `, `)
	}
	sb.WriteString(f.col.column1 + `, ` + f.col.value + `, writetime(` + f.col.value + `), ttl(` + f.col.value + `)`)
	if f.writtenTTL {
		sb.WriteString(`, written_ttl`)
	}
	cells := valueCells{on: f.valueType != "" && shape&selectSuper == 0}
	sb.WriteString(cells.selects())
	sb.WriteString(` FROM ` + f.table)
	if shape&selectMany != 0 {
		sb.WriteString(` WHERE ` + f.col.key + ` IN ?`)
	} else {
		sb.WriteString(` WHERE ` + f.col.key + ` = ?`)
	}
	if shape&selectSuper != 0 {
		sb.WriteString(` AND super_column = ?`)
	}
	sb.WriteString(whereText(f.col.column1, clauses(shape)&clauseMask))
	if shape&selectReversed != 0 {
		switch {
		case f.def.Super:
			sb.WriteString(` ORDER BY super_column DESC, ` + f.col.column1 + ` DESC`)
		case f.desc:
			sb.WriteString(` ORDER BY ` + f.col.column1 + ` ASC`)
		default:
			sb.WriteString(` ORDER BY ` + f.col.column1 + ` DESC`)
		}
	}
	if shape&selectLimit != 0 {
		// A bound LIMIT keeps one prepared statement for every count.
		if shape&selectMany != 0 {
			sb.WriteString(` PER PARTITION LIMIT ?`)
		} else {
			sb.WriteString(` LIMIT ?`)
		}
	}
	return sb.String()
}

// rangeShape tells apart the texts of scanRows: from a token or the
// first row, with a PER PARTITION LIMIT or none.
type rangeShape uint8

const (
	rangeFrom rangeShape = 1 << iota
	rangeLimit
	rangeShapes
)

// familyTexts are the texts of a family's reads that depend on fields
// set after the family is made (writtenTTL, valueType, nameComponents,
// the composite shape's columns): each is built on first use, once the
// family is complete, and kept for the family's life, as selectTexts are.
// A family's copies (adoptedLayout.plain) share them.
type familyTexts struct {
	scan          rangeTexts
	counters      counterTexts
	counterWrites counterWriteTexts
	supers        supersTexts
	adoptedSupers supersTexts
	spellings     spellingTexts
	rangeDeletes  rangeDeleteTexts
	valueInserts  valueInsertTexts
	cas           casTexts
	// composite reads a row of the composite shape (adoptcomposite.go).
	composite compositeTexts
	// indexRead reads one column of many rows (index.go), indexBuild
	// one column of every row.
	indexRead, indexBuild atomic.Pointer[string]
}

// lazyText is the text in p, built by build on first use.
func lazyText(p *atomic.Pointer[string], f *family, build func(*family) string) string {
	if s := p.Load(); s != nil {
		return *s
	}
	s := build(f)
	p.Store(&s)
	return s
}

// rangeTexts are a family's scanRows texts.
type rangeTexts [rangeShapes]atomic.Pointer[string]

func (t *rangeTexts) text(f *family, shape rangeShape) string {
	if p := t[shape].Load(); p != nil {
		return *p
	}
	var sb strings.Builder
	sb.WriteString(`SELECT ` + f.col.key + `, ` + f.col.column1 + `, ` + f.col.value + `, writetime(` + f.col.value + `), ttl(` + f.col.value + `)`)
	if f.writtenTTL {
		sb.WriteString(`, written_ttl`)
	}
	cells := valueCells{on: f.valueType != ""}
	sb.WriteString(cells.selects() + ` FROM ` + f.table)
	if shape&rangeFrom != 0 {
		sb.WriteString(` WHERE token(` + f.col.key + `) >= ?`)
	}
	if shape&rangeLimit != 0 {
		sb.WriteString(` PER PARTITION LIMIT ?`)
	}
	s := sb.String()
	t[shape].Store(&s)
	return s
}

// manyKeys is how many rows one statement of readMany reads at most.
const manyKeys = 100

// readsAsMany reports whether readMany reads q from rows of f as
// readColumns reads it from each: a slice or names of a Standard row of
// a family of the store's own layout, in the names' order (Cassandra
// refuses ORDER BY with an IN of keys on a paged read), whose bounds the
// column can hold.
func readsAsMany(f *family, q engine.Query) bool {
	if !f.layout.readsMany(f) || q.SuperColumn != nil || (q.Names == nil && q.Reversed) {
		return false
	}
	if q.Names == nil && q.Count == 0 || q.Names != nil && len(q.Names) == 0 {
		return false // readRow answers these without a read
	}
	_, _, filter := where(f, f.col.column1, f.def.Comparator, q.Predicate)
	return filter == nil
}

// readMany is readRows of rows readsAsMany accepts: one statement per
// manyKeys rows (key IN ?) instead of one per row. Rows without a column
// in q (missing, range ghosts) come back empty, as from readRow.
func (st *Store) readMany(ctx context.Context, f *family, keys []string, q engine.Query) ([]engine.Row, error) {
	out := make([]engine.Row, len(keys))
	at := make(map[string][]int, len(keys))
	for i, k := range keys {
		out[i].Key = k
		kb := string(st.keyOf(f, k))
		at[kb] = append(at[kb], i)
	}
	uniq := make([]raw, 0, len(at))
	for i, k := range keys {
		kb := st.keyOf(f, k)
		if at[string(kb)][0] == i {
			uniq = append(uniq, kb)
		}
	}
	chunks := (len(uniq) + manyKeys - 1) / manyKeys
	err := st.each(ctx, chunks, func(ctx context.Context, n int) error {
		part := uniq[n*manyKeys : min((n+1)*manyKeys, len(uniq))]
		return st.readManyOnce(ctx, f, part, q, func(kb raw, col engine.Column) {
			is := at[string(kb)]
			for _, i := range is {
				out[i].Columns = append(out[i].Columns, col)
			}
		})
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// readManyOnce reads q from the rows keys with one statement and hands
// each live column to add with its row's stored key, in each row's order.
//
// Each page is a request of its own under Cluster.Timeout (st.pages).
func (st *Store) readManyOnce(ctx context.Context, f *family, keys []raw, q engine.Query, add func(raw, engine.Column)) error {
	sel := st.columnsSelect(f, q, keys, true)
	c, cells := sel.c, sel.cells
	now := time.Now().Unix()
	s := &cellScan{}
	dest := s.dest(true, f.writtenTTL, &cells)
	return st.pages(ctx, "read", f.table, sel.stmt, sel.args, pageSize, func(iter *gocql.Iter) (bool, error) {
		for iter.Scan(dest...) {
			if len(s.enc) == 0 {
				s.clear()
				continue // a partition with only the ghost marker
			}
			value, ts, ttl, live := cells.merge(s.value, s.ts, s.ttl)
			if !live {
				s.clear()
				continue
			}
			name, err := f.decodeScanned(c, s.enc)
			if err != nil {
				return false, fmt.Errorf("%s: stored column name: %w", f.table, err)
			}
			col := expiring(engine.Column{Name: name, Value: nonNil(value), Timestamp: ts}, ttl, now)
			add(s.kb, asWritten(col, s.wrote))
			s.clear()
		}
		return true, nil
	})
}

// pages runs stmt page by page, each page a request of its own under
// Cluster.Timeout (as each of 2.1's read and range requests was under its
// node's timeout), not the whole read: a read of many pages on a busy
// cluster may rightly take longer than one request. scan reads one page
// from its iterator and says whether to go on; the first page holds size
// rows, the next ones pageSize. ctx bounds the whole read. An error is
// of what verb did to table ("read", "Standard1"), the words joined
// only then.
func (st *Store) pages(ctx context.Context, verb, table, stmt string, args []any, size int, scan func(*gocql.Iter) (more bool, err error)) error {
	page := pageSize
	if st.rowsPerPage > 0 {
		page, size = st.rowsPerPage, min(size, st.rowsPerPage)
	}
	var state []byte
	for {
		next, more, err := st.page(ctx, verb, table, stmt, args, size, state, scan)
		if err != nil || !more || len(next) == 0 {
			return err
		}
		state, size = next, page
	}
}

// page is one request of pages.
func (st *Store) page(ctx context.Context, verb, table, stmt string, args []any, size int, state []byte, scan func(*gocql.Iter) (bool, error)) (next []byte, more bool, err error) {
	pctx, cancel := st.withRequestTimeout(ctx)
	defer cancel()
	iter := st.readQuery(pctx, stmt, args...).PageSize(size).PageState(state).Iter()
	more, err = scan(iter)
	next = iter.PageState()
	if cerr := iter.Close(); err == nil && cerr != nil {
		return nil, false, clusterError(pctx, verb+" "+table, cerr)
	}
	return next, more, err
}

// scansWhole reports whether scanRows reads q as Range would read it
// row by row: a readsAsMany read of every column of a row, up to a count,
// which leaves out no row that the walk of keys visits (a row without a
// column, a range ghost, comes back as its static row).
func scansWhole(f *family, q engine.Query) bool {
	return q.Names == nil && len(q.Start) == 0 && len(q.Finish) == 0 && readsAsMany(f, q)
}

// scanRows is Range of a query scansWhole accepts, in one statement
// (more for pages of more than pageSize columns): the rows of f in b,
// in token order, with at most q.Count columns each (PER PARTITION
// LIMIT), until maxRows rows.
//
// Each page is a request of its own under Cluster.Timeout (st.pages).
func (st *Store) scanRows(ctx context.Context, f *family, b engine.TokenRange, q engine.Query, maxRows int) ([]engine.Row, error) {
	cells := valueCells{on: f.valueType != ""}
	var shape rangeShape
	var args []any
	if len(b.Start) > 0 {
		shape |= rangeFrom
		args = append(args, st.tokenValue(f, b.Start))
	}
	size := pageSize
	if q.Count > 0 {
		shape |= rangeLimit
		args = append(args, min(q.Count, math.MaxInt32))
		// The start's own row may come first, and is skipped.
		size = min(pageSize, (maxRows+1)*min(q.Count, pageSize))
	}
	var (
		out  []engine.Row
		last raw
		skip bool
		n    int // CQL rows of the partition, as PER PARTITION LIMIT counts them
	)
	now := time.Now().Unix()
	c := f.def.Comparator
	s := &cellScan{}
	dest := s.dest(true, f.writtenTTL, &cells)
	stmt := f.texts.scan.text(f, shape)
	err := st.pages(ctx, "scan", f.table, stmt, args, size, func(iter *gocql.Iter) (bool, error) {
		for iter.Scan(dest...) {
			kb := s.kb
			if last == nil || !bytes.Equal(kb, last) {
				// The first row of a partition.
				if len(out) == maxRows {
					return false, nil
				}
				key, tok, err := st.decodeKey(kb)
				if f.rawKey {
					key, tok, err = string(kb), st.part.Token(string(kb)), nil
				}
				if err != nil {
					return false, fmt.Errorf("%s: stored row key: %w", f.table, err)
				}
				if len(b.End) > 0 && bytes.Compare(tok, b.End) > 0 {
					return false, nil
				}
				last, n = kb, 0
				skip = !b.StartInclusive && bytes.Equal(tok, b.Start)
				if !skip {
					out = append(out, engine.Row{Key: key})
				}
			}
			keep := !skip && len(s.enc) > 0 // not a partition with only the ghost marker
			if value, ts, ttl, live := cells.merge(s.value, s.ts, s.ttl); keep && live {
				name, err := f.decodeScanned(c, s.enc)
				if err != nil {
					return false, fmt.Errorf("%s: stored column name: %w", f.table, err)
				}
				col := expiring(engine.Column{Name: name, Value: nonNil(value), Timestamp: ts}, ttl, now)
				r := &out[len(out)-1]
				r.Columns = append(r.Columns, asWritten(col, s.wrote))
			}
			s.clear()
			if n++; len(out) == maxRows && !skip && n == q.Count {
				// The last row is whole: asking for more would fetch a page.
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
