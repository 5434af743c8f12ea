package ldbstore

import (
	"bytes"
	"context"
	"fmt"
	"sort"

	"github.com/syndtr/goleveldb/leveldb/iterator"

	"github.com/thriftd/thriftd/engine"
	"github.com/thriftd/thriftd/marshal"
	"github.com/thriftd/thriftd/schema"
)

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
	it := newCursor(st.db.NewIterator(nil, nil))
	defer it.Release()
	row := st.part.RowKey(append([]byte(nil), f.prefix...), key)
	out, err := readRow(it, f, row, q, &arena{}, st.now())
	if err != nil {
		return engine.Row{}, err
	}
	out.Key = key
	return out, it.Error()
}

// GetMany implements engine.Store with one iterator, which is one
// snapshot, visiting the rows in storage order.
func (st *Store) GetMany(ctx context.Context, keyspace string, keys []string, q engine.Query) ([]engine.Row, error) {
	if err := st.enter(); err != nil {
		return nil, err
	}
	defer st.leave()
	f, err := st.family(keyspace, q.ColumnFamily)
	if err != nil {
		return nil, err
	}
	rowKeys := make([][]byte, len(keys))
	order := make([]int, len(keys))
	for i, k := range keys {
		rowKeys[i] = st.part.RowKey(append([]byte(nil), f.prefix...), k)
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool { return bytes.Compare(rowKeys[order[a]], rowKeys[order[b]]) < 0 })
	it := newCursor(st.db.NewIterator(nil, nil))
	defer it.Release()
	out := make([]engine.Row, len(keys))
	var a arena
	now := st.now()
	for _, i := range order {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		r, err := readRow(it, f, rowKeys[i], q, &a, now)
		if err != nil {
			return nil, err
		}
		r.Key = keys[i]
		out[i] = r
	}
	return out, it.Error()
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
	it := newCursor(st.db.NewIterator(nil, nil))
	defer it.Release()
	row := st.part.RowKey(append([]byte(nil), f.prefix...), key)
	n := 0
	q := engine.Query{ColumnFamily: cf, SuperColumn: superColumn, Predicate: engine.Predicate{Count: -1}}
	err = walkRow(it, f, row, q, nil, st.now(), func(engine.Column) { n++ }, func(engine.SuperColumn) { n++ })
	if err != nil {
		return 0, err
	}
	return n, it.Error()
}

// readRow reads what q selects from the row whose data prefix is row,
// copying names and values out of the store into a. now is the read's
// clock in Unix seconds, against which expiring columns are judged.
func readRow(it iterator.Iterator, f *family, row []byte, q engine.Query, a *arena, now int64) (engine.Row, error) {
	var out engine.Row
	// Most slices ask for a few columns: room for up to 16 at the first,
	// rather than growing from one.
	hint := q.Count
	if q.Names != nil {
		hint = len(q.Names)
	}
	hint = max(min(hint, 16), 1)
	err := walkRow(it, f, row, q, a, now,
		func(c engine.Column) {
			if out.Columns == nil {
				out.Columns = make([]engine.Column, 0, hint)
			}
			out.Columns = append(out.Columns, c)
		},
		func(sc engine.SuperColumn) { out.SuperColumns = append(out.SuperColumns, sc) })
	return out, err
}

// walkRow calls col for each live column (or subcolumn) q selects, or sup
// for each live super column, in the order q asks for, at most q.Count
// times in all (a negative Count means no limit). The columns' names and
// values are copied into a (a nil arena copies each on its own).
func walkRow(it iterator.Iterator, f *family, row []byte, q engine.Query, a *arena, now int64, col func(engine.Column), sup func(engine.SuperColumn)) error {
	if q.Names == nil && q.Count == 0 {
		return nil
	}
	// One key buffer for the row tombstone, then the names' prefix.
	names := join(row, markTombstone)
	rowTomb, err := readTombstone(it, names)
	if err != nil {
		return err
	}
	names[len(names)-1] = markNames
	return walkRowAt(it, f, names, rowTomb, q, a, now, col, sup)
}

