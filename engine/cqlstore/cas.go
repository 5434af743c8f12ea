package cqlstore

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/thriftd/thriftd/engine"
)

// CompareAndSet implements engine.CASStore with the cluster's lightweight
// transactions, in rounds (docs/cassandra.md, "cas"):
//
//  1. A read at SERIAL (LOCAL_SERIAL) of what the condition needs: the
//     expected names, or the row's first live column for an empty
//     condition. When the condition does not hold, that read is the
//     answer: a serial read is linearizable with every transaction of
//     the partition.
//  2. When it holds, one conditional batch on the row's partition makes
//     the condition part of the write: IF value = e for each expected
//     name; for an empty condition, IF NOT EXISTS for each written name
//     and IF ghost = (what the round read) on the partition's static
//     ghost column, which the batch writes anew (ghostFence). When the
//     batch is not applied, another transaction came between, and the
//     round starts again.
//
// The batch carries no USING TIMESTAMP (Cassandra refuses one on a
// conditional write): its cells are written at the Paxos ballot's time,
// as 2.1's cas writes them.
func (st *Store) CompareAndSet(ctx context.Context, keyspace, key string, c engine.CAS) (bool, []engine.Column, error) {
	serial := gocql.Serial
	if c.LocalSerial {
		serial = gocql.LocalSerial
	}
	commit := writeConsistency(engine.Consistency(ctx))
	if commit == gocql.Any {
		// Cassandra 5 acknowledges a Paxos commit at ANY before any
		// replica applies it, so the caller's next read could miss the
		// update it was told succeeded; 2.1 applied it first. ONE keeps
		// ANY's promise and 2.1's visibility.
		commit = gocql.One
	}
	readCtx := engine.WithConsistency(ctx, engine.ConsistencyLevel(9))
	if c.LocalSerial {
		readCtx = engine.WithConsistency(ctx, engine.ConsistencyLevel(10))
	}
	f, err := st.family(keyspace, c.ColumnFamily)
	if err != nil {
		return false, nil, err
	}
	q := engine.Query{ColumnFamily: c.ColumnFamily}
	if len(c.Expected) == 0 {
		q.Count = 1
	} else {
		// A name the comparator refuses is never stored (2.1 did not
		// check expected names, and such a condition fails), and a typed
		// table could not even be asked for it.
		q.Names = make([][]byte, 0, len(c.Expected))
		for _, e := range c.Expected {
			if f.def.Comparator == nil || f.def.Comparator.Validate(e.Name) == nil {
				q.Names = append(q.Names, e.Name)
			}
		}
	}
	// An empty condition is fenced by the partition's static ghost
	// column (ghostFence) where the table has one.
	fenced := len(c.Expected) == 0 && len(c.Updates) > 0 && f.layout.casFenced(f)
	for round := 0; ; round++ {
		var fence *ghostFence
		err = nil
		if fenced {
			// Read before the row: a creator that wins after this read
			// has changed the ghost, one that won before it is seen by
			// the row's read.
			fence, err = st.readGhost(readCtx, f, key)
		}
		var row engine.Row
		if err == nil {
			row, err = st.Get(readCtx, keyspace, key, q)
		}
		if errors.Is(err, engine.ErrTimedOut) && round < maxSerialReadRetries && ctx.Err() == nil {
			// A serial read is a Paxos round: under contention the
			// cluster gives up on it (a read timeout with no answers).
			// It changes nothing, so it is tried again; a conditional
			// batch that times out is not, its outcome being unknown.
			casBackOff(ctx, round)
			continue
		}
		if err != nil {
			return false, nil, err
		}
		if !engine.CASHolds(c.Expected, row.Columns) {
			return false, row.Columns, nil
		}
		if len(c.Updates) == 0 {
			return true, nil, nil
		}
		applied, err := st.casBatch(ctx, keyspace, key, c, row.Columns, fence, serial, commit)
		if err != nil || applied {
			return applied, nil, err
		}
		// Contention: back off a little, as Cassandra's own rounds do.
		if err := casBackOff(ctx, round); err != nil {
			return false, nil, err
		}
	}
}

// maxSerialReadRetries bounds the serial reads of one compare-and-set
// that the cluster may give up on under contention.
const maxSerialReadRetries = 20

