package cqlstore

import (
	"encoding/binary"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
)

// inserts binds the values of one row's column inserts (key, column1,
// value, USING TIMESTAMP) from backing arrays shared by the row's
// statements: the row's key boxed once, each name, value and timestamp
// bound by pointer (no allocation to box it), the arguments in one array,
// rather than five allocations a column.
type inserts struct {
	key    any
	raws   []raw
	stamps []stamp
	args   []any
}

// newInserts makes room for n inserts of the row key.
func newInserts(key raw, n int) *inserts {
	return &inserts{key: key, raws: make([]raw, 0, 2*n), stamps: make([]stamp, 0, n), args: make([]any, 0, 4*n)}
}

// insert is the arguments of one insert of name and value at ts.
func (b *inserts) insert(name, value raw, ts int64) []any {
	r, s, a := len(b.raws), len(b.stamps), len(b.args)
	if r+2 > cap(b.raws) || s+1 > cap(b.stamps) || a+4 > cap(b.args) {
		// More than newInserts made room for: a fresh array (the
		// statements made so far keep theirs).
		*b = *newInserts(b.key.(raw), max(cap(b.stamps), 1))
		r, s, a = 0, 0, 0
	}
	b.raws = append(b.raws, name, value)
	b.stamps = append(b.stamps, stamp(ts))
	b.args = append(b.args, b.key, &b.raws[r], &b.raws[r+1], &b.stamps[s])
	return b.args[a : a+4 : a+4]
}

// stamp is a bigint bound by pointer (a write's USING TIMESTAMP).
type stamp int64

// MarshalCQL implements gocql.Marshaler: a bigint's eight bytes.
func (s *stamp) MarshalCQL(gocql.TypeInfo) ([]byte, error) {
	return binary.BigEndian.AppendUint64(make([]byte, 0, 8), uint64(*s)), nil
}
