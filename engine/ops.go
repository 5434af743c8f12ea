package engine

import (
	"context"
	"time"
)

// Optional interfaces. A Store may implement any of them to offer the
// administrative commands (thriftd-tool and the admin endpoint); a command
// whose interface the Store lacks answers that the store does not support
// it. A Store that also implements prometheus.Collector has its figures
// (for LevelDB: level sizes, compactions, write stalls; for a Cassandra
// backend: its driver's figures) exported on /metrics beside thriftd's own.

// Flusher writes what is held in memory to the store's files
// (nodetool flush). Acknowledged writes are durable without it; a flush
// shortens the replay after a restart.
type Flusher interface {
	Flush(ctx context.Context) error
}

// Compacter compacts the store's files (nodetool compact). An empty
// keyspace means the whole store; an empty columnFamily every column family
// of keyspace.
type Compacter interface {
	Compact(ctx context.Context, keyspace, columnFamily string) error
}

// Snapshotter makes named, consistent point-in-time copies of the store
// while it keeps serving (nodetool snapshot, clearsnapshot).
type Snapshotter interface {
	// Snapshot copies the store as it is at one instant into a new
	// snapshot called name. It fails if one of that name exists.
	Snapshot(ctx context.Context, name string) (SnapshotInfo, error)
	// ClearSnapshot removes the snapshot called name, or every snapshot
	// when name is empty, and returns the names removed. Removing a
	// snapshot that does not exist is an error.
	ClearSnapshot(name string) ([]string, error)
	// Snapshots lists the snapshots, by name.
	Snapshots() ([]SnapshotInfo, error)
}

// SnapshotInfo describes one snapshot.
type SnapshotInfo struct {
	Name string `json:"name"`
	// Dir is where it lives; restoring is copying its files into an
	// empty data directory.
	Dir string `json:"dir"`
	// Files and Bytes are what it holds.
	Files int   `json:"files"`
	Bytes int64 `json:"bytes"`
	// Paused is how long calls were held back while it was taken.
	Paused  time.Duration `json:"paused_ns"`
	Created time.Time     `json:"created"`
}

// Statser reports the store's figures for info, ring and cfstats.
type Statser interface {
	// StoreStats is the whole store.
	StoreStats() (StoreStats, error)
	// FamilyStats is one column family; the store-wide figures a store
	// cannot split by column family are reported as the store's.
	FamilyStats(keyspace, columnFamily string) (FamilyStats, error)
}

// StoreStats are figures of the whole store.
type StoreStats struct {
	// LiveBytes is the size of the data files in use.
	LiveBytes int64 `json:"live_bytes"`
	// Tables is the number of data files (LevelDB tables, SSTables).
	Tables int `json:"tables"`
	// PendingCompactions is work the store has queued (0 when unknown).
	PendingCompactions int `json:"pending_compactions"`
}

// FamilyStats are figures of one column family.
type FamilyStats struct {
	// Tables is how many data files hold some of its rows.
	Tables int `json:"tables"`
	// LiveBytes approximates the disk space its rows take.
	LiveBytes int64 `json:"live_bytes"`
	// TotalBytes adds space held by obsolete files not yet removed.
	TotalBytes int64 `json:"total_bytes"`
}
