package handler

import (
	"context"
	"time"

	"github.com/thriftd/thriftd/dht"
	"github.com/thriftd/thriftd/engine"
	"github.com/thriftd/thriftd/gen-go/cassandra"
)

// getRangeSlices returns up to range.count rows of a column family in ring
// order, each with the items the predicate selects. Rows that have anything
// stored in the column family are returned even when nothing selected is
// live (0.6's range ghosts).
func (c *conn) getRangeSlices(ctx context.Context, keyspace string, parent *cassandra.ColumnParent, pred *cassandra.SlicePredicate, kr *cassandra.KeyRange, cl cassandra.ConsistencyLevel) ([]*cassandra.KeySlice, error) {
	if err := firstError(
		required("column_parent", parent == nil),
		required("predicate", pred == nil),
		required("range", kr == nil),
		rejectUnknownConsistencyLevel(cl),
		c.checkLoginDone(),
	); err != nil {
		return nil, err
	}
	kr = javaKeyRange(kr)
	cf, err := c.s.v.validateColumnParent(keyspace, parent)
	if err != nil {
		return nil, err
	}
	if err := validatePredicate(cf, parent, pred); err != nil {
		return nil, err
	}
	if err := c.s.v.validateKeyRange(kr); err != nil {
		return nil, err
	}
	pieces, err := c.s.rangeBounds(kr)
	if err != nil {
		return nil, err
	}
	if err := checkRangeConsistency(cl); err != nil {
		return nil, err
	}

	q := sliceQuery(cf, parent.SuperColumn, pred)
	want := int(kr.Count)
	out := make([]*cassandra.KeySlice, 0, min(want, 1024))
	start := time.Now()
	for _, b := range pieces {
		rows, err := c.s.store.Range(ctx, keyspace, b, q, want-len(out))
		if err != nil {
			return nil, err
		}
		for _, row := range rows {
			out = append(out, &cassandra.KeySlice{Key: row.Key, Columns: thriftifyRow(row)})
		}
		if len(out) >= want {
			break
		}
	}
	c.s.read(keyspace, cf, max(len(out), 1), start)
	return out, nil
}

// javaKeyRange returns kr with its strings as Java decoded them.
func javaKeyRange(kr *cassandra.KeyRange) *cassandra.KeyRange {
	norm := func(p *string) *string {
		if p == nil {
			return nil
		}
		s := javaString(*p)
		return &s
	}
	return &cassandra.KeyRange{
		StartKey: norm(kr.StartKey), EndKey: norm(kr.EndKey),
		StartToken: norm(kr.StartToken), EndToken: norm(kr.EndToken),
		Count: kr.Count,
	}
}

// rangeBounds resolves a validated KeyRange into the non-wrapping pieces
// to scan, in ring order.
//
// Keys give [token(start_key), token(end_key)], both inclusive; an empty
// end_key has the minimum token and means no upper bound. Validation has
// ruled out start > end, so key bounds never wrap.
//
// Tokens give (start_token, end_token]: start exclusive, end inclusive.
// An end equal to the minimum token means the end of the ring. A range
// whose end is not after its start wraps through the minimum token, and
// start == end is the whole ring beginning just after start.
func (s *Service) rangeBounds(kr *cassandra.KeyRange) ([]engine.TokenRange, error) {
	p := s.sch().Partitioner
	if kr.StartKey != nil {
		return []engine.TokenRange{{
			Start:          p.Token(*kr.StartKey),
			StartInclusive: true,
			End:            p.Token(*kr.EndKey),
		}}, nil
	}
	left, err := parseToken(p, *kr.StartToken)
	if err != nil {
		return nil, err
	}
	right, err := parseToken(p, *kr.EndToken)
	if err != nil {
		return nil, err
	}
	return engine.RingRange(left, right), nil
}

// parseToken reads a token string. 0.6 did not validate tokens and failed
// with an internal error on a bad one (spec 16.3); thriftd refuses it with
// the partitioner's message.
func parseToken(p dht.Partitioner, s string) (dht.Token, error) {
	t, err := p.ParseToken(s)
	if err != nil {
		return nil, invalid("%s", err.Error())
	}
	return t, nil
}
