package ldbstore

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/syndtr/goleveldb/leveldb"
	"github.com/syndtr/goleveldb/leveldb/iterator"
	"github.com/syndtr/goleveldb/leveldb/opt"
	"github.com/syndtr/goleveldb/leveldb/util"

	"github.com/thriftd/thriftd/engine"
)

// Row heads. A range scan reads a few columns of each row and must then
// leave the row; over the data region that is one LevelDB seek per row,
// and a seek repositions every source of LevelDB's merged iterator (the
// memtables, each level-0 table, each level), which after a bulk load was
// two thirds of a scan's CPU. The head region holds, for every row, a
// copy of the row's first stored entries, so that a scan steps from row
// to row through heads and reads the data region only for what a head
// cannot answer.
//
//	head:   0x04 cf(4) row 0x00     marker: version(8)
//	        0x04 cf(4) row 0x01     head: version(8) flags(1) count(1) entries
//
// A head's entries are the row's first stored entries (the suffixes of
// their data keys after the row, and their values as stored: tombstones
// and expiring cells included, so liveness is still judged at read time),
// each as uvarint(len) suffix uvarint(len) value; flag headComplete says
// they are all of the row.
//
// Writes stay blind: every write puts the row's marker with a version
// never used before, in the same batch as the data, so a crash keeps or
// loses both. A head is current when its version is its row's marker's;
// otherwise a scan reads the row from the data region, as it would
// without heads, and writes a head carrying the marker version it read,
// from the same snapshot. A write racing with that leaves a marker with a
// newer version, so the head it races with is never taken for current.
// Versions are an epoch, raised and synced at each Open, above a counter.
const (
	prefixHead = 0x04

	markHeadMarker = 0x00
	markHeadBody   = 0x01

	headComplete = 0x01
)

// The size of a head: at most headEntries entries (255 at most: count is
// one byte) and headBytes bytes of suffixes and values. A row that fits
// is stored twice; a wider one costs its first entries again. Variables
// so that tests can narrow them.
var (
	headEntries = 8
	headBytes   = 512
)

var metaHeadEpoch = []byte{prefixMeta, 'h', 'e', 'p', 'o', 'c', 'h'}

// versionBits is the width of the counter under the epoch.
const versionBits = 40

// headClock hands out marker versions.
type headClock struct {
	next  atomic.Uint64
	limit atomic.Uint64 // first version of the next epoch, not yet stored
	mu    sync.Mutex
	// writeSeq numbers the writes that skip markers (staleRows below).
	writeSeq atomic.Uint64
}

// loadHeadClock raises the stored epoch, synced, so that no version this
// run gives out was given out before.
func (st *Store) loadHeadClock() error {
	var epoch uint64
	raw, err := st.db.Get(metaHeadEpoch, nil)
	switch {
	case err == leveldb.ErrNotFound:
	case err != nil:
		return fmt.Errorf("%s: read row head epoch: %w", st.dir, err)
	case len(raw) != 8:
		return fmt.Errorf("%s: row head epoch %x: %w", st.dir, raw, errCorrupt)
	default:
		epoch = binary.BigEndian.Uint64(raw)
	}
	epoch++
	if err := st.db.Put(metaHeadEpoch, binary.BigEndian.AppendUint64(nil, epoch), &opt.WriteOptions{Sync: true}); err != nil {
		return fmt.Errorf("%s: store row head epoch: %w", st.dir, err)
	}
	st.heads.next.Store(epoch << versionBits)
	st.heads.limit.Store((epoch + 1) << versionBits)
	return nil
}

// nextVersion returns a marker version never given out before.
func (st *Store) nextVersion() (uint64, error) {
	v := st.heads.next.Add(1)
	if v < st.heads.limit.Load() {
		return v, nil
	}
	// A run that gives out 2^40 versions moves to the next epoch, stored
	// before any of its versions is used.
	c := &st.heads
	c.mu.Lock()
	defer c.mu.Unlock()
	for v >= c.limit.Load() {
		epoch := c.limit.Load() >> versionBits
		if err := st.db.Put(metaHeadEpoch, binary.BigEndian.AppendUint64(nil, epoch), &opt.WriteOptions{Sync: true}); err != nil {
			return 0, fmt.Errorf("store row head epoch: %w", err)
		}
		c.limit.Store((epoch + 1) << versionBits)
	}
	return v, nil
}

// headStats counts how range scans answered rows, for tests and metrics.
type headStats struct{ fromHead, fromData, rebuilt atomic.Int64 }

