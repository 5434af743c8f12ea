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
// ApplyCounters adds by reading the totals a row's mutations touch (from
// the counter cache, else LevelDB), computing the new totals and writing
// them, all under the lock of the row's counter stripe: one LevelDB batch
// carries the new totals, so an add is durable exactly when it is
// applied, and a restart replays the batch as a total, never as a delta
// (a SIGKILL neither loses an acknowledged add nor counts one twice).
//
// Only ApplyCounters writes into a counter family (the handler refuses
// plain writes there), so the stripe's lock alone orders the
// read-modify-write of a counter; Apply's own row lock is taken inside.
//
// Timestamps are the store's, from a clock that never repeats within the
// process (microseconds since the epoch, raised past the last one given),
// so that a removal and a later add are ordered: the add starts the
// counter again from zero. A system clock set back across a restart can
// make a removal made before the restart shadow adds after it until the
// clock passes the removal's time.

// counterState is a Store's counter stripes and clock.
type counterState struct {
	stripes [counterStripes]counterStripe
	last    atomic.Int64
	// epoch moves on whenever counter data may have changed other than
	// through ApplyCounters (a truncation, a schema change, a plain write
	// into a family whose counters are cached): a cached row of an
	// earlier epoch is not used. A family a cached row has counters in is
	// marked (family.countersCached), so that a plain write knows it from
	// the family it resolves anyway.
	epoch atomic.Uint64
}

const (
	counterStripes = 256
	// counterCacheRows bounds the rows each stripe caches: 65,536 rows
	// in all, a few counters each.
	counterCacheRows = 256
)

// The counter cache. An add reads the totals of the counters it adds to
// before it writes the new ones; each stripe keeps the totals it last
// wrote or read of its most recent rows, so an add to a counter in the
// cache writes without reading LevelDB (Cassandra 2.1 keeps a counter
// cache for the same reason). A cached total is exactly what LevelDB
// holds: only the holder of the stripe's apply lock reads or changes the
// cache, every change to a counter of a cached row goes through that
// holder, and everything else that can change counters moves the epoch
// on. A write that fails drops its rows from the cache. The cache lives
// in memory only: a restarted store reads every total once again.

// cachedRow is the known totals of one row's counters: a counter removed
// or never written is known as 0.
type cachedRow struct {
	epoch  uint64
	totals map[counterCell]int64
}

// invalidateCounters makes every cached counter total unusable.
func (c *counterState) invalidateCounters() { c.epoch.Add(1) }

// counterStripe orders the counter writes of the rows that hash to it.
// A write queues in pending, then waits for apply; whoever holds apply
// takes the whole queue and applies it as one LevelDB batch: one read of
// each row's totals and one write for every add queued meanwhile. Adds
// to one hot counter from many connections so cost a read and a write
// per batch, not per add, and a batch is still atomic and durable as one
// write. An add is acknowledged only once the batch holding it is
// written.
type counterStripe struct {
	apply   sync.Mutex
	mu      sync.Mutex // guards pending
	pending []*counterWrite
	cache   map[string]*cachedRow // by rowID; guarded by apply
}

// rowID names a row of a keyspace in the counter cache.
func rowID(keyspace, key string) string { return keyspace + "\x00" + key }

// counterWrite is one row's counter mutations waiting in a stripe, and
// their outcome once done is closed.
type counterWrite struct {
	keyspace string
	row      engine.CounterRow
	err      error
	done     chan struct{}
}

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
// its own batch (perhaps with other callers' rows), in the order given.
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
	s := &st.counters.stripes[st.rowHash(keyspace, r.Key)%counterStripes]
	w := &counterWrite{keyspace: keyspace, row: r, done: make(chan struct{})}
	s.mu.Lock()
	s.pending = append(s.pending, w)
	s.mu.Unlock()

	s.apply.Lock()
	defer s.apply.Unlock()
	select {
	case <-w.done: // applied by the holder before us
		return w.err
	default:
	}
	s.mu.Lock()
	batch := s.pending
	s.pending = nil
	s.mu.Unlock()
	// The batch carries other callers' adds: the caller that happens to
	// apply it going away must not fail theirs.
	st.applyCounterBatch(context.WithoutCancel(ctx), s, batch)
	return w.err
}

// applyCounterBatch applies the queued writes of one stripe, the rows of
// one keyspace in one LevelDB batch, and closes each write's done with
// its outcome. The writes of one row are merged in queue order: its
// totals are read once, and each counter is written once, at its final
// total.
func (st *Store) applyCounterBatch(ctx context.Context, s *counterStripe, batch []*counterWrite) {
	epoch := st.counters.epoch.Load()
	if len(batch) == 1 {
		w := batch[0]
		id := rowID(w.keyspace, w.row.Key)
		out, totals, err := st.mergeCounterWrites(ctx, s, epoch, w.keyspace, w.row.Key, batch)
		if err == nil {
			err = st.apply(ctx, w.keyspace, []engine.RowMutation{out}, true)
		}
		st.cacheCounters(s, epoch, id, totals, err)
		w.err = err
		close(w.done)
		return
	}
	type row struct{ keyspace, key string }
	var order []row
	byRow := map[row][]*counterWrite{}
	for _, w := range batch {
		id := row{w.keyspace, w.row.Key}
		if _, ok := byRow[id]; !ok {
			order = append(order, id)
		}
		byRow[id] = append(byRow[id], w)
	}
	var keyspaces []string
	rows := map[string][]engine.RowMutation{}
	writes := map[string][]*counterWrite{}
	totals := map[string][]map[counterCell]int64{}
	for _, id := range order {
		ws := byRow[id]
		out, t, err := st.mergeCounterWrites(ctx, s, epoch, id.keyspace, id.key, ws)
		if err != nil {
			// Nothing of this row was written: its callers learn why,
			// and the other rows of the batch go on.
			st.cacheCounters(s, epoch, rowID(id.keyspace, id.key), nil, err)
			for _, w := range ws {
				w.err = err
				close(w.done)
			}
			continue
		}
		if _, ok := rows[id.keyspace]; !ok {
			keyspaces = append(keyspaces, id.keyspace)
		}
		rows[id.keyspace] = append(rows[id.keyspace], out)
		writes[id.keyspace] = append(writes[id.keyspace], ws...)
		totals[id.keyspace] = append(totals[id.keyspace], t)
	}
	for _, ks := range keyspaces {
		err := st.apply(ctx, ks, rows[ks], true)
		for i, r := range rows[ks] {
			st.cacheCounters(s, epoch, rowID(ks, r.Key), totals[ks][i], err)
		}
		for _, w := range writes[ks] {
			w.err = err
			close(w.done)
		}
	}
}

