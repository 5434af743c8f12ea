package ldbstore

import (
	"context"
	"hash/maphash"
	"sync"
	"sync/atomic"

	"github.com/thriftd/thriftd/engine"
)

// casStripes serialise compare-and-sets per row. They are apart from the
// write locks of Apply, which a compare-and-set takes in turn to write; a
// plain write is not held back by them, as Cassandra's writes outside
// Paxos are not.
const casStripes = 256

var (
	casSeed  = maphash.MakeSeed()
	casLocks [casStripes]sync.Mutex
	// casClock is the last write time given to a compare-and-set, in
	// microseconds: each gets a later one, as each Paxos ballot of a row
	// is later than the last.
	casClock atomic.Int64
)

func casStripe(keyspace, key string) *sync.Mutex {
	var h maphash.Hash
	h.SetSeed(casSeed)
	h.WriteString(keyspace)
	h.WriteByte(0)
	h.WriteString(key)
	return &casLocks[h.Sum64()%casStripes]
}

// casTime is a write time in microseconds at or after now and after every
// one it returned before.
func casTime(nowMicros int64) int64 {
	for {
		last := casClock.Load()
		t := max(nowMicros, last+1)
		if casClock.CompareAndSwap(last, t) {
			return t
		}
	}
}

// CompareAndSet implements engine.CASStore. The row's check and write run
// under the row's compare-and-set lock, so compare-and-sets of a row are
// linearizable; the write is an ordinary Apply, durable as the sync mode
// promises. Every read of this store sees every completed write, so reads
// at SERIAL need nothing more.
func (st *Store) CompareAndSet(ctx context.Context, keyspace, key string, c engine.CAS) (bool, []engine.Column, error) {
	l := casStripe(keyspace, key)
	l.Lock()
	defer l.Unlock()

	q := engine.Query{ColumnFamily: c.ColumnFamily}
	if len(c.Expected) == 0 {
		q.Count = 1
	} else {
		q.Names = make([][]byte, len(c.Expected))
		for i, e := range c.Expected {
			q.Names[i] = e.Name
		}
	}
	row, err := st.Get(ctx, keyspace, key, q)
	if err != nil {
		return false, nil, err
	}
	if !engine.CASHolds(c.Expected, row.Columns) {
		return false, row.Columns, nil
	}
	if len(c.Updates) == 0 {
		return true, nil, nil
	}
	ts := casTime(st.opts.Now().UnixMicro())
	muts := make([]engine.Mutation, len(c.Updates))
	for i, m := range c.Updates {
		m.ColumnFamily = c.ColumnFamily
		m.Timestamp = ts
		m.TTL = 0
		if m.Delete {
			// 2.1 writes a Paxos commit's tombstones a microsecond
			// before its cells.
			m.Timestamp = ts - 1
		}
		muts[i] = m
	}
	if err := st.Apply(ctx, keyspace, []engine.RowMutation{{Key: key, Mutations: muts}}); err != nil {
		return false, nil, err
	}
	return true, nil, nil
}