func (h *headStats) add(fromHead, fromData, rebuilt int) {
	if fromHead > 0 {
		h.fromHead.Add(int64(fromHead))
	}
	if fromData > 0 {
		h.fromData.Add(int64(fromData))
	}
	if rebuilt > 0 {
		h.rebuilt.Add(int64(rebuilt))
	}
}

// headRow returns the head region's prefix of the row whose data prefix is
// row, into dst.
func headRow(dst, row []byte) []byte {
	dst = append(dst[:0], prefixHead)
	return append(dst, row[1:]...)
}

// markerKey and bodyKey are a row's two head keys, from its data prefix.
func markerKey(row []byte) []byte { return append(headRow(nil, row), markHeadMarker) }
func bodyKey(row []byte) []byte   { return append(headRow(nil, row), markHeadBody) }

// putMarker stages a new marker of row in batch, building its key and
// value in buf, which it returns for reuse (the batch copies them).
func (st *Store) putMarker(batch *leveldb.Batch, buf, row []byte) ([]byte, error) {
	v, err := st.nextVersion()
	if err != nil {
		return buf, err
	}
	buf = append(headRow(buf, row), markHeadMarker)
	k := len(buf)
	buf = binary.BigEndian.AppendUint64(buf, v)
	batch.Put(buf[:k], buf[k:])
	return buf, nil
}

// buildHead encodes the head of the row whose data prefix is row, as the
// data iterator it shows it, with the marker version v. It reports
// whether the row has any entry.
func buildHead(dst []byte, it iterator.Iterator, row []byte, v uint64) ([]byte, bool) {
	dst = binary.BigEndian.AppendUint64(dst[:0], v)
	flags := len(dst)
	dst = append(dst, 0, 0)
	n, size := 0, 0
	ok := it.Seek(row)
	for ; ok && bytes.HasPrefix(it.Key(), row); ok = it.Next() {
		suffix, value := it.Key()[len(row):], it.Value()
		size += len(suffix) + len(value)
		if n == headEntries || size > headBytes {
			dst[flags+1] = byte(n)
			return dst, true
		}
		dst = binary.AppendUvarint(dst, uint64(len(suffix)))
		dst = append(dst, suffix...)
		dst = binary.AppendUvarint(dst, uint64(len(value)))
		dst = append(dst, value...)
		n++
	}
	dst[flags], dst[flags+1] = headComplete, byte(n)
	return dst, n > 0
}

// headShort reports whether the head value b certainly cannot answer q
// (a forward slice from the row's start of more columns than a partial
// head holds), without decoding it.
func headShort(b []byte, q engine.Query) bool {
	return len(b) >= 10 && b[8]&headComplete == 0 && q.Names == nil && !q.Reversed && len(q.Start) == 0 && q.Count > int(b[9])
}

// headVersion is the version a head or marker value carries.
func headVersion(b []byte) (uint64, bool) {
	if len(b) < 8 {
		return 0, false
	}
	return binary.BigEndian.Uint64(b), true
}

// headIter is an iterator over a decoded head: the full data keys of the
// row's first entries, in order. It notes when a read needed what lies
// past them (ranOff); an answer read then is the row's only when the head
// is complete.
type headIter struct {
	keys, vals [][]byte
	buf        []byte
	i          int // current entry; len(keys) or -1 when not valid
	complete   bool
	ranOff     bool
}

// reset decodes the head value b of the row whose data prefix is row.
func (h *headIter) reset(row, b []byte) error {
	h.keys, h.vals, h.buf = h.keys[:0], h.vals[:0], h.buf[:0]
	h.i, h.ranOff = -1, false
	if len(b) < 10 {
		return errCorrupt
	}
	h.complete = b[8]&headComplete != 0
	b = b[10:]
	// Keys are built into one buffer; their slices are taken once it no
	// longer moves.
	var ends []int
	for len(b) > 0 {
		n, w := binary.Uvarint(b)
		if w <= 0 || uint64(len(b)-w) < n {
			return errCorrupt
		}
		h.buf = append(append(h.buf, row...), b[w:w+int(n)]...)
		ends = append(ends, len(h.buf))
		b = b[w+int(n):]
		n, w = binary.Uvarint(b)
		if w <= 0 || uint64(len(b)-w) < n {
			return errCorrupt
		}
		h.vals = append(h.vals, b[w:w+int(n)])
		b = b[w+int(n):]
	}
	start := 0
	for _, end := range ends {
		h.keys = append(h.keys, h.buf[start:end:end])
		start = end
	}
	return nil
}

// empty reports whether the head shows a row with no entry at all.
func (h *headIter) empty() bool { return h.complete && len(h.keys) == 0 }

func (h *headIter) off() bool {
	h.ranOff = true
	h.i = len(h.keys)
	return false
}

