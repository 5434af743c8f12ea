package ldbstore

import (
	"fmt"
	"log/slog"

	"github.com/syndtr/goleveldb/leveldb"
)

// Repair rebuilds the LevelDB manifest of the store in dir from the table
// and journal files that can still be read, so a store damaged by a bad
// disk or a truncated file opens again. What was in a damaged file is lost;
// everything else is kept. The directory must not be open elsewhere.
func Repair(dir string, log *slog.Logger) error {
	db, err := leveldb.RecoverFile(dir, nil)
	if err != nil {
		return fmt.Errorf("repair %s: %w", dir, err)
	}
	var stats leveldb.DBStats
	if err := db.Stats(&stats); err == nil {
		log.Info("store repaired", "dir", dir, "level_tables", stats.LevelTablesCounts, "level_bytes", stats.LevelSizes)
	}
	return db.Close()
}
