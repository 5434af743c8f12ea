package ldbstore

import (
	"context"
	"encoding/binary"
	"fmt"
	"time"

	"github.com/syndtr/goleveldb/leveldb"
	"github.com/syndtr/goleveldb/leveldb/opt"
	"github.com/syndtr/goleveldb/leveldb/util"

	"github.com/thriftd/thriftd/engine"
)

var (
	_ engine.Flusher   = (*Store)(nil)
	_ engine.Compacter = (*Store)(nil)
)

// metaFlush is rewritten by every Flush so that the memtable holds a key
// inside the small range Flush compacts.
var metaFlush = []byte{prefixMeta, 'f', 'l', 'u', 's', 'h'}

// Flush writes the memtable out as a level-0 table (nodetool flush): it
// records the time under a meta key and compacts that key's one-key range,
// which makes goleveldb rotate the memtable and write it out, then merge
// the new table into level 1. Acknowledged writes were durable before it;
// afterwards a restart has no journal to replay.
func (st *Store) Flush(ctx context.Context) error {
	if err := st.enter(); err != nil {
		return err
	}
	db := st.db
	stamp := binary.BigEndian.AppendUint64(nil, uint64(time.Now().UnixNano()))
	err := db.Put(metaFlush, stamp, &opt.WriteOptions{Sync: true})
	st.leave()
	if err != nil {
		st.noteWriteError(err)
		return fmt.Errorf("flush: %w", err)
	}
	r := util.Range{Start: metaFlush, Limit: append(metaFlush[:len(metaFlush):len(metaFlush)], 0)}
	if err := db.CompactRange(r); err != nil {
		return fmt.Errorf("flush: %w", err)
	}
	return ctx.Err()
}

// compactionDB is the database to compact. Compactions run outside the
// calls-in-flight lock: they may take minutes, and a snapshot or Close
// waiting for that lock would hold every call back meanwhile. If the
// database is closed or replaced under a compaction, the compaction
// fails with LevelDB's ErrClosed.
func (st *Store) compactionDB() (*leveldb.DB, error) {
	if err := st.enter(); err != nil {
		return nil, err
	}
	defer st.leave()
	return st.db, nil
}

// compactionRanges are the key ranges Compact compacts. The families
// change under schema changes, which hold mu (schema.go).
func (st *Store) compactionRanges(keyspace, columnFamily string) ([]util.Range, error) {
	st.mu.RLock()
	defer st.mu.RUnlock()
	var ranges []util.Range
	switch {
	case keyspace == "":
		ranges = []util.Range{{}}
	case columnFamily != "":
		f, err := st.family(keyspace, columnFamily)
		if err != nil {
			return nil, err
		}
		ranges = []util.Range{*util.BytesPrefix(f.prefix), *util.BytesPrefix(headRow(nil, f.prefix))}
	default:
		for name, f := range st.cfs {
			if name.keyspace == keyspace {
				ranges = append(ranges, *util.BytesPrefix(f.prefix), *util.BytesPrefix(headRow(nil, f.prefix)))
			}
		}
		if len(ranges) == 0 {
			return nil, fmt.Errorf("ldbstore: unknown keyspace %s", keyspace)
		}
	}
	return ranges, nil
}

// Compact runs LevelDB's CompactRange (nodetool compact) over the whole
// store when keyspace is empty, over every column family of keyspace when
// columnFamily is empty, else over one column family. It also flushes the
// memtable first when it holds keys of the range. Expired tombstones are
// not dropped by it: Purge does that.
func (st *Store) Compact(ctx context.Context, keyspace, columnFamily string) error {
	ranges, err := st.compactionRanges(keyspace, columnFamily)
	if err != nil {
		return err
	}
	db, err := st.compactionDB()
	if err != nil {
		return err
	}
	for _, r := range ranges {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := db.CompactRange(r); err != nil {
			return fmt.Errorf("compact: %w", err)
		}
	}
	return nil
}
