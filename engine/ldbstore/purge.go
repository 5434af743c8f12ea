package ldbstore

import (
	"bytes"
	"context"
	"encoding/binary"

	"github.com/syndtr/goleveldb/leveldb"
	"github.com/syndtr/goleveldb/leveldb/util"
)

// Purge removes tombstones older than GCGrace together with the data they
// shadow, expiring columns that expired more than GCGrace ago, and the
// shadowed data of every row it visits, and reports how many entries it
// removed. It visits only rows that received a tombstone, or an expiring
// column that expired, more than GCGrace ago (the purge index), never the
// whole store.
//
// Until a tombstone is purged, its row is still a range ghost; after, a
// write with an older timestamp is no longer shadowed (as in 0.6).
func (st *Store) Purge(ctx context.Context) (int, error) {
	if err := st.enter(); err != nil {
		return 0, err
	}
	defer st.leave()
	now := st.opts.Now()
	cutoff := uint32(now.Add(-st.opts.GCGrace).Unix())
	if now.Add(-st.opts.GCGrace).Unix() < 0 {
		return 0, nil
	}
	limit := binary.BigEndian.AppendUint32([]byte{prefixPurge}, cutoff)
	idx := st.db.NewIterator(&util.Range{Start: []byte{prefixPurge}, Limit: limit}, nil)
	defer idx.Release()
	removed := 0
	done := map[string]bool{}
	for idx.Next() {
		if err := ctx.Err(); err != nil {
			return removed, err
		}
		ref := clone(idx.Key())
		row := append([]byte{prefixData}, ref[5:]...)
		if !done[string(row)] {
			done[string(row)] = true
			n, err := st.purgeRow(row, cutoff)
			if err != nil {
				return removed, err
			}
			removed += n
		}
		if err := st.db.Delete(ref, nil); err != nil {
			return removed, err
		}
	}
	return removed, idx.Error()
}

// purgeRow cleans one row, under its row lock.
func (st *Store) purgeRow(row []byte, cutoff uint32) (int, error) {
	if len(row) < 5 {
		return 0, errCorrupt
	}
	f := st.byID[binary.BigEndian.Uint32(row[1:5])]
	if f == nil {
		return 0, nil // column family no longer configured: keep its data
	}
	key, _, _, err := st.part.DecodeRowKey(row[5:])
	if err != nil {
		return 0, err
	}
	s := st.stripe(f.def.Keyspace, key)
	st.locks[s].Lock()
	defer st.locks[s].Unlock()

	batch := new(leveldb.Batch)
	// A tombstone whose deletions are all over is removed; one with some
	// left (range deletions of other times) is written back without the
	// others.
	deleted, rewritten := 0, 0
	purgeTomb := func(k []byte, t tombstone) {
		left, changed := t.purged(cutoff)
		switch {
		case !changed:
		case left.empty():
			batch.Delete(clone(k))
			deleted++
		default:
			batch.Put(clone(k), appendTombstone(nil, left))
			rewritten++
		}
	}
	drop := func(k []byte) {
		batch.Delete(clone(k))
		deleted++
	}
	it := st.db.NewIterator(&util.Range{Start: row, Limit: after(row)}, nil)
	defer it.Release()
	rowTomb := noTombstone
	scTomb, scPrefix := noTombstone, []byte(nil)
	entries := 0
	for it.Next() {
		entries++
		k, rest := it.Key(), it.Key()[len(row):]
		switch {
		case len(rest) == 1 && rest[0] == markTombstone:
			t, err := decodeTombstone(it.Value())
			if err != nil {
				return 0, err
			}
			rowTomb = t
			purgeTomb(k, t)
			continue
		case !f.def.Super:
			c, err := decodeCell(it.Value())
			if err != nil {
				return 0, err
			}
			if rowTomb.shadowsName(rest[1:], c.ts) || gone(c, cutoff) {
				drop(k)
			}
			continue
		}
		// A Super column family: a super column tombstone, or a subcolumn.
		_, after, err := f.def.Comparator.Decode(rest[1:])
		if err != nil {
			return 0, err
		}
		enc := k[:len(k)-len(after)]
		if scPrefix == nil || !bytes.Equal(enc, scPrefix) {
			scPrefix, scTomb = clone(enc), noTombstone
		}
		if len(after) == 1 && after[0] == markTombstone {
			t, err := decodeTombstone(it.Value())
			if err != nil {
				return 0, err
			}
			scTomb = t
			purgeTomb(k, t)
			continue
		}
		c, err := decodeCell(it.Value())
		if err != nil {
			return 0, err
		}
		if subShadow(rowTomb, enc[len(row)+1:], scTomb).shadowsName(after[1:], c.ts) || gone(c, cutoff) {
			drop(k)
		}
	}
	if err := it.Error(); err != nil {
		return 0, err
	}
	removed := deleted
	if deleted+rewritten == 0 {
		return 0, nil
	}
	// The row's head is stale; a row left with nothing has none. Writes
	// after this put a marker again.
	st.forgetRow(s, row)
	if removed == entries {
		batch.Delete(markerKey(row))
		batch.Delete(bodyKey(row))
	} else if _, err := st.putMarker(batch, nil, row); err != nil {
		return 0, err
	}
	return removed, st.db.Write(batch, st.writeOptions())
}

// gone reports whether c is a column tombstone deleted before cutoff, or an
// expiring column that expired before cutoff (its tombstone's
// GCGraceSeconds are over, as Cassandra's getLocalDeletionTime < gcBefore).
func gone(c cell, cutoff uint32) bool {
	if c.deleted {
		return binary.BigEndian.Uint32(pad4(c.value)) < cutoff
	}
	return c.expiresAt != 0 && c.expiresAt < cutoff
}

func pad4(b []byte) []byte {
	if len(b) >= 4 {
		return b
	}
	return make([]byte, 4)
}