// cacheCounters keeps a row's totals after its write, or forgets the row
// when the write failed (LevelDB may or may not hold it) or the epoch
// moved on while the batch ran.
func (st *Store) cacheCounters(s *counterStripe, epoch uint64, id string, totals map[counterCell]int64, err error) {
	if err != nil || totals == nil || st.counters.epoch.Load() != epoch {
		delete(s.cache, id)
		return
	}
	if r, ok := s.cache[id]; ok {
		r.epoch, r.totals = epoch, totals
		return
	}
	if s.cache == nil {
		s.cache = make(map[string]*cachedRow, counterCacheRows)
	}
	if len(s.cache) >= counterCacheRows {
		for old := range s.cache { // any row: Go's map order is random
			delete(s.cache, old)
			break
		}
	}
	s.cache[id] = &cachedRow{epoch: epoch, totals: totals}
}

// mergeCounterWrites turns the queued writes of one row into one row
// mutation: the new total of every counter they add to, and the
// removals, with timestamps in queue order.
func (st *Store) mergeCounterWrites(ctx context.Context, s *counterStripe, epoch uint64, keyspace, key string, ws []*counterWrite) (engine.RowMutation, map[counterCell]int64, error) {
	all := ws[0].row
	if len(ws) > 1 {
		all = engine.CounterRow{Key: key}
		for _, w := range ws {
			all.Mutations = append(all.Mutations, w.row.Mutations...)
		}
	}
	totals, err := st.rowTotals(ctx, s, epoch, keyspace, all)
	if err != nil {
		return engine.RowMutation{}, nil, err
	}
	out := engine.RowMutation{Key: key, Mutations: make([]engine.Mutation, 0, len(all.Mutations))}
	// lastAdd is where a counter's pending add stands in out, so that a
	// later add rewrites it rather than adding another; a removal ends
	// that, since the add after it must be written after it.
	var lastAdd map[counterCell]int
	if len(all.Mutations) > 1 {
		lastAdd = map[counterCell]int{}
	}
	for _, m := range all.Mutations {
		ts := st.counters.counterClock()
		if m.Delete {
			for c := range totals {
				if c.family == m.ColumnFamily && (m.SuperColumn == nil || (c.hasSuper && c.super == string(m.SuperColumn))) &&
					(m.Name == nil || c.name == string(m.Name)) {
					totals[c] = 0
				}
			}
			clear(lastAdd)
			out.Mutations = append(out.Mutations, engine.Mutation{ColumnFamily: m.ColumnFamily, SuperColumn: m.SuperColumn, Name: m.Name, Timestamp: ts, Delete: true})
			continue
		}
		c := cellOf(m)
		totals[c] += m.Delta
		add := engine.Mutation{ColumnFamily: m.ColumnFamily, SuperColumn: m.SuperColumn, Name: m.Name,
			Value: engine.EncodeCounter(totals[c]), Timestamp: ts}
		if i, ok := lastAdd[c]; ok {
			out.Mutations[i] = add
			continue
		}
		if lastAdd != nil {
			lastAdd[c] = len(out.Mutations)
		}
		out.Mutations = append(out.Mutations, add)
	}
	return out, totals, nil
}

// rowTotals is the totals of the counters of r's row: those the cache
// knows, and those r adds to read from LevelDB. The map is the caller's
// to change.
func (st *Store) rowTotals(ctx context.Context, s *counterStripe, epoch uint64, keyspace string, r engine.CounterRow) (map[counterCell]int64, error) {
	c, ok := s.cache[rowID(keyspace, r.Key)]
	if !ok || c.epoch != epoch {
		return st.counterTotals(ctx, keyspace, r)
	}
	totals := make(map[counterCell]int64, len(c.totals)+1)
	for cell, v := range c.totals {
		totals[cell] = v
	}
	var missing engine.CounterRow
	for _, m := range r.Mutations {
		if m.Delete {
			continue
		}
		if _, ok := totals[cellOf(m)]; !ok {
			missing.Mutations = append(missing.Mutations, m)
		}
	}
	if len(missing.Mutations) == 0 {
		return totals, nil
	}
	missing.Key = r.Key
	read, err := st.counterTotals(ctx, keyspace, missing)
	if err != nil {
		return nil, err
	}
	for cell, v := range read {
		totals[cell] = v
	}
	return totals, nil
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
