package transfer

import (
	"context"
	"fmt"

	"github.com/thriftd/thriftd/gen-go/cassandra19"
)

// counterCell names one counter of a batch: its row, super column (empty
// in a standard family) and name.
type counterCell struct{ row, super, name string }

// mutateCounters writes a batch of counters whose mutations carry the
// source's totals. An add is not idempotent, so the totals are not added
// as they are: the target's totals of the same counters are read
// (multiget_slice by name) and each counter gets the difference, source
// less target, in one batch_mutate of counter mutations. A counter the
// target lacks counts as 0 (one of total 0 is added 0, which creates it,
// as the source holds it); one already equal is left alone. Every
// attempt reads again, so a batch retried after a lost connection, a
// resumed copy rewriting rows past its checkpoint, or a copy run again
// each end with the source's totals, not a multiple of them. This holds
// while nothing else adds to these counters on the target during the
// copy.
func (c *conn19) mutateCounters(w *writer, b *batch) error {
	ctx := context.Background()
	cl := cassandra19.ConsistencyLevel(w.o.Consistency)
	var keys [][]byte
	var names [][]byte
	seen := map[string]bool{}
	for key, fams := range b.m19 {
		keys = append(keys, []byte(key))
		for _, m := range fams[w.fam] {
			n := itemName19(m.ColumnOrSupercolumn)
			if !seen[string(n)] {
				seen[string(n)] = true
				names = append(names, n)
			}
		}
	}
	if len(keys) == 0 {
		return nil
	}
	parent := &cassandra19.ColumnParent{ColumnFamily: w.fam}
	have, err := c.MultigetSlice(ctx, keys, parent, &cassandra19.SlicePredicate{ColumnNames: names}, cl)
	if err != nil {
		return fmt.Errorf("reading the target's counters: %w", err)
	}
	current := map[counterCell]int64{}
	for key, items := range have {
		for _, it := range items {
			if cc := it.CounterColumn; cc != nil {
				current[counterCell{key, "", string(cc.Name)}] = cc.Value
			}
			if sc := it.CounterSuperColumn; sc != nil {
				for _, cc := range sc.Columns {
					current[counterCell{key, string(sc.Name), string(cc.Name)}] = cc.Value
				}
			}
		}
	}
	diff := func(row, super string, cc *cassandra19.CounterColumn) *cassandra19.CounterColumn {
		have, ok := current[counterCell{row, super, string(cc.Name)}]
		d := cc.Value - have
		if d == 0 && ok {
			return nil
		}
		return &cassandra19.CounterColumn{Name: cc.Name, Value: d}
	}
	out := map[string]map[string][]*cassandra19.Mutation{}
	for key, fams := range b.m19 {
		var muts []*cassandra19.Mutation
		for _, m := range fams[w.fam] {
			it := m.ColumnOrSupercolumn
			if cc := it.CounterColumn; cc != nil {
				if d := diff(key, "", cc); d != nil {
					muts = append(muts, &cassandra19.Mutation{ColumnOrSupercolumn: &cassandra19.ColumnOrSuperColumn{CounterColumn: d}})
				}
				continue
			}
			if sc := it.CounterSuperColumn; sc != nil {
				var cols []*cassandra19.CounterColumn
				for _, cc := range sc.Columns {
					if d := diff(key, string(sc.Name), cc); d != nil {
						cols = append(cols, d)
					}
				}
				if len(cols) > 0 {
					muts = append(muts, &cassandra19.Mutation{ColumnOrSupercolumn: &cassandra19.ColumnOrSuperColumn{CounterSuperColumn: &cassandra19.CounterSuperColumn{Name: sc.Name, Columns: cols}}})
				}
			}
		}
		if len(muts) > 0 {
			out[key] = map[string][]*cassandra19.Mutation{w.fam: muts}
		}
	}
	if len(out) == 0 {
		return nil
	}
	return c.BatchMutate(ctx, out, cl)
}