// walkRowAt is walkRow once the row's tombstone is read: names is the
// row's key followed by markNames.
func walkRowAt(it iterator.Iterator, f *family, names []byte, rowTomb tombstone, q engine.Query, a *arena, now int64, col func(engine.Column), sup func(engine.SuperColumn)) error {
	if q.Names == nil && q.Count == 0 {
		return nil
	}
	switch {
	case !f.def.Super:
		return walkColumns(it, f.def.Comparator, names, rowTomb, q.Predicate, a, now, col)
	case q.SuperColumn != nil:
		sc := f.def.Comparator.Encode(names, q.SuperColumn)
		scTomb, err := readTombstone(it, join(sc, markTombstone))
		if err != nil {
			return err
		}
		return walkColumns(it, f.def.SubComparator, join(sc, markNames), subShadow(rowTomb, sc[len(names):], scTomb), q.Predicate, a, now, col)
	default:
		return walkSupers(it, f.def, names, rowTomb, q.Predicate, now, sup)
	}
}

// subShadow is what shadows the subcolumns of the super column whose
// encoded name is enc: the row's deletion of the super column (whole, or
// by a range of super columns) and the super column's own tombstone,
// with its ranges of subcolumns.
func subShadow(rowTomb tombstone, enc []byte, scTomb tombstone) tombstone {
	at := rowTomb.over(enc)
	if scTomb.at > at {
		at = scTomb.at
	}
	return tombstone{at: at, ranges: scTomb.ranges}
}

// readTombstone reads the tombstone stored at key, if any. It leaves the
// iterator on the first entry after key, which is where a read of what
// the tombstone covers starts: a cursor then skips that seek.
func readTombstone(it iterator.Iterator, key []byte) (tombstone, error) {
	if !it.Seek(key) || !bytes.Equal(it.Key(), key) {
		return noTombstone, nil
	}
	t, err := decodeTombstone(it.Value())
	it.Next()
	return t, err
}

// sortedNames returns names in comparator order without repeats.
func sortedNames(c marshal.Comparator, names [][]byte) [][]byte {
	sorted := true
	for i := 1; i < len(names) && sorted; i++ {
		sorted = c.Compare(names[i-1], names[i]) < 0
	}
	if sorted {
		return names // as most are: one name, or the same list again
	}
	out := append([][]byte(nil), names...)
	sort.SliceStable(out, func(i, j int) bool { return c.Compare(out[i], out[j]) < 0 })
	uniq := out[:0]
	for i, n := range out {
		if i == 0 || c.Compare(n, uniq[len(uniq)-1]) != 0 {
			uniq = append(uniq, n)
		}
	}
	return uniq
}

// walkColumns visits the live columns under prefix p (each stored at p
// followed by the name's encoding) that pred selects, their names and
// values copied into a.
func walkColumns(it iterator.Iterator, c marshal.Comparator, p []byte, shadow tombstone, pred engine.Predicate, a *arena, now int64, visit func(engine.Column)) error {
	// emit visits the column at the iterator and reports whether it was live.
	emit := func() (bool, error) {
		cl, err := decodeCell(it.Value())
		if err != nil {
			return false, err
		}
		if !cl.live(now) || shadow.shadowsName(it.Key()[len(p):], cl.ts) {
			return false, nil
		}
		name, _, err := c.Decode(it.Key()[len(p):])
		if err != nil {
			return false, err
		}
		visit(engine.Column{Name: a.copy(name), Value: a.copy(cl.value), Timestamp: cl.ts, TTL: cl.ttl, ExpiresAt: int64(cl.expiresAt)})
		return true, nil
	}
	if marshal.HasSpellings(c) {
		return walkSpelled(it, c, p, shadow, pred, a, now, visit)
	}
	if pred.Names != nil {
		buf := append([]byte(nil), p...)
		for _, n := range sortedNames(c, pred.Names) {
			k := c.Encode(buf[:len(p)], n)
			if !seekForward(it, k) || !bytes.Equal(it.Key(), k) {
				continue
			}
			if _, err := emit(); err != nil {
				return err
			}
		}
		return nil
	}
	left := pred.Count
	finish := finishKey(c, p, pred)
	for ok := startScan(it, c, p, pred); ok && bytes.HasPrefix(it.Key(), p); ok = step(it, pred.Reversed) {
		if finish != nil && pastFinish(it.Key(), finish, pred.Reversed) {
			break
		}
		live, err := emit()
		if err != nil {
			return err
		}
		if live {
			if left--; left == 0 {
				break
			}
		}
	}
	return nil
}

