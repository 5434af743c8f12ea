package ldbstore

import (
	"bytes"
	"context"
	"encoding/binary"
	"hash/maphash"
	"math"
	"sort"
	"unsafe"

	"github.com/syndtr/goleveldb/leveldb"
	"github.com/syndtr/goleveldb/leveldb/util"

	"github.com/thriftd/thriftd/engine"
	"github.com/thriftd/thriftd/marshal"
)

// Apply implements engine.Store. Every row of the call is written in one
// LevelDB batch, so the whole call is atomic, not only each row.
//
// Writes reconcile against what is stored under a per-row lock, so
// LevelDB holds only the winning version of each column: a write newer
// than anything its row's slot holds is written blind, any other reads
// the stored version and is dropped if that wins (newest.go).
func (st *Store) Apply(ctx context.Context, keyspace string, rows []engine.RowMutation) error {
	return st.apply(ctx, keyspace, rows, false)
}

// apply is Apply; counters is set when ApplyCounters writes, which keeps
// the counter cache itself. Only ApplyCounters writes counters (the
// handlers refuse plain writes into a counter family), but a tool may:
// a plain write into a family whose counters are cached makes the cache
// forget what it knew (counter.go).
func (st *Store) apply(ctx context.Context, keyspace string, rows []engine.RowMutation, counters bool) error {
	st.resumeWrites()
	if err := st.enter(); err != nil {
		return err
	}
	defer st.leave()
	unlock := st.lockRows(keyspace, rows)
	defer unlock()

	size, count := 0, 0
	newest := int64(math.MinInt64)
	for _, r := range rows {
		count += len(r.Mutations)
		for _, m := range r.Mutations {
			size += len(r.Key) + len(m.SuperColumn) + len(m.Name) + len(m.Value) + 48
			newest = max(newest, m.Timestamp)
		}
	}
	// Nothing is stored above the stored bound (newest.go).
	if err := st.raiseTimestampCeiling(newest); err != nil {
		st.noteWriteError(err)
		return err
	}
	w := &writer{st: st, batch: leveldb.MakeBatch(size), baseSlot: -1,
		now: uint32(st.opts.Now().Unix()), size: size, counters: counters}
	if count > 1 {
		// A single mutation has nothing later in its call to reconcile
		// with, so it stages nothing.
		w.staged = make(map[string][]byte, count)
	}
	for _, r := range rows {
		if err := w.row(keyspace, r); err != nil {
			return err
		}
	}
	if w.batch.Len() == 0 {
		return nil
	}
	err := st.db.Write(w.batch, st.writeOptions())
	st.noteWriteError(err)
	w.noteHeads(err)
	if w.cachedCounters {
		st.counters.invalidateCounters()
	}
	return err
}

// rowRef names a row by its lock stripe and its data prefix.
type rowRef struct {
	stripe int
	row    string
}

// noteHeads records, under the rows' locks, what the written batch did to
// their markers: a skipped one is counted whatever happened, as the data
// may be stored; a marker put only once written. Skipped rows first: a
// row forgotten to make room for a marked one hands its sequence number
// to its stripe.
func (w *writer) noteHeads(err error) {
	if len(w.skipped) > 0 {
		seq := w.st.heads.writeSeq.Add(1)
		for _, r := range w.skipped {
			r.lastSkip = max(r.lastSkip, seq)
		}
	}
	if err == nil {
		for _, r := range w.marked {
			w.st.noteMarked(r.stripe, r.row)
		}
	}
}

// lockRows takes the stripe locks of every row in rows, in stripe order so
// that two callers never wait on each other, and returns their release.
func (st *Store) lockRows(keyspace string, rows []engine.RowMutation) func() {
	if len(rows) == 1 {
		l := &st.locks[st.stripe(keyspace, rows[0].Key)]
		l.Lock()
		return l.Unlock
	}
	stripes := make([]int, 0, len(rows))
	seen := map[int]bool{}
	for _, r := range rows {
		s := st.stripe(keyspace, r.Key)
		if !seen[s] {
			seen[s] = true
			stripes = append(stripes, s)
		}
	}
	sort.Ints(stripes)
	for _, s := range stripes {
		st.locks[s].Lock()
	}
	return func() {
		for _, s := range stripes {
			st.locks[s].Unlock()
		}
	}
}