// casBackOff waits a random while that grows with round, up to 100 ms,
// or until ctx is done.
func casBackOff(ctx context.Context, round int) error {
	select {
	case <-ctx.Done():
		return clusterError(ctx, "cas", ctx.Err())
	case <-time.After(time.Duration(1+rand.IntN(10*min(round+1, 10))) * time.Millisecond):
		return nil
	}
}

// ghostFence is the partition's ghost column as a serial read found it:
// the condition of an empty expected. Every compare-and-set with an
// empty condition writes the ghost anew (a value no other writes) in its
// batch, IF ghost still holds what its round read: of two creators whose
// rounds interleave, the second's batch finds the ghost changed, and its
// next round finds the row. IF NOT EXISTS on each written name alone
// would let two creators of different names both win.
type ghostFence struct {
	value []byte // nil: no ghost
	ttl   int    // seconds it has left to live; 0 without a ghost
}

// minFenceTTL is the least TTL a fence's ghost is written with: longer
// than any round can last between its reads and its batch, so that the
// ghost cannot expire back to the value a concurrent round read.
const minFenceTTL = 3600

// readGhost reads the ghost of key's partition at the serial level ctx
// carries.
func (st *Store) readGhost(ctx context.Context, f *family, key string) (*ghostFence, error) {
	bctx, cancel := st.withRequestTimeout(ctx)
	defer cancel()
	var g ghostFence
	var value raw
	var ttl *int
	err := st.readQuery(bctx, f.cql.readGhost, st.keyOf(f, key)).Scan(&value, &ttl)
	if errors.Is(err, gocql.ErrNotFound) {
		return &g, nil
	}
	if err != nil {
		return nil, clusterError(bctx, "cas: read "+f.table, err)
	}
	g.value = value
	if value != nil && ttl != nil {
		g.ttl = *ttl
	}
	return &g, nil
}

// casBatch is one conditional batch of a compare-and-set whose condition
// held on current (the live expected columns, or nothing), fenced by the
// partition's ghost when fence is set.
func (st *Store) casBatch(ctx context.Context, keyspace, key string, c engine.CAS, current []engine.Column, fence *ghostFence, serial, commit gocql.Consistency) (bool, error) {
	if err := st.enter(); err != nil {
		return false, err
	}
	defer st.leave()
	f, err := st.family(keyspace, c.ColumnFamily)
	if err != nil {
		return false, err
	}
	if f.system || f.def.Super {
		return false, fmt.Errorf("cqlstore: cas on %s.%s is not served", keyspace, c.ColumnFamily)
	}
	kb := st.keyOf(f, key)
	cmp := f.def.Comparator
	updated := map[string]bool{}
	b := st.session.Batch(gocql.UnloggedBatch).Consistency(commit).SerialConsistency(serial)
	bq := func(stmt string, args ...any) { b.Query(stmt, args...) }
	if fence != nil {
		// Kept at least as long as it had left (a range ghost's time)
		// and the family's grace.
		ttl := max(fence.ttl, st.gcGrace(f.def), minFenceTTL)
		var nonce [16]byte
		binary.BigEndian.PutUint64(nonce[:8], rand.Uint64())
		binary.BigEndian.PutUint64(nonce[8:], rand.Uint64())
		if fence.value == nil {
			bq(f.cql.fenceNew, capTTL(ttl), nonce[:], kb)
		} else {
			bq(f.cql.fenceSwap, capTTL(ttl), nonce[:], kb, fence.value)
		}
	}
	expected := map[string][]byte{}
	for _, e := range c.Expected {
		expected[string(e.Name)] = e.Value
	}
	for _, m := range c.Updates {
		cols, vals := f.layout.row(f, cmp, m.Name)
		// A table with blob_value (typed.go) holds the value in the
		// column of its validator's type; so does the condition.
		vc, _ := f.valueColumn(m.Name)
		n, components := f.writtenComponents(engine.Mutation{Name: m.Name})
		t := f.texts.cas.texts(f, cols, vc, components)
		insertArgs := append(append([]any{kb}, vals...), raw(nonNil(m.Value)))
		if components {
			insertArgs = append(insertArgs, n)
		}
		updated[string(m.Name)] = true
		switch e, cond := expected[string(m.Name)]; {
		case m.Delete:
			bq(t.delete, append([]any{kb}, vals...)...)
		case len(c.Expected) == 0:
			bq(t.insertNew, insertArgs...)
		case cond:
			bq(t.update, append(append([]any{raw(nonNil(m.Value)), kb}, vals...), raw(nonNil(e)))...)
		default:
			bq(t.insert, insertArgs...)
		}
	}
	// An expected column the call does not write still needs its
	// condition in the batch, which only a statement on its row can
	// carry: it is written again with its value and the time it has
	// left to live.
	for _, col := range current {
		if updated[string(col.Name)] {
			continue
		}
		cols, vals := f.layout.row(f, cmp, col.Name)
		args := append(append([]any{raw(nonNil(col.Value)), kb}, vals...), raw(nonNil(col.Value)))
		vc, _ := f.valueColumn(col.Name)
		t := f.texts.cas.texts(f, cols, vc, false)
		if col.TTL > 0 {
			bq(t.updateTTL, append([]any{int(col.TTL)}, args...)...)
		} else {
			bq(t.update, args...)
		}
	}
	bctx, cancel := st.withRequestTimeout(ctx)
	defer cancel()
	// MapExecCAS reads the first row whatever its columns: a batch not
	// applied answers with the current values of its conditions' rows.
	applied, iter, err := b.WithContext(bctx).MapExecCAS(map[string]any{})
	if err != nil {
		return false, clusterError(bctx, "cas", err)
	}
	if iter != nil {
		if err := iter.Close(); err != nil {
			return false, clusterError(bctx, "cas", err)
		}
	}
	return applied, nil
}

