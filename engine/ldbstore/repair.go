package ldbstore

import (
	"fmt"
	"log/slog"

	"github.com/syndtr/goleveldb/leveldb"
	"github.com/syndtr/goleveldb/leveldb/util"
)

// Repair rebuilds the LevelDB manifest of the store in dir from the table
// and journal files that can still be read, so a store damaged by a bad
// disk or a truncated file opens again. What was in a damaged block is lost,
// and all of a table whose footer or index is damaged (truncated), since its
// blocks can no longer be found; everything else is kept. Every table is
// rewritten. The directory must not be open elsewhere.
func Repair(dir string, log *slog.Logger) error {
	db, err := leveldb.RecoverFile(dir, nil)
	if err != nil {
		return fmt.Errorf("repair %s: %w", dir, err)
	}
	// goleveldb rebuilds a table that had damaged blocks with index
	// separators ordered by the plain byte comparer instead of its
	// internal-key comparer, and a later lookup in such a table panics. A
	// full compaction rewrites every table through the correct path; it
	// reads tables sequentially, which those indexes still serve.
	if err := db.CompactRange(util.Range{}); err != nil {
		db.Close()
		return fmt.Errorf("repair %s: rewriting the recovered tables: %w", dir, err)
	}
	if ok, err := db.Has(metaSchema, nil); err == nil && !ok {
		log.Warn("the record of the schema this store was written with was in a damaged file and is lost; the next start records the configuration's schema as new, so start with the configuration the data was written with", "dir", dir)
	}
	var stats leveldb.DBStats
	if err := db.Stats(&stats); err == nil {
		log.Info("store repaired", "dir", dir, "level_tables", stats.LevelTablesCounts, "level_bytes", stats.LevelSizes)
	}
	return db.Close()
}