func (st *Store) stripe(keyspace, key string) int { return st.slot(keyspace, key) % lockStripes }

func (st *Store) rowHash(keyspace, key string) uint64 {
	var h maphash.Hash
	h.SetSeed(st.seed)
	h.WriteString(keyspace)
	h.WriteByte(0)
	h.WriteString(key)
	return h.Sum64()
}

// writer builds one batch; staged holds what the batch has written so far,
// so later mutations of the same call reconcile against it.
type writer struct {
	st     *Store
	batch  *leveldb.Batch
	staged map[string][]byte
	purge  map[string]bool
	now    uint32
	slot   int // the newest-timestamp slot of the row being written
	// base holds each slot's bound as it was before this call wrote:
	// what LevelDB stores in the slot is no newer. The first slot the
	// call writes is kept in baseSlot and baseNewest (most calls write
	// one row), further ones in base.
	base       map[int]int64
	baseSlot   int
	baseNewest int64
	slotBase   int64 // the base of slot
	// buf is the chunk keys and cells are encoded into (room, keep);
	// size bounds what the call's keys and cells take.
	buf  []byte
	size int
	mbuf []byte // marker keys and values, copied by the batch
	// The rows whose markers the batch puts, and what their stripes know
	// of those whose markers it leaves as they are, noted once the batch
	// is written (head.go).
	marked  []rowRef
	skipped []*staleRow
	// counters is set when ApplyCounters writes; cachedCounters when
	// another call writes into a family whose counters may be cached.
	counters, cachedCounters bool
}

func (w *writer) get(key []byte) ([]byte, bool, error) {
	if v, ok := w.staged[string(key)]; ok {
		return v, true, nil
	}
	w.st.writeReads.Add(1)
	v, err := w.st.db.Get(key, nil)
	if err == leveldb.ErrNotFound {
		return nil, false, nil
	}
	return v, err == nil, err
}

// prefetchMin is the number of columns of one row from which prefetch
// reads them all in one ordered walk rather than one Get each. A Get
// searches every level of the LevelDB tree for its key; the walk seeks
// once and then mostly steps to the next entry, since a row's columns lie
// side by side. Below this size the iterator's set-up costs more than it
// saves.
const prefetchMin = 16

// prefetch reads the stored values of keys, all in the row whose data
// prefix is row, and returns them by the keys' positions: nil where keys
// holds nil, absent where nothing is stored (a stored cell is never
// empty). The
// caller holds the row's lock, so they stay current until the batch is
// written.
func (w *writer) prefetch(row []byte, keys [][]byte) ([][]byte, error) {
	order := make([]int, 0, len(keys))
	for i, k := range keys {
		if k != nil {
			order = append(order, i)
		}
	}
	sort.Slice(order, func(a, b int) bool { return bytes.Compare(keys[order[a]], keys[order[b]]) < 0 })
	w.st.writeReads.Add(1)
	first := keys[order[0]]
	it := w.st.db.NewIterator(&util.Range{Start: first, Limit: after(row)}, nil)
	defer it.Release()
	vals := make([][]byte, len(keys))
	var a arena
	// A few steps forward are cheaper than a seek, which repositions every
	// level of the tree.
	const maxSteps = 8
	ok := it.Seek(first)
	for j, i := range order {
		k := keys[i]
		if j > 0 {
			for n := 0; ok && n < maxSteps && bytes.Compare(it.Key(), k) < 0; n++ {
				ok = it.Next()
			}
			if ok && bytes.Compare(it.Key(), k) < 0 {
				ok = it.Seek(k)
			}
		}
		if ok && bytes.Equal(it.Key(), k) {
			vals[i] = a.copy(it.Value())
		} else {
			vals[i] = absent
		}
	}
	return vals, it.Error()
}

// stored returns the version key holds for this call: what the call
// wrote there already, else what prefetch read into stored at i, else
// (when it was not prefetched) what LevelDB holds.
func (w *writer) stored(key []byte, stored [][]byte, i int) ([]byte, bool, error) {
	if _, staged := w.staged[string(key)]; staged || stored == nil || stored[i] == nil {
		return w.get(key)
	}
	return stored[i], len(stored[i]) > 0, nil
}

