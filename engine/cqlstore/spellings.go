package cqlstore

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"sort"
	"sync/atomic"
	"time"

	"github.com/thriftd/thriftd/engine"
	"github.com/thriftd/thriftd/marshal"
)

// Spellings. A DynamicCompositeType component names its type by alias, by
// short or by full class name, and Cassandra 1.2 held the spellings of one
// name as one column: the version that won, with the name it was written
// with (marshal.Spellings). Each spelling is stored at its own
// encoding, as before, and the encodings of one name's spellings lie side
// by side, under one prefix. A write or deletion of one spelling at
// timestamp T also deletes every other spelling under that prefix (two
// range deletions in the same batch, so in the same partition update): a
// deletion at T, a write at T-1, so that what was written before it is
// gone, and what was written after it (a later timestamp, arriving first)
// outlives it, as in 1.2. A read keeps, of the spellings it finds live
// under one prefix, the one of the latest timestamp; on a tie the greater
// value, then the greater name (1.2 kept the one written last). Rows
// stored before each write deleted the other spellings read as one column
// too.

// spelled reports whether names compared by c are stored with their
// spellings side by side (an encoded column1, not the CQL type's own).
func spelled(f *family, c marshal.Comparator) bool {
	return !f.rawNames && marshal.HasSpellings(c)
}

// otherSpellings appends the deletions, at ts, of every spelling of the
// name stored at enc but enc itself (all of them when deleteOwn), in the
// row key (and super column sc, when not nil).
func (f *family) otherSpellings(out []statement, c marshal.Comparator, key, sc raw, name []byte, enc raw, ts int64, deleteOwn bool) []statement {
	prefix, _ := marshal.Spellings(c, nil, name)
	end := marshal.PrefixEnd(prefix)
	var shape spellingShape
	args := []any{ts, key}
	if sc != nil {
		shape |= spellingSuper
		args = append(args, sc)
	}
	with := func(extra ...any) []any { return append(append([]any(nil), args...), extra...) }
	if deleteOwn {
		return append(out, statement{f.texts.spellings.deletion(f, shape), with(raw(prefix), raw(end))})
	}
	// A write deletes the spellings written before it; one written at its
	// own timestamp stays, for reads to choose between them by value.
	if ts == math.MinInt64+1 {
		return out // nothing can be older
	}
	args[0] = ts - 1
	return append(out,
		statement{f.texts.spellings.deletion(f, shape), with(raw(prefix), enc)},
		statement{f.texts.spellings.deletion(f, shape|spellingAfter), with(enc, raw(end))})
}

// spellingShape tells apart the texts of readSpelled (spellingSuper,
// spellingFrom, spellingTo, spellingReversed, spellingLimit) and those
// of otherSpellings (spellingSuper, spellingAfter).
type spellingShape uint8

const (
	spellingSuper spellingShape = 1 << iota
	spellingFrom
	spellingTo
	spellingReversed
	spellingLimit
	spellingShapes
	// spellingAfter: a deletion from past a bound (> ?), not from it.
	spellingAfter = spellingFrom
)

// spellingTexts are a family's readSpelled and otherSpellings texts, built
// on first use and kept, as selectTexts are.
type spellingTexts struct {
	reads     [spellingShapes]atomic.Pointer[string]
	deletions [spellingSuper | spellingAfter + 1]atomic.Pointer[string]
}

// read is the text of readSpelled's statement of shape.
func (t *spellingTexts) read(f *family, shape spellingShape) string {
	if p := t.reads[shape].Load(); p != nil {
		return *p
	}
	stmt := `SELECT ` + f.col.column1 + `, ` + f.col.value + `, writetime(` + f.col.value + `), ttl(` + f.col.value + `)`
	if f.writtenTTL {
		stmt += `, written_ttl`
	}
	stmt += ` FROM ` + f.table + ` WHERE ` + f.col.key + ` = ?`
	if shape&spellingSuper != 0 {
		stmt += ` AND super_column = ?`
	}
	if shape&spellingFrom != 0 {
		stmt += ` AND ` + f.col.column1 + ` >= ?`
	}
	if shape&spellingTo != 0 {
		stmt += ` AND ` + f.col.column1 + ` < ?`
	}
	if shape&spellingReversed != 0 {
		if f.def.Super {
			stmt += ` ORDER BY super_column DESC, ` + f.col.column1 + ` DESC`
		} else {
			stmt += ` ORDER BY ` + f.col.column1 + ` DESC`
		}
	}
	if shape&spellingLimit != 0 {
		stmt += ` LIMIT ?`
	}
	t.reads[shape].Store(&stmt)
	return stmt
}

// deletion is the text of otherSpellings' deletion of shape: of the
// spellings from (or past, spellingAfter) a bound to another.
func (t *spellingTexts) deletion(f *family, shape spellingShape) string {
	if p := t.deletions[shape].Load(); p != nil {
		return *p
	}
	stmt := `DELETE FROM ` + f.table + ` USING TIMESTAMP ? WHERE ` + f.col.key + ` = ?`
	if shape&spellingSuper != 0 {
		stmt += ` AND super_column = ?`
	}
	if shape&spellingAfter != 0 {
		stmt += ` AND ` + f.col.column1 + ` > ?`
	} else {
		stmt += ` AND ` + f.col.column1 + ` >= ?`
	}
	stmt += ` AND ` + f.col.column1 + ` < ?`
	t.deletions[shape].Store(&stmt)
	return stmt
}