// nameSteps is how many entries seekForward steps over before it seeks.
const nameSteps = 8

// seekForward positions it at the first entry at or after k, as Seek
// does, but steps there when k lies a few entries ahead of where it is:
// the names a read asks for usually lie among the first columns of a
// narrow row, and a LevelDB seek repositions every table of the tree.
func seekForward(it iterator.Iterator, k []byte) bool {
	if it.Valid() && bytes.Compare(it.Key(), k) < 0 {
		for range nameSteps {
			if !it.Next() {
				return false // nothing lies after where it was
			}
			if bytes.Compare(it.Key(), k) >= 0 {
				return true
			}
		}
	}
	return it.Seek(k)
}

func clone(b []byte) []byte { return append(make([]byte, 0, len(b)), b...) }

// arena copies bytes out of the store into shared chunks, so that a read
// allocates once per few kilobytes instead of twice per column. Each copy
// is capped at its own length: appending to one never overwrites another.
// A chunk stays alive while any copy in it is referenced, which suits
// results that live for one call. A nil arena clones each copy.
type arena struct{ buf []byte }

const (
	arenaChunk = 8 << 10
	// Copies larger than this get their own allocation, so that a large
	// value does not waste most of a chunk or pin a small one.
	arenaMaxCopy = arenaChunk / 8
)

func (a *arena) copy(b []byte) []byte {
	if a == nil || len(b) > arenaMaxCopy {
		return clone(b)
	}
	if cap(a.buf)-len(a.buf) < len(b) {
		a.buf = make([]byte, 0, arenaChunk)
	}
	n := len(a.buf)
	a.buf = append(a.buf, b...)
	return a.buf[n:len(a.buf):len(a.buf)]
}

// startScan positions it at the first entry of a range scan under p.
func startScan(it iterator.Iterator, c marshal.Comparator, p []byte, pred engine.Predicate) bool {
	if !pred.Reversed {
		if len(pred.Start) == 0 {
			return it.Seek(p)
		}
		if run, ok := marshal.Spellings(c, append([]byte(nil), p...), pred.Start); ok {
			return it.Seek(run) // every spelling of Start
		}
		return it.Seek(c.Encode(append([]byte(nil), p...), pred.Start))
	}
	// Reversed: the last entry at or before Start, including everything
	// stored under Start (a super column's subcolumns, every spelling).
	var target []byte
	if len(pred.Start) == 0 {
		target = after(p[:len(p)-1])
	} else if run, ok := marshal.Spellings(c, append([]byte(nil), p...), pred.Start); ok {
		target = marshal.PrefixEnd(run)
	} else {
		target = after(c.Encode(append([]byte(nil), p...), pred.Start))
	}
	if it.Seek(target) {
		return it.Prev()
	}
	return it.Last()
}

func step(it iterator.Iterator, reversed bool) bool {
	if reversed {
		return it.Prev()
	}
	return it.Next()
}

// finishKey returns the key that ends a range scan (nil when unbounded): a
// forward scan stops at keys at or past after(finish), a reversed scan at
// keys before finish's encoding.
func finishKey(c marshal.Comparator, p []byte, pred engine.Predicate) []byte {
	if len(pred.Finish) == 0 {
		return nil
	}
	if run, ok := marshal.Spellings(c, append([]byte(nil), p...), pred.Finish); ok {
		// Every spelling of Finish is within the bound.
		if pred.Reversed {
			return run
		}
		return marshal.PrefixEnd(run)
	}
	enc := c.Encode(append([]byte(nil), p...), pred.Finish)
	if pred.Reversed {
		return enc
	}
	return after(enc)
}

// spellingWins reports whether version a of one spelling of a name,
// stored at encoding ea, supersedes version b of another, at eb: as wins
// decides, and when neither wins (one timestamp, equal values) the
// greater name, so that every read, in either direction and on either
// store, keeps the same one. (Cassandra 1.2 kept the one written last.)
func spellingWins(a, b cell, ea, eb []byte, now int64) bool {
	if wins(a, b, now) {
		return true
	}
	return !wins(b, a, now) && bytes.Compare(ea, eb) > 0
}

