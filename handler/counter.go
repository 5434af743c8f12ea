package handler

import (
	"context"
	"strings"
	"time"

	"github.com/thriftd/thriftd/engine"
	"github.com/thriftd/thriftd/schema"
)

// applyPlain is store.Apply for the 0.6 API, which has no counters: a
// write into a counter column family (one the 19.x API created with
// default_validation_class CounterColumnType) is refused, as 0.7 refused
// a plain write there, so that no plain value lands among the counters'
// totals. The 0.6 reads see a counter as a column whose value is its
// total, 8 bytes big-endian.
//
// Once applied, the writes are recorded: one row for each row and column
// family written.
func (s *Service) applyPlain(ctx context.Context, keyspace string, rows []engine.RowMutation) error {
	var counted [4]familyRows
	written := counted[:0]
	if ks := s.sch().Keyspace(keyspace); ks != nil {
		for _, r := range rows {
			var last *schema.ColumnFamily
			for _, m := range r.Mutations {
				cf := ks.ColumnFamilies[m.ColumnFamily]
				if cf != nil && cf.DefaultValidator != nil && strings.HasSuffix(cf.DefaultValidator.Name(), ".CounterColumnType") {
					return invalid("invalid operation for commutative columnfamily %s", cf.Name)
				}
				if cf != nil && cf != last {
					// A row's mutations come family by family.
					written = countRow(written, cf)
					last = cf
				}
			}
		}
	}
	start := time.Now()
	if err := s.store.Apply(ctx, keyspace, rows); err != nil {
		return err
	}
	d := time.Since(start)
	total := 0
	for _, w := range written {
		total += w.rows
	}
	for _, w := range written {
		s.figuresOf(keyspace, w.cf).Wrote(w.rows, d*time.Duration(w.rows)/time.Duration(total))
	}
	return nil
}

// familyRows counts the rows a call writes of one family.
type familyRows struct {
	cf   *schema.ColumnFamily
	rows int
}

// countRow counts one more row of cf.
func countRow(counts []familyRows, cf *schema.ColumnFamily) []familyRows {
	for i := range counts {
		if counts[i].cf == cf {
			counts[i].rows++
			return counts
		}
	}
	return append(counts, familyRows{cf: cf, rows: 1})
}
