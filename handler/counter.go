package handler

import (
	"context"
	"strings"

	"github.com/thriftd/thriftd/engine"
)

// applyPlain is store.Apply for the 0.6 API, which has no counters: a
// write into a counter column family (one the 19.x API created with
// default_validation_class CounterColumnType) is refused, as 0.7 refused
// a plain write there, so that no plain value lands among the counters'
// totals. The 0.6 reads see a counter as a column whose value is its
// total, 8 bytes big-endian.
func (s *Service) applyPlain(ctx context.Context, keyspace string, rows []engine.RowMutation) error {
	if ks := s.sch().Keyspace(keyspace); ks != nil {
		for _, r := range rows {
			for _, m := range r.Mutations {
				cf := ks.ColumnFamilies[m.ColumnFamily]
				if cf != nil && cf.DefaultValidator != nil && strings.HasSuffix(cf.DefaultValidator.Name(), ".CounterColumnType") {
					return invalid("invalid operation for commutative columnfamily %s", cf.Name)
				}
			}
		}
	}
	return s.store.Apply(ctx, keyspace, rows)
}
