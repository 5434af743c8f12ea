package ldbstore

import (
	"bytes"
	"context"
	"encoding/binary"
	"sync"

	"github.com/syndtr/goleveldb/leveldb"
	"github.com/syndtr/goleveldb/leveldb/iterator"
	"github.com/syndtr/goleveldb/leveldb/opt"
	"github.com/syndtr/goleveldb/leveldb/util"

	"github.com/thriftd/thriftd/engine"
	"github.com/thriftd/thriftd/marshal"
	"github.com/thriftd/thriftd/schema"
)

// KEYS secondary indexes (engine.Indexer).
//
//	entry:  0x03 cf(4) len(2) column len(4) value row   row := RowKey(token, key); empty value
//	built:  0x00 'i' 'x' cf(4) len(2) column            present once the index covers every row
//
// An entry says that the row held the value in the column at some time:
// a write of an indexed column adds its entry in the write's own batch,
// and nothing else does, so an entry is never missing for a live value.
// Overwrites, deletions, row deletions and expiry leave the old entry
// behind; IndexedKeys checks each entry it meets against the row and
// deletes those that no longer hold (under the row's lock, so a write of
// the same value in between keeps its entry), as 1.2's KeysSearcher did.
//
// An index declared on a family that already holds rows is built in the
// background by one walk over the family; until the walk has finished
// (and its marker is written) IndexedKeys answers not ready, and queries
// scan. An index dropped, or the family dropped or truncated (which gives
// it a new id), has its entries deleted by the schema change itself, so
// that an index declared again at once starts from nothing.
const prefixIndex = 0x03

var metaIndexBuilt = []byte{prefixMeta, 'i', 'x'}

var _ engine.Indexer = (*Store)(nil)

// indexState is which indexes are usable and which are being built, by
// index prefix (0x03 cf(4) len(2) column).
type indexState struct {
	mu       sync.Mutex
	ready    map[string]bool
	building map[string]bool
}

// indexPrefix is where the entries of the index on column of the family
// with data prefix cf start.
func indexPrefix(cf, column []byte) []byte {
	p := make([]byte, 0, 7+len(column))
	p = append(append(p, prefixIndex), cf[1:]...)
	p = binary.BigEndian.AppendUint16(p, uint16(len(column)))
	return append(p, column...)
}

// valuePrefix is where the entries of value start in the index at ip.
func valuePrefix(ip, value []byte) []byte {
	p := make([]byte, 0, len(ip)+4+len(value)+24)
	p = append(p, ip...)
	p = binary.BigEndian.AppendUint32(p, uint32(len(value)))
	return append(p, value...)
}

func builtKey(ip []byte) []byte { return append(append([]byte(nil), metaIndexBuilt...), ip[1:]...) }

// keysIndexed lists f's columns that carry a KEYS index.
func keysIndexed(def *schema.ColumnFamily) [][]byte {
	var out [][]byte
	if def.Super {
		return nil
	}
	for i := range def.Columns {
		if ix := def.Columns[i].Index; ix != nil && ix.Type == schema.IndexKeys {
			out = append(out, def.Columns[i].Name)
		}
	}
	return out
}

// indexEntries adds to the batch the entry of every live write of an
// indexed column among muts, whether or not the write wins: a losing one
// only leaves an entry that IndexedKeys finds stale.
func (w *writer) indexEntries(f *family, key string, muts []engine.Mutation) {
	cols := keysIndexed(f.def)
	if len(cols) == 0 {
		return
	}
	var row []byte
	for _, m := range muts {
		if m.Delete || m.SuperColumn != nil || m.Name == nil {
			continue
		}
		for _, c := range cols {
			if bytes.Equal(c, m.Name) {
				if row == nil {
					row = w.st.part.RowKey(nil, key)
				}
				w.batch.Put(append(valuePrefix(indexPrefix(f.prefix, c), m.Value), row...), nil)
			}
		}
	}
}

// enterIndex enters the store for a read of the index of column when that
// index is built and still the family's: it answers the family and the
// index's prefix, and the caller must leave the store. A nil family means
// the store was not entered: err, or else the index is not ready (not
// built, truncated or changed meanwhile).
//
// Locks are taken in one order throughout: the index state's first, then
// the store's (enter), then a row's.
func (st *Store) enterIndex(keyspace, columnFamily string, column []byte) (*family, []byte, error) {
	ip, err := st.indexOf(keyspace, columnFamily, column)
	if err != nil || ip == nil {
		return nil, nil, err
	}
	st.idx.mu.Lock()
	ready := st.idx.ready[string(ip)]
	st.idx.mu.Unlock()
	if !ready {
		return nil, nil, nil
	}
	if err := st.enter(); err != nil {
		return nil, nil, err
	}
	f, err := st.family(keyspace, columnFamily)
	if err == nil && !bytes.Equal(indexPrefix(f.prefix, column), ip) {
		f = nil // truncated or changed meanwhile
	}
	if f == nil {
		st.leave()
		return nil, nil, err
	}
	return f, ip, nil
}

