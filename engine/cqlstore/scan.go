package cqlstore

import (
	gocql "github.com/apache/cassandra-gocql-driver/v2"
)

// cellScan is where a read scans the cells of thriftd's own layouts
// (key, column1, value, writetime, ttl, written_ttl), allocated once per
// read: the destinations in one object rather than one each, and the
// bytes of keys, names and values copied into shared chunks rather than
// into an allocation per cell. The columns a read returns point into the
// chunks, which are never written again (each cell's slice is capped at
// its length), so they live as long as the columns do.
type cellScan struct {
	kb, enc, value raw
	ts             int64
	ttl, wrote     *int32

	chunk   []byte
	next    int // the size of the next chunk
	targets [3]chunkTarget
	dests   [9]any
}

// Chunks start small, so that a read of a few cells costs little, and
// double up to a limit, so that a read of thousands costs a few
// allocations.
const (
	firstChunk = 512
	maxChunk   = 16 << 10
)

// dest is the scan destinations: the key when key (a read of several
// rows), the name, value, write time and TTL, written_ttl when written,
// and cells' (valueCells.dest).
func (s *cellScan) dest(key, written bool, cells *valueCells) []any {
	d := s.dests[:0]
	if key {
		d = append(d, s.into(0, &s.kb))
	}
	d = append(d, s.into(1, &s.enc), s.into(2, &s.value), &s.ts, &s.ttl)
	if written {
		d = append(d, &s.wrote)
	}
	return cells.dest(d)
}

// into is target i, which scans into p.
func (s *cellScan) into(i int, p *raw) *chunkTarget {
	s.targets[i] = chunkTarget{p: p, s: s}
	return &s.targets[i]
}

// clear forgets the cell scanned, for the next row.
func (s *cellScan) clear() {
	s.kb, s.enc, s.value, s.ttl, s.wrote = nil, nil, nil, nil, nil
}

// copy is data in a chunk: nil for null (CQL's), else a slice of its
// length and capacity.
func (s *cellScan) copy(data []byte) raw {
	switch {
	case data == nil:
		return nil
	case len(data) == 0:
		return raw{}
	}
	if len(data) > cap(s.chunk)-len(s.chunk) {
		s.next = min(max(s.next*2, firstChunk), maxChunk)
		s.chunk = make([]byte, 0, max(s.next, len(data)))
	}
	n := len(s.chunk)
	s.chunk = append(s.chunk, data...)
	return raw(s.chunk[n:len(s.chunk):len(s.chunk)])
}

// chunkTarget is a destination of cellScan: it implements
// gocql.Unmarshaler with a copy into the scan's chunks.
type chunkTarget struct {
	p *raw
	s *cellScan
}

// UnmarshalCQL implements gocql.Unmarshaler.
func (t *chunkTarget) UnmarshalCQL(_ gocql.TypeInfo, data []byte) error {
	*t.p = t.s.copy(data)
	return nil
}
