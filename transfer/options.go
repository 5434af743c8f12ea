package transfer

import (
	"errors"
	"fmt"
	"log/slog"

	"github.com/thriftd/thriftd/gen-go/cassandra"
)

// Options are what Export, Import and Copy share. Zero values take the
// defaults beside each field.
//
// Memory: a read holds at most PageRows rows of PageSize columns (a
// super column counts as one, with all its subcolumns); a write holds
// BatchSize columns. Copy and Import keep at most Workers+1 batches in
// flight and the reader's page, so the data held is bounded by
// (PageRows × PageSize + (Workers+1) × BatchSize) × the largest column,
// never by the width of a row or the size of a column family.
type Options struct {
	// Keyspace to read or write.
	Keyspace string
	// ColumnFamilies to transfer; all of the keyspace's when empty
	// (Import takes exactly one).
	ColumnFamilies []string
	// PageSize is the most columns read from one row per call (default
	// 1000); a row that fills it is read on with get_slice.
	PageSize int
	// PageRows is the most rows per get_range_slices call (default 100).
	PageRows int
	// BatchSize is the most columns (or deletions) per batch_mutate
	// (default 500).
	BatchSize int
	// Workers is how many batch_mutate calls are in flight at once, each
	// on its own connection (default 4); for Export, how many column
	// families are exported at once.
	Workers int
	// Consistency of every read and write (default ONE).
	Consistency cassandra.ConsistencyLevel
	// Checkpoint is the file recording the last row completed per column
	// family; it is written as the transfer goes, when it stops, and
	// removed when it completes. Empty: no checkpoint.
	Checkpoint string
	// Resume continues from Checkpoint instead of starting afresh.
	Resume bool
	// SourceAPI is, for Copy, the API the source is read through: "0.6",
	// "19" (the 19.x or 20.x API of Cassandra 0.7 to 3.11 and of thriftd:
	// the schema is copied too), or "auto" or "" (19 when the source
	// answers describe_version 19.x or 20.x over TFramedTransport, else
	// 0.6).
	SourceAPI string
	// Logger receives progress and errors (default: discard).
	Logger *slog.Logger
	// Stats, if set, is updated as the transfer goes (for a progress
	// display); one is made otherwise.
	Stats *Stats
}

func (o *Options) defaults() error {
	if o.Keyspace == "" {
		return errors.New("a keyspace is required")
	}
	if o.PageSize == 0 {
		o.PageSize = 1000
	}
	if o.PageRows == 0 {
		o.PageRows = 100
	}
	if o.BatchSize == 0 {
		o.BatchSize = 500
	}
	if o.Workers == 0 {
		o.Workers = 4
	}
	if o.PageSize < 1 || o.PageRows < 1 || o.BatchSize < 1 || o.Workers < 1 {
		return fmt.Errorf("page size, page rows, batch size and workers must be at least 1 (got %d, %d, %d, %d)", o.PageSize, o.PageRows, o.BatchSize, o.Workers)
	}
	if o.PageSize >= 1<<30 || o.PageRows >= 1<<30 {
		return errors.New("page size and page rows must be below 2^30")
	}
	if o.Consistency == 0 {
		o.Consistency = cassandra.ConsistencyLevel_ONE
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Stats == nil {
		o.Stats = &Stats{}
	}
	return nil
}

// ErrInterrupted is returned when the context was cancelled: the transfer
// stopped at a row boundary, everything before it was written, and the
// checkpoint (if any) says where to resume.
var ErrInterrupted = errors.New("interrupted")