// rowWhere restricts a statement of a partition to the row whose
// clustering columns are cols.
func rowWhere(cols []string) string { return ` AND ` + strings.Join(cols, ` = ? AND `) + ` = ?` }

// casTexts are a family's compare-and-set statements, by the row's
// clustering columns, the value column and whether the name's components
// are written: built on first use and kept, as the family's other texts
// (familyTexts). A table has a few of each: one row shape per composite
// prefix, a value column per validator.
type casTexts struct{ m sync.Map } // casKey → *casStatements

type casKey struct {
	cols, value string
	components  bool
}

// casStatements are the statements of one row shape of casBatch.
type casStatements struct {
	// insert writes the row (key, clustering, value[, components]);
	// insertNew writes it only if it does not exist.
	insert, insertNew string
	delete            string
	// update sets the value if it is the expected one; updateTTL with a
	// TTL first.
	update, updateTTL string
}

func (t *casTexts) texts(f *family, cols []string, value string, components bool) *casStatements {
	k := casKey{cols: strings.Join(cols, ", "), value: value, components: components}
	if s, ok := t.m.Load(k); ok {
		return s.(*casStatements)
	}
	row := rowWhere(cols)
	names, marks := f.col.key+`, `+k.cols+`, `+value, `?`+strings.Repeat(`, ?`, len(cols)+1)
	if components {
		names, marks = names+`, `+nameComponentsColumn, marks+`, ?`
	}
	insert := `INSERT INTO ` + f.table + ` (` + names + `) VALUES (` + marks + `)`
	set := ` SET ` + value + ` = ? WHERE ` + f.col.key + ` = ?` + row + ` IF ` + value + ` = ?`
	s, _ := t.m.LoadOrStore(k, &casStatements{
		insert:    insert,
		insertNew: insert + ` IF NOT EXISTS`,
		delete:    `DELETE FROM ` + f.table + ` WHERE ` + f.col.key + ` = ?` + row,
		update:    `UPDATE ` + f.table + set,
		updateTTL: `UPDATE ` + f.table + ` USING TTL ?` + set,
	})
	return s.(*casStatements)
}

// nonSerial is ctx with a serial level replaced by the quorum the cluster
// reads with after its Paxos round, for reads of several partitions,
// which Cassandra does not serve at a serial level (2.1 read ranges at
// SERIAL as at QUORUM).
func nonSerial(ctx context.Context) context.Context {
	switch engine.Consistency(ctx) {
	case 9:
		return engine.WithConsistency(ctx, engine.Quorum)
	case 10:
		return engine.WithConsistency(ctx, engine.DCQuorum)
	}
	return ctx
}

// serialConsistency is the cluster's level for the 19.x API's SERIAL (9)
// and LOCAL_SERIAL (10): a read of one partition at it first completes
// any transaction in progress there.
func serialConsistency(l engine.ConsistencyLevel) gocql.Consistency {
	if l == 10 {
		return gocql.LocalSerial
	}
	return gocql.Serial
}
