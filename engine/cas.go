package engine

import (
	"bytes"
	"context"
)

// CAS is one compare-and-set on a row of a Standard column family: the
// 19.x API's cas (Cassandra 2.0's lightweight transactions, as
// ThriftCASRequest defines them).
type CAS struct {
	ColumnFamily string
	// Expected is the condition. Empty: the row has no live column in
	// ColumnFamily. Otherwise every name in Expected (unique names; the
	// caller reconciles repeats) has a live column whose value equals the
	// expected value; other columns do not matter.
	Expected []Column
	// Updates are the writes applied when the condition holds, all of
	// them atomically with the check. Their Timestamp is ignored: the
	// Store writes them at a time of its own that is later than any
	// earlier compare-and-set of the row (Cassandra writes them at the
	// Paxos ballot's time), and never expiring (2.1's cas drops TTLs).
	Updates []Mutation
	// LocalSerial asks for LOCAL_SERIAL rather than SERIAL: the
	// condition is agreed within the local data centre only. The commit
	// of Updates is at the level ctx carries (engine.WithConsistency).
	LocalSerial bool
}

// CASStore is implemented by a Store that serves compare-and-set.
// CompareAndSet is linearizable with every other CompareAndSet and
// ReadSerial of the same row; plain Apply writes are not ordered with it
// beyond what their timestamps give, as in Cassandra.
type CASStore interface {
	// CompareAndSet applies c.Updates to the row key when c.Expected
	// holds and reports true. When it does not, it reports false and the
	// current columns the condition was checked against: the live
	// columns among the expected names, or for an empty Expected the
	// row's first live column (2.1 read one), in comparator order.
	CompareAndSet(ctx context.Context, keyspace, key string, c CAS) (applied bool, current []Column, err error)
}

// Serial reports whether ctx carries one of the 19.x API's serial
// consistency levels (SERIAL 9, LOCAL_SERIAL 10), with which a read sees
// every compare-and-set that completed before it.
func Serial(ctx context.Context) bool {
	l := Consistency(ctx)
	return l == 9 || l == 10
}

// CASHolds is ThriftCASRequest.appliesTo on the live columns current holds,
// as read for expected: no live column when expected is empty, else a live column
// of each expected name with the expected value (an expected nil value
// matches nothing).
func CASHolds(expected, current []Column) bool {
	if len(expected) == 0 {
		return len(current) == 0
	}
	for _, e := range expected {
		found := false
		for _, c := range current {
			if bytes.Equal(c.Name, e.Name) {
				found = e.Value != nil && bytes.Equal(c.Value, e.Value)
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}