// absent is what prefetch read where nothing is stored.
var absent = []byte{}

// put stages value, a version with timestamp ts, at key. Neither may be
// modified afterwards: the staging map keeps them, key's bytes as its
// string, without a copy.
func (w *writer) put(key, value []byte, ts int64) {
	if w.staged != nil {
		w.staged[unsafe.String(unsafe.SliceData(key), len(key))] = value
	}
	w.batch.Put(key, value)
	if n := &w.st.newest[w.slot]; ts > *n {
		*n = ts
	}
}

// blind reports whether a version with timestamp ts at key wins over
// whatever its row stores by timestamp alone, and this call has not
// written key already (that version is reconciled against).
func (w *writer) blind(key []byte, ts int64) bool {
	if ts <= w.slotBase {
		return false
	}
	_, staged := w.staged[string(key)]
	return !staged
}

func (w *writer) tombstone(key []byte) (tombstone, error) {
	v, ok, err := w.get(key)
	if err != nil || !ok {
		return noTombstone, err
	}
	return decodeTombstone(v)
}

// notePurge records that row holds a tombstone written now, so Purge
// visits it once GCGraceSeconds have passed.
func (w *writer) notePurge(row []byte) { w.notePurgeAt(row, w.now) }

// notePurgeAt records that row holds a tombstone from second at (an
// expiring column's expiry), so Purge visits it GCGraceSeconds after.
func (w *writer) notePurgeAt(row []byte, at uint32) {
	k := binary.BigEndian.AppendUint32([]byte{prefixPurge}, at)
	k = append(k, row[1:]...) // cf id and row key, without the data prefix
	if !w.purge[string(k)] {
		if w.purge == nil {
			w.purge = map[string]bool{}
		}
		w.purge[string(k)] = true
		w.batch.Put(k, nil)
	}
}

// deleteTo raises the tombstone at key to t, if t is later.
func (w *writer) deleteTo(key, row []byte, t tombstone) (tombstone, error) {
	if w.blind(key, t.at) {
		w.put(key, appendTombstone(nil, t), t.at)
		w.notePurge(row)
		return t, nil
	}
	cur, err := w.tombstone(key)
	if err != nil {
		return cur, err
	}
	if cur.set() && cur.at >= t.at {
		return cur, nil
	}
	// Range deletions later than t stay.
	t = cur.raisedTo(t)
	w.put(key, appendTombstone(nil, t), t.at)
	w.notePurge(row)
	return t, nil
}

// deleteRange adds the range deletion r to the tombstone at key (the
// row's, or a super column's), unless that already shadows it.
func (w *writer) deleteRange(key, row []byte, r rangeTomb) error {
	cur, err := w.tombstone(key)
	if err != nil {
		return err
	}
	next, changed := cur.withRange(r)
	if !changed {
		return nil
	}
	w.put(key, appendTombstone(nil, next), r.at)
	w.notePurge(row)
	return nil
}

// nameRange is the stored form of the range deletion of the names c
// orders: what a forward slice from rg.Start to rg.Finish reads.
func nameRange(c marshal.Comparator, rg *engine.NameRange, at int64, now uint32) rangeTomb {
	r := rangeTomb{lo: []byte{}, at: at, localTime: now}
	if len(rg.Start) > 0 {
		r.lo = c.Encode(nil, rg.Start)
	}
	if len(rg.Finish) > 0 {
		r.hi = append(c.Encode(nil, rg.Finish), markEnd)
	}
	return r
}

