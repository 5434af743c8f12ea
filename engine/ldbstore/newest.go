package ldbstore

import (
	"encoding/binary"
	"fmt"
	"math"
	"time"

	"github.com/syndtr/goleveldb/leveldb"
	"github.com/syndtr/goleveldb/leveldb/opt"
	"github.com/syndtr/goleveldb/leveldb/util"
)

// Writes without a read. LevelDB keeps one version per key, so a write
// must not replace a stored version that wins over it: a later timestamp,
// or on a tie a tombstone or a greater value (0.6's reconciliation). The
// store proves most writes need not look: it keeps, per slot of rows
// (rows hashed by keyspace and key, each slot under one row lock), an
// ceiling: an upper bound of every timestamp stored in the slot's rows. A write whose
// timestamp is above its slot's ceiling wins over whatever is stored, by
// timestamp alone, and is written blind; any other (an equal or older
// timestamp: a tie or an out-of-order write) reads the stored version and
// reconciles as before. Clients that stamp writes with a clock thus never
// read, and the answers are those of reconciliation on every write.
//
// The ceilings live in memory. On disk the store keeps one ceiling of every
// timestamp it holds (metaNewest), raised before any write above it (by
// newestMargin at a time, so rarely) and written exactly at Close; Open
// starts every slot at it. A data directory written before the ceiling
// existed is scanned once at Open to find it.
const newestSlots = lockStripes * 64

// newestMargin is how far above a write's timestamp the stored ceiling is
// raised, so that a clock's timestamps raise it only every few minutes
// (2^28 microseconds is about 4.5 minutes).
const newestMargin = 1 << 28

var metaNewest = []byte{prefixMeta, 'n', 'e', 'w', 'e', 's', 't'}

// slot returns the bound slot of a row; its row lock is slot % lockStripes.
func (st *Store) slot(keyspace, key string) int {
	return int(st.rowHash(keyspace, key) % newestSlots)
}

// loadNewest reads the stored ceiling of the store's timestamps, or finds it
// by a scan in a directory that has none, and starts every slot at it.
func (st *Store) loadNewest() error {
	var bound int64
	raw, err := st.db.Get(metaNewest, nil)
	switch {
	case err == nil && len(raw) == 8:
		bound = int64(binary.BigEndian.Uint64(raw))
	case err == nil:
		return fmt.Errorf("%s: stored timestamp ceiling: %w", st.dir, errCorrupt)
	case err != leveldb.ErrNotFound:
		return fmt.Errorf("%s: read stored timestamp ceiling: %w", st.dir, err)
	default:
		if bound, err = st.scanNewest(); err != nil {
			return err
		}
		if err := st.db.Put(metaNewest, binary.BigEndian.AppendUint64(nil, uint64(bound)), &opt.WriteOptions{Sync: true}); err != nil {
			return fmt.Errorf("%s: write timestamp ceiling: %w", st.dir, err)
		}
	}
	st.ceiling.Store(bound)
	for i := range st.newest {
		st.newest[i] = bound
	}
	return nil
}

// scanNewest reads every stored version once and returns the greatest
// timestamp (the minimum timestamp for an empty store). A version of a
// column family the schema no longer names cannot be told from a
// tombstone, so both readings of it count.
func (st *Store) scanNewest() (int64, error) {
	start := time.Now()
	newest := int64(math.MinInt64)
	it := st.db.NewIterator(util.BytesPrefix([]byte{prefixData}), nil)
	defer it.Release()
	n := 0
	for it.Next() {
		n++
		k, v := it.Key(), it.Value()
		if len(k) < 5 {
			return 0, fmt.Errorf("%s: stored key %x: %w", st.dir, k, errCorrupt)
		}
		ts, err := st.storedTimestamp(k, v)
		if err != nil {
			return 0, fmt.Errorf("%s: stored key %x: %w", st.dir, k, err)
		}
		newest = max(newest, ts)
	}
	if err := it.Error(); err != nil {
		return 0, fmt.Errorf("%s: read stored rows: %w", st.dir, err)
	}
	st.opts.Logger.Info("found the newest stored timestamp", "dir", st.dir, "entries", n, "duration", time.Since(start).Round(time.Millisecond))
	return newest, nil
}

// storedTimestamp returns the timestamp of the version at data key k.
func (st *Store) storedTimestamp(k, v []byte) (int64, error) {
	f := st.byID[binary.BigEndian.Uint32(k[1:5])]
	if f == nil {
		var ts int64 = math.MinInt64
		if len(v) >= 8 {
			ts = int64(binary.BigEndian.Uint64(v))
		}
		if len(v) >= 9 {
			ts = max(ts, int64(binary.BigEndian.Uint64(v[1:9])))
		}
		return ts, nil
	}
	_, _, rest, err := st.part.DecodeRowKey(k[5:])
	if err != nil {
		return 0, err
	}
	tomb := len(rest) == 1 && rest[0] == markTombstone
	if !tomb && f.def.Super {
		if len(rest) == 0 {
			return 0, errCorrupt
		}
		_, after, err := f.def.Comparator.Decode(rest[1:])
		if err != nil {
			return 0, err
		}
		tomb = len(after) == 1 && after[0] == markTombstone
	}
	if tomb {
		t, err := decodeTombstone(v)
		at := t.at
		for _, r := range t.ranges {
			at = max(at, r.at)
		}
		return at, err
	}
	c, err := decodeCell(v)
	return c.ts, err
}

// raiseTimestampCeiling makes the stored ceiling at least ts before a write of ts is
// made: synchronously written first, so that no stored version is ever
// above the ceiling a restart reads, even after a crash.
func (st *Store) raiseTimestampCeiling(ts int64) error {
	if ts <= st.ceiling.Load() {
		return nil
	}
	st.ceilingMu.Lock()
	defer st.ceilingMu.Unlock()
	if ts <= st.ceiling.Load() {
		return nil
	}
	next := int64(math.MaxInt64)
	if ts < math.MaxInt64-newestMargin {
		next = ts + newestMargin
	}
	if err := st.db.Put(metaNewest, binary.BigEndian.AppendUint64(nil, uint64(next)), st.writeOptions()); err != nil {
		return err
	}
	st.ceiling.Store(next)
	return nil
}

// exactBound is the greatest timestamp of every slot, which Close records
// as the stored ceiling, so that the next Open starts every slot where
// the data is rather than at the margin above it. The caller has stopped
// all writes.
func (st *Store) exactBound() []byte {
	newest := int64(math.MinInt64)
	for _, n := range st.newest {
		newest = max(newest, n)
	}
	return binary.BigEndian.AppendUint64(nil, uint64(min(newest, st.ceiling.Load())))
}
