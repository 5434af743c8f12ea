package ldbstore

import (
	"encoding/json"
	"fmt"
	"log/slog"

	"github.com/syndtr/goleveldb/leveldb"
	"github.com/syndtr/goleveldb/leveldb/opt"
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
	// A row whose head marker was in a damaged block would be missed by
	// range scans: the next start gives every row a marker again.
	if err := forgetRowHeads(db); err != nil {
		db.Close()
		return fmt.Errorf("repair %s: %w", dir, err)
	}
	var stats leveldb.DBStats
	if err := db.Stats(&stats); err == nil {
		log.Info("store repaired", "dir", dir, "level_tables", stats.LevelTablesCounts, "level_bytes", stats.LevelSizes)
	}
	return db.Close()
}

// forgetRowHeads clears the stored schema's record that every row has a
// row head marker, so that the next Open writes them all (upgradeHeads).
func forgetRowHeads(db *leveldb.DB) error {
	raw, err := db.Get(metaSchema, nil)
	if err == leveldb.ErrNotFound {
		return nil // the next Open finds the data and writes markers
	}
	if err != nil {
		return err
	}
	var stored storedSchema
	if err := json.Unmarshal(raw, &stored); err != nil {
		return fmt.Errorf("stored schema is unreadable: %w", err)
	}
	if !stored.RowHeads {
		return nil
	}
	stored.RowHeads = false
	if raw, err = json.Marshal(stored); err != nil {
		return err
	}
	return db.Put(metaSchema, raw, &opt.WriteOptions{Sync: true})
}