func (w *writer) row(keyspace string, r engine.RowMutation) error {
	w.slot = w.st.slot(keyspace, r.Key)
	switch b, ok := w.base[w.slot]; {
	case w.baseSlot < 0:
		w.baseSlot, w.baseNewest = w.slot, w.st.newest[w.slot]
		w.slotBase = w.baseNewest
	case w.baseSlot == w.slot:
		w.slotBase = w.baseNewest
	case ok:
		w.slotBase = b
	default:
		if w.base == nil {
			w.base = map[int]int64{}
		}
		w.slotBase = w.st.newest[w.slot]
		w.base[w.slot] = w.slotBase
	}
	if single(r.Mutations) {
		if len(r.Mutations) == 0 {
			return nil
		}
		f, err := w.st.family(keyspace, r.Mutations[0].ColumnFamily)
		if err != nil {
			return err
		}
		return w.family(f, r.Key, r.Mutations)
	}
	// Group by column family, keeping the order within each.
	var order []string
	byCF := map[string][]engine.Mutation{}
	for _, m := range r.Mutations {
		if _, ok := byCF[m.ColumnFamily]; !ok {
			order = append(order, m.ColumnFamily)
		}
		byCF[m.ColumnFamily] = append(byCF[m.ColumnFamily], m)
	}
	for _, cf := range order {
		f, err := w.st.family(keyspace, cf)
		if err != nil {
			return err
		}
		if err := w.family(f, r.Key, byCF[cf]); err != nil {
			return err
		}
	}
	return nil
}

// single reports whether every mutation is of one column family, as most
// rows of a call are, so they need no regrouping.
func single(muts []engine.Mutation) bool {
	for i := 1; i < len(muts); i++ {
		if muts[i].ColumnFamily != muts[0].ColumnFamily {
			return false
		}
	}
	return true
}

func (w *writer) family(f *family, key string, muts []engine.Mutation) (err error) {
	switch {
	case w.counters:
		// Marked before the cache can hold a total of f: a plain write
		// after it sees the mark.
		if !f.countersCached.Load() {
			f.countersCached.Store(true)
		}
	case f.countersCached.Load():
		w.cachedCounters = true
	}
	row := w.st.part.RowKey(append([]byte(nil), f.prefix...), key)
	w.indexEntries(f, key, muts)
	// Whatever the row's data gets, its head is stale (head.go): the
	// row's marker moves on, unless the row is known stale already.
	before := w.batch.Len()
	defer func() {
		if err == nil && w.batch.Len() > before {
			s := w.slot % lockStripes // the row's lock stripe (Store.stripe)
			if r := w.st.skipMarker(s, row); r != nil {
				w.skipped = append(w.skipped, r)
				return
			}
			if w.mbuf, err = w.st.putMarker(w.batch, w.mbuf, row); err == nil {
				w.marked = append(w.marked, rowRef{s, string(row)})
			}
		}
	}()
	// Tombstones first, so that writes in the same mutation reconcile
	// against them whatever the order (an insert and a deletion with the
	// same timestamp: the deletion wins).
	var rowDel *engine.Mutation
	for i := range muts {
		if m := &muts[i]; m.IsRowDeletion() {
			rowDel = m // 0.6 set, rather than merged, a mutation's row tombstone
		}
	}
	// Only tombstones this mutation writes are looked at. A write shadowed
	// by an older stored tombstone is stored anyway: reads filter it out
	// and Purge removes it, and skipping the lookup spares every write a
	// LevelDB read.
	rowTomb := noTombstone
	if rowDel != nil {
		var err error
		if rowTomb, err = w.deleteTo(join(row, markTombstone), row, tombstone{at: rowDel.Timestamp, localTime: w.now}); err != nil {
			return err
		}
	}
	names := join(row, markNames)
	// Where each column is stored, encoded once for the prefetch and the
	// writes; nil for mutations that name no column.
	keys := make([][]byte, len(muts))
	slow := 0 // columns that are not newer than the row's slot: they read
	for i, m := range muts {
		if m.Name != nil {
			keys[i] = w.columnKey(f, names, m)
			if !w.blind(keys[i], m.Timestamp) {
				slow++
			}
		}
	}
	// What is stored at the keys of the columns that read, when there are
	// enough of them to read in one walk; nil where not read.
	var stored [][]byte
	if slow >= prefetchMin {
		want := make([][]byte, len(keys))
		for i, m := range muts {
			if keys[i] != nil && !w.blind(keys[i], m.Timestamp) {
				want[i] = keys[i]
			}
		}
		var err error
		if stored, err = w.prefetch(row, want); err != nil {
			return err
		}
	}
	var scTombs map[string]tombstone // super column tombstones this mutation writes
	for _, m := range muts {
		if m.Delete && m.SuperColumn != nil && m.Name == nil && m.Range == nil {
			sc := f.def.Comparator.Encode(append([]byte(nil), names...), m.SuperColumn)
			t, err := w.deleteTo(join(sc, markTombstone), row, tombstone{at: m.Timestamp, localTime: w.now})
			if err != nil {
				return err
			}
			if scTombs == nil {
				scTombs = map[string]tombstone{}
			}
			scTombs[string(m.SuperColumn)] = t
		}
	}
	// Range deletions, after the row and super column deletions they
	// merge with: kept in the row's tombstone (its columns or super
	// columns) or in a super column's (its subcolumns).
	for _, m := range muts {
		if !m.Delete || m.Range == nil || m.Name != nil {
			continue
		}
		at := join(row, markTombstone)
		c := f.def.Comparator
		if m.SuperColumn != nil {
			at = join(f.def.Comparator.Encode(append([]byte(nil), names...), m.SuperColumn), markTombstone)
			c = f.def.SubComparator
		}
		if err := w.deleteRange(at, row, nameRange(c, m.Range, m.Timestamp, w.now)); err != nil {
			return err
		}
	}
	for i, m := range muts {
		key := keys[i]
		if key == nil {
			continue
		}
		shadow := rowTomb
		if m.SuperColumn != nil {
			if t, ok := scTombs[string(m.SuperColumn)]; ok {
				shadow = later(shadow, t)
			}
		}
		if shadow.shadows(m.Timestamp) {
			continue
		}
		next := cell{ts: m.Timestamp, deleted: m.Delete, value: m.Value}
		if m.Delete {
			next.value = binary.BigEndian.AppendUint32(nil, w.now)
		} else if m.TTL > 0 {
			next.ttl, next.expiresAt = m.TTL, expiry(w.now, m.TTL)
		}
		if w.blind(key, m.Timestamp) {
			w.put(key, w.cell(next), next.ts)
			if m.Delete {
				w.notePurge(row)
			} else if next.expiresAt != 0 {
				w.notePurgeAt(row, next.expiresAt)
			}
			continue
		}
		old, ok, err := w.stored(key, stored, i)
		if err != nil {
			return err
		}
		if ok {
			prev, err := decodeCell(old)
			if err != nil {
				return err
			}
			if !wins(next, prev, int64(w.now)) {
				continue
			}
		}
		w.put(key, w.cell(next), next.ts)
		if m.Delete {
			w.notePurge(row)
		} else if next.expiresAt != 0 {
			w.notePurgeAt(row, next.expiresAt)
		}
	}
	return nil
}