// walkSpelled is walkColumns for a comparator whose names have several
// spellings (marshal.Spellings): the entries of one name's spellings
// lie side by side, and they are one column, the version that wins with
// the name it was written with, as in Cassandra 1.2. A deletion of one
// spelling so deletes the others written before it, and a store written
// before spellings were one column reads as one too.
func walkSpelled(it iterator.Iterator, c marshal.Comparator, p []byte, shadow tombstone, pred engine.Predicate, a *arena, now int64, visit func(engine.Column)) error {
	// run reconciles the entries under p+prefix from the iterator on, in
	// the scan's direction, leaving the iterator on the first entry after
	// them; it emits the winner when live.
	run := func(prefix []byte, reversed bool) (emitted, ok bool, err error) {
		var (
			best              cell
			bestName, bestEnc []byte
			seen              bool
		)
		for ok = true; ok && bytes.HasPrefix(it.Key(), prefix); ok = step(it, reversed) {
			cl, err := decodeCell(it.Value())
			if err != nil {
				return false, false, err
			}
			if seen && !spellingWins(cl, best, it.Key()[len(p):], bestEnc, now) {
				continue
			}
			name, _, err := c.Decode(it.Key()[len(p):])
			if err != nil {
				return false, false, err
			}
			cl.value = clone(cl.value)
			best, bestName, bestEnc, seen = cl, clone(name), clone(it.Key()[len(p):]), true
		}
		if !seen || !best.live(now) || shadow.shadows(best.ts) {
			return false, ok, nil
		}
		visit(engine.Column{Name: a.copy(bestName), Value: a.copy(best.value), Timestamp: best.ts, TTL: best.ttl, ExpiresAt: int64(best.expiresAt)})
		return true, ok, nil
	}
	if pred.Names != nil {
		buf := append([]byte(nil), p...)
		for _, n := range sortedNames(c, pred.Names) {
			prefix, _ := marshal.Spellings(c, buf[:len(p)], n)
			if !seekForward(it, prefix) {
				continue
			}
			if _, _, err := run(prefix, false); err != nil {
				return err
			}
		}
		return nil
	}
	left := pred.Count
	finish := finishKey(c, p, pred)
	ok := startScan(it, c, p, pred)
	for ok && bytes.HasPrefix(it.Key(), p) {
		if finish != nil && pastFinish(it.Key(), finish, pred.Reversed) {
			break
		}
		prefix, known := marshal.SpellingsOf(c, it.Key()[len(p):])
		if !known {
			return fmt.Errorf("%w: column name", marshal.ErrMalformed)
		}
		prefix = append(append([]byte(nil), p...), prefix...)
		emitted, more, err := run(prefix, pred.Reversed)
		if err != nil {
			return err
		}
		if emitted {
			if left--; left == 0 {
				break
			}
		}
		ok = more
	}
	return nil
}

func pastFinish(key, bound []byte, reversed bool) bool {
	if reversed {
		return bytes.Compare(key, bound) < 0
	}
	return bytes.Compare(key, bound) >= 0
}

// superGroup gathers the stored entries of one super column while a scan
// passes over them.
type superGroup struct {
	enc   []byte // the super column's key prefix: p + encoded name
	name  []byte
	tomb  tombstone
	names [][]byte
	cells []cell
}

