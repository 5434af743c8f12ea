package transfer

import (
	"sync/atomic"
	"time"
)

// Stats counts what a transfer has completed; it is safe to read while
// the transfer runs.
type Stats struct {
	// Rows, Columns (and subcolumns, and deletions) and Bytes (of names
	// and values) written or exported.
	Rows, Columns, Bytes atomic.Int64
	// Done and Total measure progress toward the end when the total is
	// known; Total is 0 otherwise. Import counts bytes of the file read;
	// Export and Copy, under a hashing partitioner, the share of the ring
	// read (AlongRing is then set).
	Done, Total atomic.Int64
	AlongRing   atomic.Bool
}

// Family is the result for one column family.
type FamilySummary struct {
	Name    string `json:"column_family"`
	Rows    int64  `json:"rows"`
	Columns int64  `json:"columns"`
	Bytes   int64  `json:"bytes"`
	// File is where an export wrote it.
	File string `json:"file,omitempty"`
	// Resumed: the run continued from a checkpoint for this family.
	Resumed bool `json:"resumed,omitempty"`
}

// Summary is what a transfer did.
type Summary struct {
	Command     string          `json:"command"`
	Keyspace    string          `json:"keyspace"`
	Families    []FamilySummary `json:"column_families"`
	Rows        int64           `json:"rows"`
	Columns     int64           `json:"columns"`
	Bytes       int64           `json:"bytes"`
	Elapsed     time.Duration   `json:"elapsed_ns"`
	Interrupted bool            `json:"interrupted"`
	// Checkpoint is the file to resume from when the transfer did not
	// complete.
	Checkpoint string `json:"checkpoint,omitempty"`
}

func (s *Summary) add(f FamilySummary) {
	s.Families = append(s.Families, f)
	s.Rows += f.Rows
	s.Columns += f.Columns
	s.Bytes += f.Bytes
}