// IndexedKeys implements engine.Indexer.
//
// Locks are taken in one order throughout: the index state's first, then
// the store's (enter), then a row's.
func (st *Store) IndexedKeys(ctx context.Context, keyspace, columnFamily string, column, value []byte, b engine.TokenRange, max int) ([]string, bool, error) {
	f, ip, err := st.enterIndex(keyspace, columnFamily, column)
	if f == nil {
		return nil, false, err
	}
	defer st.leave()
	vp := valuePrefix(ip, value)
	it := st.db.NewIterator(util.BytesPrefix(vp), nil)
	defer it.Release()
	rows := newCursor(st.db.NewIterator(nil, nil))
	defer rows.Release()
	q := engine.Query{ColumnFamily: columnFamily, Predicate: engine.Predicate{Names: [][]byte{column}, Count: 1}}
	now := st.now()
	var keys []string
	var a arena
	for ok := it.Seek(append(append([]byte(nil), vp...), b.Start...)); ok && len(keys) < max; ok = it.Next() {
		key, tok, _, err := st.part.DecodeRowKey(it.Key()[len(vp):])
		if err != nil {
			return nil, false, err
		}
		if len(b.End) > 0 && bytes.Compare(tok, b.End) > 0 {
			break
		}
		if !b.StartInclusive && bytes.Equal(tok, b.Start) {
			continue
		}
		row := st.part.RowKey(append([]byte(nil), f.prefix...), key)
		r, err := readRow(rows, f, row, q, &a, now)
		if err != nil {
			return nil, false, err
		}
		if len(r.Columns) == 1 && bytes.Equal(r.Columns[0].Value, value) {
			keys = append(keys, key)
			continue
		}
		if err := st.dropStaleEntry(f, keyspace, key, row, q, value, clone(it.Key())); err != nil {
			return nil, false, err
		}
		if err := ctx.Err(); err != nil {
			return nil, false, err
		}
	}
	return keys, true, it.Error()
}

var _ engine.IndexReader = (*Store)(nil)

// IndexedRows implements engine.IndexReader: one walk of the index's
// entries for value, as IndexedKeys, where each entry's row is read once,
// from where one seek puts the iterator: its tombstone, what q selects,
// then the filter's columns (usually a few steps further on), which also
// decide whether the entry is stale.
func (st *Store) IndexedRows(ctx context.Context, keyspace, columnFamily string, column, value []byte, b engine.TokenRange, max int, filter [][]byte, q engine.Query) ([]engine.IndexedRow, bool, error) {
	f, ip, err := st.enterIndex(keyspace, columnFamily, column)
	if f == nil {
		return nil, false, err
	}
	defer st.leave()
	cmp := f.def.Comparator
	names := sortedNames(cmp, append(filter[:len(filter):len(filter)], column))
	fp := engine.Predicate{Names: names, Count: len(names)}
	vp := valuePrefix(ip, value)
	it := st.db.NewIterator(util.BytesPrefix(vp), nil)
	defer it.Release()
	rows := newCursor(st.db.NewIterator(nil, nil))
	defer rows.Release()
	now := st.now()
	var out []engine.IndexedRow
	var a arena
	var cs columnSlab
	var rowKey, scratch []byte
	for ok := it.Seek(append(append([]byte(nil), vp...), b.Start...)); ok && len(out) < max; ok = it.Next() {
		key, tok, _, err := st.part.DecodeRowKey(it.Key()[len(vp):])
		if err != nil {
			return nil, false, err
		}
		if len(b.End) > 0 && bytes.Compare(tok, b.End) > 0 {
			break
		}
		if !b.StartInclusive && bytes.Equal(tok, b.Start) {
			continue
		}
		// The entry ends with the row's key as the data region spells it.
		rowKey = append(append(rowKey[:0], f.prefix...), it.Key()[len(vp):]...)
		var r engine.IndexedRow
		if scratch, err = readIndexedRow(rows, f, rowKey, scratch, fp, q, &a, &cs, now, &r); err != nil {
			return nil, false, err
		}
		if holds(cmp, r.Filter, column, value) {
			r.Key = key
			out = append(out, r)
			continue
		}
		stale := engine.Query{ColumnFamily: columnFamily, Predicate: engine.Predicate{Names: [][]byte{column}, Count: 1}}
		if err := st.dropStaleEntry(f, keyspace, key, rowKey, stale, value, clone(it.Key())); err != nil {
			return nil, false, err
		}
		if err := ctx.Err(); err != nil {
			return nil, false, err
		}
	}
	if err := rows.Error(); err != nil {
		return nil, false, err
	}
	return out, true, it.Error()
}

