// Package admin is thriftd's administrative HTTP endpoint: Prometheus
// metrics on /metrics, Go's runtime profiles under /debug/pprof/, and
// nodetool's commands (info, ring, cfstats, tpstats, flush, compact,
// snapshot, clearsnapshot, drain) as a small JSON API under /v1/, with a
// Client for it. docs/admin.md describes every route and metric.
package admin

import (
	"time"

	"github.com/thriftd/thriftd/engine"
)

// Info answers GET /v1/info: nodetool info's figures.
type Info struct {
	Token         string  `json:"token"`
	Address       string  `json:"address"`
	ClusterName   string  `json:"cluster_name"`
	Partitioner   string  `json:"partitioner"`
	Load          string  `json:"load"` // LoadBytes as 0.6 printed it
	LoadBytes     int64   `json:"load_bytes"`
	GenerationNo  int64   `json:"generation_no"` // start time, Unix seconds
	UptimeSeconds int64   `json:"uptime_seconds"`
	HeapUsedMB    float64 `json:"heap_used_mb"`
	HeapMaxMB     float64 `json:"heap_max_mb"`
	Drained       bool    `json:"drained"`
}

// RingEntry is one node of GET /v1/ring (thriftd has one).
type RingEntry struct {
	Address   string  `json:"address"`
	Status    string  `json:"status"`
	Load      string  `json:"load"`
	LoadBytes int64   `json:"load_bytes"`
	Owns      float64 `json:"owns_percent"`
	Token     string  `json:"token"`
}

// Pool is one line of GET /v1/tpstats: the calls of one Thrift method.
type Pool struct {
	Name      string `json:"name"`
	Active    int64  `json:"active"`
	Pending   int64  `json:"pending"`
	Completed int64  `json:"completed"`
	Errors    int64  `json:"errors"`
	// LatencyMs is the mean latency of the completed calls; 0 when none.
	LatencyMs float64 `json:"latency_ms"`
}

// KeyspaceStats is one keyspace of GET /v1/cfstats.
type KeyspaceStats struct {
	Name           string        `json:"name"`
	ReadCount      int64         `json:"read_count"`
	ReadLatencyMs  float64       `json:"read_latency_ms"` // NaN-free: 0 when no reads
	WriteCount     int64         `json:"write_count"`
	WriteLatencyMs float64       `json:"write_latency_ms"`
	PendingTasks   int64         `json:"pending_tasks"`
	ColumnFamilies []FamilyStats `json:"column_families"`
}

// FamilyStats is one column family of GET /v1/cfstats.
type FamilyStats struct {
	Name                string  `json:"name"`
	SSTableCount        int     `json:"sstable_count"`
	SpaceUsedLive       int64   `json:"space_used_live"`
	SpaceUsedTotal      int64   `json:"space_used_total"`
	MemtableColumns     int64   `json:"memtable_columns_count"`
	MemtableDataSize    int64   `json:"memtable_data_size"`
	MemtableSwitchCount int64   `json:"memtable_switch_count"`
	ReadCount           int64   `json:"read_count"`
	ReadLatencyMs       float64 `json:"read_latency_ms"`
	WriteCount          int64   `json:"write_count"`
	WriteLatencyMs      float64 `json:"write_latency_ms"`
	PendingTasks        int64   `json:"pending_tasks"`
}

// Done answers the commands that change something: what was done and how
// long it took.
type Done struct {
	Command  string        `json:"command"`
	Keyspace string        `json:"keyspace,omitempty"`
	Family   string        `json:"column_family,omitempty"`
	Took     time.Duration `json:"took_ns"`
	// Snapshot is set by snapshot.
	Snapshot *engine.SnapshotInfo `json:"snapshot,omitempty"`
	// Removed lists the snapshots clearsnapshot removed.
	Removed []string `json:"removed,omitempty"`
}

// Error is the body of every failed request.
type Error struct {
	Error string `json:"error"`
}
