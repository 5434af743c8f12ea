package ldbstore

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/syndtr/goleveldb/leveldb"
	"github.com/syndtr/goleveldb/leveldb/opt"
	"github.com/syndtr/goleveldb/leveldb/util"

	"github.com/thriftd/thriftd/dht"
)

// maxUpgradeBatch bounds the bytes of row keys and values rewritten by a
// row key upgrade. The rewrite is one atomic LevelDB batch, so a crash
// leaves the store wholly at the old version or wholly at the new one; a
// store with more data to rewrite than this is refused rather than
// upgraded in pieces.
const maxUpgradeBatch = 1 << 30

// upgradeRowKeys rewrites every stored key whose row key encoding differs
// between version from and the partitioner's current one, then records the
// new version in stored, all in one batch. It reads the whole store once.
func (st *Store) upgradeRowKeys(from int, stored storedSchema) error {
	u, ok := st.part.(dht.Upgrader)
	if !ok {
		return fmt.Errorf("%s: row key version %d cannot be upgraded by %s", st.dir, from, st.part.Name())
	}
	start := time.Now()
	log := st.opts.Logger.With("dir", st.dir, "partitioner", st.part.Name(), "from", from, "to", u.RowKeyVersion())
	log.Warn("rewriting stored row keys into the current key order; this reads the whole store once")

	batch := new(leveldb.Batch)
	size, moved, scanned := 0, 0, 0
	// Data keys: 0x01 cf(4) row rest. Purge index: 0x02 time(4) cf(4) row.
	// Row heads: 0x04 cf(4) row mark.
	for _, region := range []struct {
		prefix byte
		head   int // bytes before the row key
	}{{prefixData, 5}, {prefixPurge, 9}, {prefixHead, 5}} {
		it := st.db.NewIterator(util.BytesPrefix([]byte{region.prefix}), nil)
		for it.Next() {
			scanned++
			k := it.Key()
			if len(k) <= region.head {
				it.Release()
				return fmt.Errorf("%s: stored key %x is too short: %w", st.dir, k, errCorrupt)
			}
			nk, rest, changed, err := u.UpgradeRowKey(append([]byte(nil), k[:region.head]...), k[region.head:], from)
			if err != nil {
				it.Release()
				return fmt.Errorf("%s: stored key %x: %w", st.dir, k, err)
			}
			if !changed {
				continue
			}
			nk = append(nk, rest...)
			size += len(k) + len(nk) + len(it.Value())
			if size > maxUpgradeBatch {
				it.Release()
				return fmt.Errorf("%s: more than %d MiB of rows need their keys rewritten for %s's row key version %d; thriftd will not start (the rewrite is done in one batch, in memory)",
					st.dir, maxUpgradeBatch>>20, st.part.Name(), u.RowKeyVersion())
			}
			batch.Delete(k)
			batch.Put(nk, it.Value())
			moved++
		}
		it.Release()
		if err := it.Error(); err != nil {
			return fmt.Errorf("%s: read stored rows: %w", st.dir, err)
		}
	}

	// The node token is a key of the ring too.
	if raw, err := st.db.Get(metaToken, nil); err == nil && len(raw) > 0 {
		nt, rest, changed, err := u.UpgradeRowKey(nil, raw, from)
		if err == nil && len(rest) == 0 && changed {
			batch.Put(metaToken, nt)
		}
	} else if err != nil && err != leveldb.ErrNotFound {
		return fmt.Errorf("%s: read node token: %w", st.dir, err)
	}

	stored.RowKeyVersion = u.RowKeyVersion()
	raw, err := json.Marshal(stored)
	if err != nil {
		return err
	}
	batch.Put(metaSchema, raw)
	if err := st.db.Write(batch, &opt.WriteOptions{Sync: true}); err != nil {
		return fmt.Errorf("%s: write upgraded row keys: %w", st.dir, err)
	}
	log.Warn("stored row keys rewritten", "keys_scanned", scanned, "keys_rewritten", moved, "duration", time.Since(start).Round(time.Millisecond))
	return nil
}

// upgradeBatch is how many markers the row head upgrade writes at once.
const upgradeBatch = 10000

// upgradeHeads gives every stored row a marker, once, in a store written
// before row heads: scans find rows by their markers (head.go). The
// markers go in batches, and the stored schema records the upgrade only
// after the last, synced: a crash on the way starts it again at the next
// Open, and markers written twice are only newer versions.
func (st *Store) upgradeHeads() error {
	stored, err := st.readStored()
	if err != nil || stored.RowHeads {
		return err
	}
	start := time.Now()
	log := st.opts.Logger.With("dir", st.dir)
	log.Warn("writing a row head marker for every stored row; this reads the store's row keys once")
	it := st.db.NewIterator(util.BytesPrefix([]byte{prefixData}), nil)
	defer it.Release()
	batch := new(leveldb.Batch)
	var buf []byte
	rows := 0
	for ok := it.First(); ok; {
		k := it.Key()
		if len(k) <= 5 {
			return fmt.Errorf("%s: stored key %x is too short: %w", st.dir, k, errCorrupt)
		}
		_, _, rest, err := st.part.DecodeRowKey(k[5:])
		if err != nil {
			return fmt.Errorf("%s: stored key %x: %w", st.dir, k, err)
		}
		row := clone(k[:len(k)-len(rest)])
		if buf, err = st.putMarker(batch, buf, row); err != nil {
			return err
		}
		rows++
		if batch.Len() >= upgradeBatch {
			if err := st.db.Write(batch, nil); err != nil {
				return fmt.Errorf("%s: write row head markers: %w", st.dir, err)
			}
			batch.Reset()
		}
		ok = it.Seek(after(row))
	}
	if err := it.Error(); err != nil {
		return fmt.Errorf("%s: read stored rows: %w", st.dir, err)
	}
	stored.RowHeads = true
	raw, err := json.Marshal(stored)
	if err != nil {
		return err
	}
	batch.Put(metaSchema, raw)
	if err := st.db.Write(batch, &opt.WriteOptions{Sync: true}); err != nil {
		return fmt.Errorf("%s: write row head markers: %w", st.dir, err)
	}
	log.Warn("row head markers written; each row's head is built by the first scan that reads it", "rows", rows, "duration", time.Since(start).Round(time.Millisecond))
	return nil
}