// live returns the super column with its live subcolumns in ascending
// order, or false if none is live.
func (g *superGroup) live(sub marshal.Comparator, p []byte, rowTomb tombstone, reversed bool, now int64) (engine.SuperColumn, bool, error) {
	shadow := subShadow(rowTomb, g.enc[len(p):], g.tomb)
	sc := engine.SuperColumn{Name: clone(g.name)}
	var enc []byte
	for i, cl := range g.cells {
		if marshal.HasSpellings(sub) {
			// Of a name's spellings, side by side, the version that wins
			// (walkSpelled).
			prefix, _ := marshal.Spellings(sub, nil, g.names[i])
			if i > 0 {
				if p, _ := marshal.Spellings(sub, nil, g.names[i-1]); bytes.Equal(p, prefix) {
					continue // reconciled with the first of the run
				}
			}
			for j := i + 1; j < len(g.cells); j++ {
				if p, _ := marshal.Spellings(sub, nil, g.names[j]); !bytes.Equal(p, prefix) {
					break
				}
				if spellingWins(g.cells[j], cl, g.names[j], g.names[i], now) {
					cl, i = g.cells[j], j
				}
			}
		}
		if !cl.live(now) || shadow.shadows(cl.ts) {
			continue
		}
		if len(shadow.ranges) > 0 {
			// Ranges are of encoded names: encode this one.
			enc = sub.Encode(enc[:0], g.names[i])
			if shadow.shadowsName(enc, cl.ts) {
				continue
			}
		}
		sc.Columns = append(sc.Columns, engine.Column{Name: clone(g.names[i]), Value: clone(cl.value), Timestamp: cl.ts, TTL: cl.ttl, ExpiresAt: int64(cl.expiresAt)})
	}
	if reversed {
		for i, j := 0, len(sc.Columns)-1; i < j; i, j = i+1, j-1 {
			sc.Columns[i], sc.Columns[j] = sc.Columns[j], sc.Columns[i]
		}
	}
	return sc, len(sc.Columns) > 0, nil
}

// add records the entry at the iterator, which lies under g.enc.
func (g *superGroup) add(it iterator.Iterator, sub marshal.Comparator) error {
	rest := it.Key()[len(g.enc):]
	if len(rest) == 1 && rest[0] == markTombstone {
		t, err := decodeTombstone(it.Value())
		g.tomb = t
		return err
	}
	if len(rest) == 0 || rest[0] != markNames {
		return errCorrupt
	}
	name, _, err := sub.Decode(rest[1:])
	if err != nil {
		return err
	}
	cl, err := decodeCell(it.Value())
	if err != nil {
		return err
	}
	g.names = append(g.names, clone(name))
	cl.value = clone(cl.value)
	g.cells = append(g.cells, cl)
	return nil
}

// walkSupers visits the live super columns under prefix p (the names of a
// Super column family's row) that pred selects, each with all its live
// subcolumns.
func walkSupers(it iterator.Iterator, def *schema.ColumnFamily, p []byte, rowTomb tombstone, pred engine.Predicate, now int64, visit func(engine.SuperColumn)) error {
	c, sub := def.Comparator, def.SubComparator
	// group reads the super column whose entries start at the iterator,
	// moving in the scan's direction, and leaves the iterator on the first
	// entry after it (ok is false when the scan ran off the store).
	group := func(reversed bool) (g superGroup, ok bool, err error) {
		name, _, err := c.Decode(it.Key()[len(p):])
		if err != nil {
			return g, false, err
		}
		g = superGroup{name: clone(name), tomb: noTombstone}
		g.enc = c.Encode(append([]byte(nil), p...), name)
		ok = true
		for ok && bytes.HasPrefix(it.Key(), g.enc) {
			if err := g.add(it, sub); err != nil {
				return g, false, err
			}
			ok = step(it, reversed)
		}
		return g, ok, nil
	}
	if pred.Names != nil {
		buf := append([]byte(nil), p...)
		for _, n := range sortedNames(c, pred.Names) {
			k := c.Encode(buf[:len(p)], n)
			if !it.Seek(k) || !bytes.HasPrefix(it.Key(), k) {
				continue
			}
			g, _, err := group(false)
			if err != nil {
				return err
			}
			if sc, live, _ := g.live(sub, p, rowTomb, false, now); live {
				visit(sc)
			}
		}
		return nil
	}
	left := pred.Count
	finish := finishKey(c, p, pred)
	ok := startScan(it, c, p, pred)
	for ok && bytes.HasPrefix(it.Key(), p) {
		if finish != nil && pastFinish(it.Key(), finish, pred.Reversed) {
			break
		}
		var g superGroup
		var err error
		g, ok, err = group(pred.Reversed)
		if err != nil {
			return err
		}
		if sc, live, _ := g.live(sub, p, rowTomb, pred.Reversed, now); live {
			visit(sc)
			if left--; left == 0 {
				break
			}
		}
	}
	return nil
}

// now is the store's clock in Unix seconds, against which reads judge
// expiring columns.
func (st *Store) now() int64 { return st.opts.Now().Unix() }