// readIndexedRow reads the row at row into r: what q selects, then the
// columns of filter (a names predicate), both under the one row tombstone
// read first, their lists in cs. scratch is a key buffer, returned for
// the next row.
func readIndexedRow(it iterator.Iterator, f *family, row, scratch []byte, filter engine.Predicate, q engine.Query, a *arena, cs *columnSlab, now int64, r *engine.IndexedRow) ([]byte, error) {
	names := append(append(scratch[:0], row...), markTombstone)
	rowTomb, err := readTombstone(it, names)
	if err != nil {
		return names, err
	}
	names[len(names)-1] = markNames
	cs.begin()
	err = walkRowAt(it, f, names, rowTomb, q, a, now, cs.add,
		func(sc engine.SuperColumn) { r.SuperColumns = append(r.SuperColumns, sc) })
	r.Columns = cs.end()
	if err != nil {
		return names, err
	}
	cs.begin()
	err = walkColumns(it, f.def.Comparator, names, rowTomb, filter, a, now, cs.add)
	r.Filter = cs.end()
	return names, err
}

// columnSlab hands out the column lists of many rows from shared chunks,
// as arena does their bytes: one list at a time, begun by begin, built by
// add and taken, capped, by end.
type columnSlab struct {
	buf   []engine.Column
	start int
}

const columnChunk = 256

func (s *columnSlab) begin() { s.start = len(s.buf) }

func (s *columnSlab) add(c engine.Column) {
	if len(s.buf) == cap(s.buf) {
		// The list begun moves to a new chunk.
		n := make([]engine.Column, 0, max(columnChunk, 2*(len(s.buf)-s.start)))
		s.buf, s.start = append(n, s.buf[s.start:]...), 0
	}
	s.buf = append(s.buf, c)
}

// end is the list built since begin, nil when empty.
func (s *columnSlab) end() []engine.Column {
	if len(s.buf) == s.start {
		return nil
	}
	return s.buf[s.start:len(s.buf):len(s.buf)]
}

// holds reports whether cols hold column with value.
func holds(cmp marshal.Comparator, cols []engine.Column, column, value []byte) bool {
	for _, c := range cols {
		if cmp.Compare(c.Name, column) == 0 {
			return bytes.Equal(c.Value, value)
		}
	}
	return false
}

// indexOf is the prefix of the KEYS index on column, nil when there is
// none.
func (st *Store) indexOf(keyspace, columnFamily string, column []byte) ([]byte, error) {
	if err := st.enter(); err != nil {
		return nil, err
	}
	defer st.leave()
	f, err := st.family(keyspace, columnFamily)
	if err != nil {
		return nil, err
	}
	for _, c := range keysIndexed(f.def) {
		if bytes.Equal(c, column) {
			return indexPrefix(f.prefix, column), nil
		}
	}
	return nil, nil
}

// dropStaleEntry deletes an entry whose row no longer holds its value,
// after checking again under the row's lock.
func (st *Store) dropStaleEntry(f *family, keyspace, key string, row []byte, q engine.Query, value, entry []byte) error {
	l := &st.locks[st.stripe(keyspace, key)]
	l.Lock()
	defer l.Unlock()
	it := newCursor(st.db.NewIterator(nil, nil))
	defer it.Release()
	r, err := readRow(it, f, row, q, &arena{}, st.now())
	if err != nil {
		return err
	}
	if len(r.Columns) == 1 && bytes.Equal(r.Columns[0].Value, value) {
		return nil
	}
	err = st.db.Delete(entry, nil)
	st.noteWriteError(err)
	return err
}

