package ldbstore

import (
	"bytes"
	"context"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/thriftd/thriftd/engine"
)

// Counters. A counter is stored as an ordinary column whose value is its
// total (engine.EncodeCounter), so every read path serves it unchanged.
// ApplyCounters adds by reading the totals a row's mutations touch,
// computing the new totals and writing them with Apply, all under the
// row's counter lock: one LevelDB batch carries the new totals, so an add
// is durable exactly when it is applied, and a restart replays the batch
// as a total, never as a delta (a SIGKILL neither loses an acknowledged
// add nor counts one twice).
//
// Only ApplyCounters writes into a counter family (the handler refuses
// plain writes there), so the counter lock alone orders the
// read-modify-write of a counter; Apply's own row lock is taken inside.
//
// Timestamps are the store's, from a clock that never repeats within the
// process (microseconds since the epoch, raised past the last one given),
// so that a removal and a later add are ordered: the add starts the
// counter again from zero. A system clock set back across a restart can
// make a removal made before the restart shadow adds after it until the
// clock passes the removal's time.

// counterState is a Store's counter locks and clock.
type counterState struct {
	locks [counterStripes]sync.Mutex
	last  atomic.Int64
}

const counterStripes = 256

// counterClock returns a timestamp greater than every one it gave before.
func (c *counterState) counterClock() int64 {
	now := time.Now().UnixMicro()
	for {
		last := c.last.Load()
		next := max(now, last+1)
		if c.last.CompareAndSwap(last, next) {
			return next
		}
	}
}

// ApplyCounters implements engine.CounterStore. Each row is applied in
// its own batch, in the order given.
func (st *Store) ApplyCounters(ctx context.Context, keyspace string, rows []engine.CounterRow) error {
	for _, r := range rows {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := st.applyCounterRow(ctx, keyspace, r); err != nil {
			return err
		}
	}
	return nil
}

// counterCell names one counter of a row.
type counterCell struct {
	family, super, name string
	hasSuper            bool
}

func (st *Store) applyCounterRow(ctx context.Context, keyspace string, r engine.CounterRow) error {
	if len(r.Mutations) == 0 {
		return nil
	}
	mu := &st.counters.locks[st.rowHash(keyspace, r.Key)%counterStripes]
	mu.Lock()
	defer mu.Unlock()

	totals, err := st.counterTotals(ctx, keyspace, r)
	if err != nil {
		return err
	}
	out := engine.RowMutation{Key: r.Key, Mutations: make([]engine.Mutation, 0, len(r.Mutations))}
	for _, m := range r.Mutations {
		ts := st.counters.counterClock()
		if m.Delete {
			for c := range totals {
				if c.family == m.ColumnFamily && (m.SuperColumn == nil || (c.hasSuper && c.super == string(m.SuperColumn))) &&
					(m.Name == nil || c.name == string(m.Name)) {
					totals[c] = 0
				}
			}
			out.Mutations = append(out.Mutations, engine.Mutation{ColumnFamily: m.ColumnFamily, SuperColumn: m.SuperColumn, Name: m.Name, Timestamp: ts, Delete: true})
			continue
		}
		c := cellOf(m)
		totals[c] += m.Delta
		out.Mutations = append(out.Mutations, engine.Mutation{ColumnFamily: m.ColumnFamily, SuperColumn: m.SuperColumn, Name: m.Name,
			Value: engine.EncodeCounter(totals[c]), Timestamp: ts})
	}
	return st.Apply(ctx, keyspace, []engine.RowMutation{out})
}

func cellOf(m engine.CounterMutation) counterCell {
	return counterCell{family: m.ColumnFamily, super: string(m.SuperColumn), name: string(m.Name), hasSuper: m.SuperColumn != nil}
}

// counterTotals reads the stored total of every counter r adds to (0 for
// one absent), one read per family and super column.
func (st *Store) counterTotals(ctx context.Context, keyspace string, r engine.CounterRow) (map[counterCell]int64, error) {
	type level struct {
		family, super string
		hasSuper      bool
	}
	names := map[level][][]byte{}
	totals := make(map[counterCell]int64, len(r.Mutations))
	for _, m := range r.Mutations {
		if m.Delete {
			continue
		}
		c := cellOf(m)
		if _, ok := totals[c]; ok {
			continue
		}
		totals[c] = 0
		l := level{c.family, c.super, c.hasSuper}
		names[l] = append(names[l], m.Name)
	}
	levels := make([]level, 0, len(names))
	for l := range names {
		levels = append(levels, l)
	}
	sort.Slice(levels, func(i, j int) bool {
		return levels[i].family < levels[j].family || (levels[i].family == levels[j].family && levels[i].super < levels[j].super)
	})
	for _, l := range levels {
		q := engine.Query{ColumnFamily: l.family, Predicate: engine.Predicate{Names: names[l], Count: len(names[l])}}
		if l.hasSuper {
			q.SuperColumn = []byte(l.super)
		}
		row, err := st.Get(ctx, keyspace, r.Key, q)
		if err != nil {
			return nil, err
		}
		for _, col := range row.Columns {
			total, err := engine.DecodeCounter(col.Value)
			if err != nil {
				return nil, fmt.Errorf("counter %s of row %q in %s: %w", bytesName(col.Name), r.Key, l.family, err)
			}
			totals[counterCell{family: l.family, super: l.super, name: string(col.Name), hasSuper: l.hasSuper}] = total
		}
	}
	return totals, nil
}

func bytesName(b []byte) string {
	if bytes.IndexFunc(b, func(r rune) bool { return r < 0x20 || r > 0x7e }) >= 0 {
		return fmt.Sprintf("0x%x", b)
	}
	return string(b)
}

var _ engine.CounterStore = (*Store)(nil)