// readSpelled is readColumns for names with spellings: each name's
// spellings read as one column.
func (st *Store) readSpelled(ctx context.Context, f *family, key string, q engine.Query, c marshal.Comparator) ([]engine.Column, error) {
	var shape spellingShape
	args := []any{st.keyOf(f, key)}
	if q.SuperColumn != nil {
		shape |= spellingSuper
		args = append(args, f.encode(f.def.Comparator, q.SuperColumn))
	}
	with := func(extra ...any) []any { return append(append([]any(nil), args...), extra...) }
	if q.Names != nil {
		names := append([][]byte(nil), q.Names...)
		sort.SliceStable(names, func(i, j int) bool { return c.Compare(names[i], names[j]) < 0 })
		stmt := f.texts.spellings.read(f, shape|spellingFrom|spellingTo)
		var out []engine.Column
		for i, n := range names {
			if i > 0 && c.Compare(n, names[i-1]) == 0 {
				continue
			}
			prefix, _ := marshal.Spellings(c, nil, n)
			cols, _, err := st.scanSpelled(ctx, f, c, stmt, with(raw(prefix), raw(marshal.PrefixEnd(prefix))))
			if err != nil {
				return nil, err
			}
			out = append(out, cols...)
		}
		return out, nil
	}
	lo, hi := q.Start, q.Finish
	if q.Reversed {
		lo, hi = q.Finish, q.Start
		shape |= spellingReversed
	}
	var bounds []any
	if len(lo) > 0 {
		prefix, _ := marshal.Spellings(c, nil, lo)
		shape |= spellingFrom
		bounds = append(bounds, raw(prefix))
	}
	if len(hi) > 0 {
		prefix, _ := marshal.Spellings(c, nil, hi)
		shape |= spellingTo
		bounds = append(bounds, raw(marshal.PrefixEnd(prefix)))
	}
	if q.Count <= 0 {
		cols, _, err := st.scanSpelled(ctx, f, c, f.texts.spellings.read(f, shape), with(bounds...))
		return cols, err
	}
	// Spellings that another outlived take a place of the LIMIT: read
	// again with room for them until a name past the count shows that the
	// last one's spellings were all read, or the row ends.
	stmt := f.texts.spellings.read(f, shape|spellingLimit)
	limit := q.Count + 1
	for {
		cols, rows, err := st.scanSpelled(ctx, f, c, stmt, with(append(bounds, min(limit, math.MaxInt32))...))
		if err != nil {
			return nil, err
		}
		if len(cols) > q.Count || rows < limit || limit >= math.MaxInt32 {
			return cols[:min(len(cols), q.Count)], nil
		}
		limit += q.Count + 1 - len(cols)
	}
}

// scanSpelled runs a read of columns in column1 order (either way) and
// returns them with each name's spellings reconciled, and the number of
// CQL rows read.
func (st *Store) scanSpelled(ctx context.Context, f *family, c marshal.Comparator, stmt string, args []any) ([]engine.Column, int, error) {
	iter := st.readQuery(ctx, stmt, args...).PageSize(pageSize).Iter()
	var (
		out     []engine.Column
		run     []byte // the spellings' prefix of out's last column
		rows    int
		enc     raw
		value   raw
		ts      int64
		ttl     *int32
		wrote   *int32
		bestEnc []byte // the stored name of out's last column
	)
	now := time.Now().Unix()
	dest := []any{&enc, &value, &ts, &ttl}
	if f.writtenTTL {
		dest = append(dest, &wrote)
	}
	for iter.Scan(dest...) {
		rows++
		if len(enc) == 0 {
			continue // a partition with only the ghost marker
		}
		name, err := f.decode(c, enc)
		if err != nil {
			iter.Close()
			return nil, rows, fmt.Errorf("%s: stored column name: %w", f.table, err)
		}
		col := asWritten(expiring(engine.Column{Name: name, Value: nonNil(value), Timestamp: ts}, ttl, now), wrote)
		prefix, _ := marshal.SpellingsOf(c, enc)
		switch {
		case len(out) > 0 && bytes.Equal(prefix, run):
			if newerSpelling(col, out[len(out)-1], enc, bestEnc) {
				out[len(out)-1] = col
				bestEnc = append(bestEnc[:0], enc...)
			}
		default:
			out = append(out, col)
			run = append(run[:0], prefix...)
			bestEnc = append(bestEnc[:0], enc...)
		}
		enc, value, ttl, wrote = nil, nil, nil, nil
	}
	return out, rows, clusterError(ctx, "read "+f.table, iter.Close())
}

// newerSpelling reports whether a, a live spelling of a name stored at
// ea, outlives b, stored at eb: the later timestamp, then the greater
// value, then the greater name, so that every read, in either direction,
// keeps the same one.
func newerSpelling(a, b engine.Column, ea, eb []byte) bool {
	if a.Timestamp != b.Timestamp {
		return a.Timestamp > b.Timestamp
	}
	if c := bytes.Compare(a.Value, b.Value); c != 0 {
		return c > 0
	}
	return bytes.Compare(ea, eb) > 0
}
