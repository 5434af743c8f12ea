package engine

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
)

// Counters (the 19.x API's CounterColumnType column families).
//
// A counter is written only through a CounterStore's ApplyCounters, never
// through Store.Apply: the handler refuses plain writes into a counter
// family and counter writes into any other. A counter is read through the
// Store's ordinary reads (Get, GetMany, Count, Range) as a Column whose
// Value is its total as an 8-byte big-endian two's-complement integer
// (EncodeCounter); its Timestamp is the store's and means nothing to a
// client, and it never expires.

// CounterMutation is one change to the counters of one row of one counter
// column family.
//
//	Delete  SuperColumn  Name   effect
//	false   nil          set    add Delta to counter Name (Standard CF)
//	false   set          set    add Delta to subcounter Name of SuperColumn
//	true    nil          nil    remove every counter of the row
//	true    set          nil    remove the super column's counters
//	true    nil          set    remove counter Name (Standard CF)
//	true    set          set    remove subcounter Name of SuperColumn
//
// A removed counter reads as absent; a later add starts it again from
// zero.
type CounterMutation struct {
	ColumnFamily string
	SuperColumn  []byte
	Name         []byte
	Delta        int64
	Delete       bool
}

// CounterRow is every CounterMutation for one row key, applied in order.
type CounterRow struct {
	Key       string
	Mutations []CounterMutation
}

// CounterStore is implemented by a Store that serves counter column
// families.
//
// ApplyCounters applies each CounterRow atomically and exactly once: when
// it returns nil, every add is counted once, and stays counted across a
// crash of the process as the store's sync mode promises for any write.
// An add is not idempotent, so neither ApplyCounters nor its caller may
// retry one whose outcome is unknown (a time-out): that error is returned
// to the client, as Cassandra returned it.
type CounterStore interface {
	ApplyCounters(ctx context.Context, keyspace string, rows []CounterRow) error
}

// ErrNoCounters is returned by a wrapper's ApplyCounters when the Store
// it wraps is not a CounterStore.
var ErrNoCounters = errors.New("the store does not serve counter column families")

// EncodeCounter is the stored and read form of a counter's total.
func EncodeCounter(total int64) []byte {
	return binary.BigEndian.AppendUint64(make([]byte, 0, 8), uint64(total))
}

// DecodeCounter reads a counter's total from a Column's Value.
func DecodeCounter(v []byte) (int64, error) {
	if len(v) != 8 {
		return 0, fmt.Errorf("a counter's value is 8 bytes, not %d", len(v))
	}
	return int64(binary.BigEndian.Uint64(v)), nil
}