func (h *headIter) First() bool {
	if len(h.keys) == 0 {
		return h.off()
	}
	h.i = 0
	return true
}

func (h *headIter) Last() bool {
	// The row's last entry is the head's only when the head is all of it.
	h.ranOff = true
	if len(h.keys) == 0 {
		h.i = -1
		return false
	}
	h.i = len(h.keys) - 1
	return true
}

func (h *headIter) Seek(key []byte) bool {
	for i, k := range h.keys {
		if bytes.Compare(k, key) >= 0 {
			h.i = i
			return true
		}
	}
	return h.off()
}

func (h *headIter) Next() bool {
	if h.i+1 >= len(h.keys) {
		return h.off()
	}
	h.i++
	return true
}

func (h *headIter) Prev() bool {
	if h.i >= len(h.keys) {
		return h.Last()
	}
	// Nothing of the row lies before its first entry.
	if h.i <= 0 {
		h.i = -1
		return false
	}
	h.i--
	return true
}

func (h *headIter) Valid() bool { return h.i >= 0 && h.i < len(h.keys) }

func (h *headIter) Key() []byte {
	if !h.Valid() {
		return nil
	}
	return h.keys[h.i]
}

func (h *headIter) Value() []byte {
	if !h.Valid() {
		return nil
	}
	return h.vals[h.i]
}

func (h *headIter) Error() error              { return nil }
func (h *headIter) Release()                  {}
func (h *headIter) SetReleaser(util.Releaser) {}

// answered reports whether what was read through h is what the data
// region would have given.
func (h *headIter) answered() bool { return h.complete || !h.ranOff }

var _ iterator.Iterator = (*headIter)(nil)

// Writes to a row whose head is already stale need no new marker. A row
// is known stale (under its lock stripe, staleRows) from the write that
// put its marker until a scan publishes a head for that marker; writes in
// between skip the marker. A head built from a snapshot that misses such a
// write would carry the current marker version and be taken for current,
// so a scan publishes a head only when no skipped write to its row can be
// later than its snapshot: every skipped write records a sequence number
// taken after its batch is written (Store.heads.writeSeq), and the scan
// compares it with the number it read before taking its snapshot. A row
// forgotten to keep the map small hands its number to the stripe's
// evicted mark, which then stands for every row the stripe no longer
// tracks.

// staleRowsPerStripe bounds the rows each lock stripe tracks: 65,536 in
// all; 0 tracks none, so that every write puts its marker. A variable so
// that tests can change it.
var staleRowsPerStripe = 64

// staleStripe is what one lock stripe knows of its rows' heads; it is
// read and changed only under that stripe's lock.
type staleStripe struct {
	rows    map[string]*staleRow
	evicted uint64 // the latest skipped write of any row no longer in rows
}

type staleRow struct {
	lastSkip  uint64 // the sequence number of the latest write that skipped the marker
	published bool   // a scan has published a head since the marker was put
}

// skipMarker returns, under stripe s's lock, what the stripe knows of
// row when a write to it may leave its marker as it is, else nil.
func (st *Store) skipMarker(s int, row []byte) *staleRow {
	if r := st.stale[s].rows[string(row)]; r != nil && !r.published {
		return r
	}
	return nil
}

// forgetRow drops what stripe s knows of row, under its lock.
func (st *Store) forgetRow(s int, row []byte) {
	ss := &st.stale[s]
	if r := ss.rows[string(row)]; r != nil {
		ss.evicted = max(ss.evicted, r.lastSkip)
		delete(ss.rows, string(row))
	}
}

// noteMarked records, under stripe s's lock and after the batch was
// written, that row's marker was put and no head carries it yet.
func (st *Store) noteMarked(s int, row string) {
	ss := &st.stale[s]
	if r := ss.rows[row]; r != nil {
		r.published = false
		return
	}
	if staleRowsPerStripe <= 0 {
		return
	}
	if ss.rows == nil {
		ss.rows = map[string]*staleRow{}
	}
	if len(ss.rows) >= staleRowsPerStripe {
		for k, r := range ss.rows {
			ss.evicted = max(ss.evicted, r.lastSkip)
			delete(ss.rows, k)
			break
		}
	}
	ss.rows[row] = &staleRow{}
}

// mayPublish reports whether a head of row built from a snapshot taken
// after sequence number seq was read may be written, and if so records
// that it is.
func (st *Store) mayPublish(s int, row []byte, seq uint64) bool {
	st.locks[s].Lock()
	defer st.locks[s].Unlock()
	ss := &st.stale[s]
	r := ss.rows[string(row)]
	if r == nil {
		return ss.evicted <= seq
	}
	if r.lastSkip > seq {
		return false
	}
	r.published = true
	return true
}
