package ldbstore

import (
	"github.com/syndtr/goleveldb/leveldb"
	"github.com/syndtr/goleveldb/leveldb/util"

	"github.com/thriftd/thriftd/engine"
)

var _ engine.Statser = (*Store)(nil)

// dbStats reads goleveldb's figures.
func (st *Store) dbStats() (leveldb.DBStats, error) {
	var s leveldb.DBStats
	if err := st.enter(); err != nil {
		return s, err
	}
	defer st.leave()
	err := st.db.Stats(&s)
	return s, err
}

// StoreStats implements engine.Statser from LevelDB's level figures.
func (st *Store) StoreStats() (engine.StoreStats, error) {
	s, err := st.dbStats()
	if err != nil {
		return engine.StoreStats{}, err
	}
	out := engine.StoreStats{LiveBytes: s.LevelSizes.Sum()}
	for _, n := range s.LevelTablesCounts {
		out.Tables += n
	}
	// Level 0 holding more than its trigger of 4 tables is compaction work
	// queued, which is what 0.6's pending tasks counted.
	if len(s.LevelTablesCounts) > 0 && s.LevelTablesCounts[0] > 4 {
		out.PendingCompactions = s.LevelTablesCounts[0] - 4
	}
	return out, nil
}

// FamilyStats implements engine.Statser. LiveBytes is LevelDB's estimate of
// the file space the column family's keys take. Every column family lives
// in the same LevelDB tables, so Tables is the store's table count.
// Obsolete tables are deleted as soon as no reader needs them, so
// TotalBytes equals LiveBytes.
func (st *Store) FamilyStats(keyspace, columnFamily string) (engine.FamilyStats, error) {
	f, err := st.family(keyspace, columnFamily)
	if err != nil {
		return engine.FamilyStats{}, err
	}
	if err := st.enter(); err != nil {
		return engine.FamilyStats{}, err
	}
	defer st.leave()
	// The family's rows and their heads (head.go).
	sizes, err := st.db.SizeOf([]util.Range{*util.BytesPrefix(f.prefix), *util.BytesPrefix(headRow(nil, f.prefix))})
	if err != nil {
		return engine.FamilyStats{}, err
	}
	var s leveldb.DBStats
	if err := st.db.Stats(&s); err != nil {
		return engine.FamilyStats{}, err
	}
	tables := 0
	for _, n := range s.LevelTablesCounts {
		tables += n
	}
	return engine.FamilyStats{Tables: tables, LiveBytes: sizes.Sum(), TotalBytes: sizes.Sum()}, nil
}