// columnKey is where the column or subcolumn m names is stored.
func (w *writer) columnKey(f *family, names []byte, m engine.Mutation) []byte {
	if m.SuperColumn != nil {
		sc := f.def.Comparator.Encode(append([]byte(nil), names...), m.SuperColumn)
		return f.def.SubComparator.Encode(join(sc, markNames), m.Name)
	}
	b, n := w.room(len(names) + len(m.Name) + 8)
	return w.keep(f.def.Comparator.Encode(append(b, names...), m.Name), n)
}

// cell encodes c into the writer's chunk.
func (w *writer) cell(c cell) []byte {
	b, n := w.room(17 + len(c.value))
	return w.keep(appendCell(b, c), n)
}

// writeChunk is the size of the chunks a writer encodes keys and cells
// into: a 100-column row takes one or two rather than 200 allocations.
const writeChunk = 8 << 10

// room returns the writer's chunk, with at least n bytes free when it can
// (an encoding may outgrow the estimate: append then moves it), and the
// length where the next encoding starts.
func (w *writer) room(n int) ([]byte, int) {
	if cap(w.buf)-len(w.buf) < n {
		// The first chunk is sized by the call, so that a one-column
		// insert does not pay for 8 KiB.
		w.buf = make([]byte, 0, max(min(writeChunk, w.size), n))
		w.size = writeChunk
	}
	return w.buf, len(w.buf)
}

// keep makes b, the chunk extended by an encoding from n, the writer's
// chunk and returns the encoding, capped so that appending to it cannot
// reach the next one. Encodings handed out are never written again.
func (w *writer) keep(b []byte, n int) []byte {
	w.buf = b
	return b[n:len(b):len(b)]
}
