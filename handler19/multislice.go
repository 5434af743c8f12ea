package handler19

import (
	"context"
	"sort"
	"time"

	"github.com/thriftd/thriftd/auth"
	"github.com/thriftd/thriftd/engine"
	"github.com/thriftd/thriftd/gen-go/cassandra19"
)

// get_multi_slice, Cassandra 2.1's call: several ranges of one row's
// columns in one read, walked in one direction and capped by one count.

// span is one ColumnSlice, an empty bound meaning none.
type span struct{ start, finish []byte }

// getMultiSlice is CassandraServer.get_multi_slice of 2.1.21, with its
// checks in its order: keyspace, family (not a super one), column parent,
// consistency level, each slice's direction, and the key last.
func (c *conn) getMultiSlice(ctx context.Context, req *cassandra19.MultiSliceRequest) ([]*cassandra19.ColumnOrSuperColumn, error) {
	// ClientState.getKeyspace of 2.1.21, whose message this call carries.
	ks := c.keyspace
	if ks == "" {
		return nil, invalid(msgNoKeyspace)
	}
	// 2.1.21 fails on a request without a parent or slices, or with an
	// empty list of slices, with an internal error that drops the
	// connection; they are refused here instead, and no slices read
	// nothing.
	if req.ColumnParent == nil {
		return nil, invalid("get_multi_slice requires a column_parent")
	}
	f, err := c.s.validateColumnFamily(c.s.schema(), ks, req.ColumnParent.ColumnFamily)
	if err != nil {
		return nil, err
	}
	if err := c.checkAccess(ctx, ks, f, auth.Select); err != nil {
		return nil, err
	}
	if f.Super {
		return nil, invalid("get_multi_slice does not support super columns")
	}
	if err := validateColumnParent(f, req.ColumnParent); err != nil {
		return nil, err
	}
	if err := validateConsistencyForRead(req.ConsistencyLevel); err != nil {
		return nil, err
	}
	if req.ColumnSlices == nil {
		return nil, invalid("get_multi_slice requires column_slices")
	}
	cmp := f.cmp.Compare
	if req.Reversed {
		cmp = func(a, b []byte) int { return f.cmp.Compare(b, a) }
	}
	spans := make([]span, len(req.ColumnSlices))
	for i, s := range req.ColumnSlices {
		if s == nil {
			s = &cassandra19.ColumnSlice{}
		}
		if len(s.Start) > 0 && len(s.Finish) > 0 {
			c := f.cmp.Compare(s.Start, s.Finish)
			if !req.Reversed && c > 0 {
				return nil, invalid("Column slice at index %d had start greater than finish", i)
			}
			if req.Reversed && c < 0 {
				return nil, invalid("Reversed column slice at index %d had start less than finish", i)
			}
		}
		spans[i] = span{s.Start, s.Finish}
	}
	spans = deoverlap(spans, cmp)
	if err := validateKey(f, req.Key); err != nil {
		return nil, err
	}
	var out []*cassandra19.ColumnOrSuperColumn
	left := int(req.Count)
	start := time.Now()
	for _, s := range spans {
		if left <= 0 {
			break
		}
		q := engine.Query{ColumnFamily: f.Name}
		q.Start, q.Finish, q.Reversed, q.Count = s.start, s.finish, req.Reversed, left
		row, err := c.s.store.Get(ctx, ks, string(req.Key), q)
		if err != nil {
			return nil, err
		}
		got := thriftifyRow(row, f)
		out = append(out, got...)
		left -= len(got)
	}
	f.read(1, start)
	if out == nil {
		out = []*cassandra19.ColumnOrSuperColumn{}
	}
	return out, nil
}

// deoverlap is ColumnSlice.deoverlapSlices: the spans sorted in the order
// of traversal (cmp), those that overlap merged into one, so that every
// column is read once and in order.
func deoverlap(spans []span, cmp func(a, b []byte) int) []span {
	if len(spans) <= 1 {
		return spans
	}
	sort.SliceStable(spans, func(i, j int) bool { return compareSpans(spans[i], spans[j], cmp) < 0 })
	out := make([]span, 0, len(spans))
	last := spans[0]
	for _, s := range spans[1:] {
		inStart := last.includes(s.start, cmp)
		var inFinish bool
		if len(s.finish) == 0 {
			inFinish = len(last.finish) == 0
		} else {
			inFinish = last.includes(s.finish, cmp)
		}
		switch {
		case inStart && inFinish:
		case !inStart && !inFinish:
			out = append(out, last)
			last = s
		case inStart:
			last = span{last.start, s.finish}
		}
		// A span whose finish but not start lies in last cannot follow it
		// in this order; 2.1.21 drops it too.
	}
	return append(out, last)
}

// compareSpans orders spans by start (an empty one first), then by finish
// (an empty one last).
func compareSpans(a, b span, cmp func(a, b []byte) int) int {
	if len(a.start) == 0 || len(b.start) == 0 {
		if (len(a.start) == 0) != (len(b.start) == 0) {
			if len(a.start) == 0 {
				return -1
			}
			return 1
		}
	} else if c := cmp(a.start, b.start); c != 0 {
		return c
	}
	if len(a.finish) == 0 || len(b.finish) == 0 {
		if len(a.finish) == 0 {
			return 1
		}
		return -1
	}
	return cmp(a.finish, b.finish)
}

// includes is ColumnSlice.includes: name lies within the span's bounds.
func (s span) includes(name []byte, cmp func(a, b []byte) int) bool {
	return (len(s.start) == 0 || cmp(s.start, name) <= 0) && (len(s.finish) == 0 || cmp(s.finish, name) >= 0)
}