// syncIndexes brings the indexes in line with the served families: it
// starts building those declared and not built, and deletes the entries
// of those no longer declared (dropped, or their family dropped or moved
// to a new id by truncate). Open and every schema change call it.
func (st *Store) syncIndexes() {
	st.idx.mu.Lock()
	defer st.idx.mu.Unlock()
	if st.idx.ready == nil {
		st.idx.ready, st.idx.building = map[string]bool{}, map[string]bool{}
	}
	if err := st.enter(); err != nil {
		return
	}
	type build struct {
		ks, cf string
		f      *family
		column []byte
		ip     []byte
	}
	wanted := map[string]bool{}
	var builds []build
	for name, f := range st.cfs {
		for _, c := range keysIndexed(f.def) {
			ip := indexPrefix(f.prefix, c)
			wanted[string(ip)] = true
			if st.idx.ready[string(ip)] || st.idx.building[string(ip)] {
				continue
			}
			if ok, err := st.db.Has(builtKey(ip), nil); err == nil && ok {
				st.idx.ready[string(ip)] = true
				continue
			}
			st.idx.building[string(ip)] = true
			builds = append(builds, build{name.keyspace, name.name, f, c, ip})
		}
	}
	// Indexes no longer declared: those this process knows and those a
	// marker records (dropped while a change was cut short).
	var gone [][]byte
	for ip := range st.idx.ready {
		if !wanted[ip] {
			gone = append(gone, []byte(ip))
		}
	}
	for ip := range st.idx.building {
		if !wanted[ip] {
			gone = append(gone, []byte(ip))
		}
	}
	it := st.db.NewIterator(util.BytesPrefix(metaIndexBuilt), nil)
	for it.Next() {
		ip := append([]byte{prefixIndex}, it.Key()[len(metaIndexBuilt):]...)
		if !wanted[string(ip)] && !st.idx.ready[string(ip)] {
			gone = append(gone, ip)
		}
	}
	it.Release()
	st.done.Add(len(builds)) // while Close cannot have begun waiting
	st.leave()
	for _, ip := range gone {
		delete(st.idx.ready, string(ip))
		delete(st.idx.building, string(ip))
		if err := st.deleteIndex(ip); err != nil {
			st.opts.Logger.Error("deleting a dropped index failed; retried at the next schema change or restart", "dir", st.dir, "err", err)
		}
	}
	for _, b := range builds {
		go st.buildIndex(b.ks, b.cf, b.f, b.column, b.ip)
	}
}

// deleteIndex deletes an index's entries, then its marker.
func (st *Store) deleteIndex(ip []byte) error {
	for {
		n, err := st.deleteSome(ip)
		if err != nil {
			return err
		}
		if n < deleteBatch {
			break
		}
	}
	if err := st.enter(); err != nil {
		return err
	}
	defer st.leave()
	return st.db.Delete(builtKey(ip), &opt.WriteOptions{Sync: true})
}

// buildPage is how many rows one step of an index build reads.
const buildPage = 1000

// buildIndex walks the family once, adding the entry of every row that
// holds the column, then records that the index is built. Writes made
// meanwhile add their own entries, since the family is already served
// with its index.
func (st *Store) buildIndex(keyspace, cf string, f *family, column, ip []byte) {
	defer st.done.Done()
	log := st.opts.Logger.With("keyspace", keyspace, "column_family", cf, "column", string(column))
	log.Info("building a secondary index")
	q := engine.Query{ColumnFamily: cf, Predicate: engine.Predicate{Names: [][]byte{column}, Count: 1}}
	b := engine.TokenRange{StartInclusive: true}
	entries := 0
	for {
		select {
		case <-st.stop:
			return
		default:
		}
		rows, err := st.Range(context.Background(), keyspace, b, q, buildPage)
		if err != nil {
			log.Error("building a secondary index failed; retried at the next schema change or restart", "err", err)
			st.idx.mu.Lock()
			delete(st.idx.building, string(ip))
			st.idx.mu.Unlock()
			return
		}
		batch := new(leveldb.Batch)
		for _, r := range rows {
			if len(r.Columns) == 1 {
				batch.Put(append(valuePrefix(ip, r.Columns[0].Value), st.part.RowKey(nil, r.Key)...), nil)
				entries++
			}
		}
		st.idx.mu.Lock()
		if !st.idx.building[string(ip)] {
			st.idx.mu.Unlock()
			return // dropped meanwhile: its entries are deleted
		}
		last := len(rows) < buildPage
		if last {
			batch.Put(builtKey(ip), nil)
		}
		err = st.writeIndexBatch(batch, last)
		if err == nil && last {
			delete(st.idx.building, string(ip))
			st.idx.ready[string(ip)] = true
		}
		st.idx.mu.Unlock()
		if err != nil {
			log.Error("building a secondary index failed; retried at the next schema change or restart", "err", err)
			return
		}
		if last {
			log.Info("secondary index built", "entries", entries)
			return
		}
		b = engine.TokenRange{Start: st.part.Token(rows[len(rows)-1].Key), End: b.End}
	}
}

func (st *Store) writeIndexBatch(batch *leveldb.Batch, sync bool) error {
	if err := st.enter(); err != nil {
		return err
	}
	defer st.leave()
	err := st.db.Write(batch, &opt.WriteOptions{Sync: sync})
	st.noteWriteError(err)
	return err
}
