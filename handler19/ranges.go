package handler19

import (
	"bytes"
	"context"
	"fmt"
	"math/big"
	"time"

	"github.com/thriftd/thriftd/auth"
	"github.com/thriftd/thriftd/dht"
	"github.com/thriftd/thriftd/engine"
	"github.com/thriftd/thriftd/gen-go/cassandra19"
	"github.com/thriftd/thriftd/marshal"
)

// getRangeSlices is CassandraServer.get_range_slices: up to range.count
// rows in ring order, each with what the predicate selects. A row with
// nothing live left still appears, with no columns, until its tombstones
// are purged (range ghosts).
func (c *conn) getRangeSlices(ctx context.Context, parent *cassandra19.ColumnParent, pred *cassandra19.SlicePredicate, kr *cassandra19.KeyRange, cl cassandra19.ConsistencyLevel) ([]*cassandra19.KeySlice, error) {
	ks, err := c.keyspaceOf()
	if err != nil {
		return nil, err
	}
	sch := c.s.schema()
	f, err := c.s.validateColumnFamily(sch, ks, parent.ColumnFamily)
	if err != nil {
		return nil, err
	}
	if err := c.checkAccess(ctx, ks, f, auth.Select); err != nil {
		return nil, err
	}
	if err := validateColumnParent(f, parent); err != nil {
		return nil, err
	}
	if err := validatePredicate(f, parent.SuperColumn, pred); err != nil {
		return nil, err
	}
	p := sch.Partitioner
	if err := c.s.validateKeyRange(p, f, parent.SuperColumn, kr); err != nil {
		return nil, err
	}
	if err := validateConsistencyForRead(cl); err != nil {
		return nil, err
	}
	pieces, err := rangeBounds(p, kr)
	if err != nil {
		return nil, err
	}
	if err := c.assureReplicas(ks, cl); err != nil {
		return nil, err
	}
	q := sliceQuery(f, parent.SuperColumn, pred)
	if len(kr.RowFilter) > 0 {
		return c.searchIndexed(ctx, ks, p, f, kr.RowFilter, pieces, q, int(kr.Count))
	}
	want := int(kr.Count)
	out := make([]*cassandra19.KeySlice, 0, min(want, 1024))
	start := time.Now()
	for _, b := range pieces {
		rows, err := c.s.store.Range(ctx, ks, b, q, want-len(out))
		if err != nil {
			return nil, err
		}
		for _, row := range rows {
			out = append(out, &cassandra19.KeySlice{Key: []byte(row.Key), Columns: thriftifyRow(row, f)})
		}
		if len(out) >= want {
			break
		}
	}
	f.read(max(len(out), 1), start)
	return out, nil
}

// getPagedSlice is CassandraServer.get_paged_slice: the columns of
// consecutive rows from start_column in the first row scanned, then from
// the first column of each later row, until range.count columns have been
// returned in all.
// maxPagedBatch bounds the rows get_paged_slice reads in one store walk.
// Each row of a batch is read with the columns wanted at the batch's
// start, so a batch whose rows turn out wider than the last one reads at
// most this many times the columns the page still wants.
const maxPagedBatch = 4

func (c *conn) getPagedSlice(ctx context.Context, cfName string, kr *cassandra19.KeyRange, startColumn []byte, cl cassandra19.ConsistencyLevel) ([]*cassandra19.KeySlice, error) {
	ks, err := c.keyspaceOf()
	if err != nil {
		return nil, err
	}
	sch := c.s.schema()
	f, err := c.s.validateColumnFamily(sch, ks, cfName)
	if err != nil {
		return nil, err
	}
	if err := c.checkAccess(ctx, ks, f, auth.Select); err != nil {
		return nil, err
	}
	p := sch.Partitioner
	if err := c.s.validateKeyRange(p, f, nil, kr); err != nil {
		return nil, err
	}
	if err := validateConsistencyForRead(cl); err != nil {
		return nil, err
	}
	pieces, err := rangeBounds(p, kr)
	if err != nil {
		return nil, err
	}
	if len(kr.RowFilter) > 0 {
		// 2.0 and 2.1 refuse a row filter here, once the range is read;
		// 1.2 passed it to its index search (docs/api19.md).
		return nil, invalid("Cross-row paging is not supported along with index clauses")
	}
	if err := c.assureReplicas(ks, cl); err != nil {
		return nil, err
	}
	want := int(kr.Count)
	// Never nil: a range that holds no row answers an empty list, which
	// Thrift sends; a nil one would be sent as no result at all.
	out := []*cassandra19.KeySlice{}
	columns := 0
	first := true
	// 1.2 did not validate start_column: one its comparator could not
	// compare threw inside the read of the first row, if that row held
	// any column, and the call timed out.
	uncomparable := !marshal.Comparable12(f.cmp, startColumn)
	start := time.Now()
	for _, b := range pieces {
		// Each piece of a range that wraps around the ring is read with
		// the whole count, as 1.2 sent each piece its own command with the
		// request's count and did not trim the answer: a wrapping range
		// can answer more columns than asked.
		piece := 0
		// Rows are read a batch at a time. The first row is read alone:
		// its slice starts at start_column. Every later row's slice is
		// sized by the columns still wanted when it is reached; a batch
		// reads each of its rows with what was wanted at the batch's
		// start and trims it, which is the same prefix of the row. A
		// batch is as many rows as the last row's width says the rest
		// needs (one after a row with no column, at most maxPagedBatch),
		// so a page of wide rows costs a store walk or two rather than
		// one per row.
		batch := 1
		for piece < want {
			q := engine.Query{ColumnFamily: f.Name}
			q.Count = want - piece
			if first && !uncomparable {
				q.Start = startColumn
			}
			rows, err := c.s.store.Range(ctx, ks, b, q, batch)
			if err != nil {
				return nil, err
			}
			done := len(rows) == 0
			width := 0
			for _, row := range rows {
				cols := thriftifyRow(row, f)
				if len(cols) > want-piece {
					cols = cols[:want-piece]
				}
				if first && uncomparable && len(cols) > 0 {
					return nil, fmt.Errorf("get_paged_slice: start column %x cannot be compared by %s: %w", startColumn, f.cmp.Name(), engine.ErrTimedOut)
				}
				first = false
				out = append(out, &cassandra19.KeySlice{Key: []byte(row.Key), Columns: cols})
				piece += len(cols)
				columns += len(cols)
				width = len(cols)
				// The next row is the first after this one's token.
				b = engine.TokenRange{Start: p.Token(row.Key), End: b.End}
				if piece >= want || (len(b.End) > 0 && bytes.Compare(b.Start, b.End) >= 0) {
					done = true
					break
				}
			}
			if done {
				break
			}
			batch = 1
			if width > 0 {
				batch = min(max((want-piece+width-1)/width, 1), maxPagedBatch)
			}
		}
		if columns >= want {
			break
		}
	}
	f.read(max(len(out), 1), start)
	return out, nil
}

// validateKeyRange is ThriftValidation.validateKeyRange.
func (s *Service) validateKeyRange(p dht.Partitioner, f *family, superColumn []byte, kr *cassandra19.KeyRange) error {
	if (kr.StartKey == nil) == (kr.StartToken == nil) || (kr.EndKey == nil) == (kr.EndToken == nil) {
		return invalid("exactly one each of {start key, start token} and {end key, end token} must be specified")
	}
	if kr.StartToken != nil && kr.EndKey != nil {
		return invalid("start token + end key is not a supported key range")
	}
	switch {
	case kr.StartKey != nil && kr.EndKey != nil:
		start, end := p.Token(string(kr.StartKey)), p.Token(string(kr.EndKey))
		if bytes.Compare(start, end) > 0 && len(end) > 0 {
			if preservesOrder(p) {
				return invalid("start key must sort before (or equal to) finish key in your partitioner!")
			}
			return invalid("start key's token sorts after end key's token.  this is not allowed; you probably should not specify end key at all except with an ordered partitioner")
		}
	case kr.StartKey != nil && kr.EndToken != nil:
		end, err := parseToken(p, *kr.EndToken)
		if err != nil {
			return err
		}
		if len(end) > 0 && bytes.Compare(p.Token(string(kr.StartKey)), end) > 0 {
			return invalid("Start key's token sorts after end token")
		}
	}
	if _, err := s.validateFilterClauses(f, kr.RowFilter); err != nil {
		return err
	}
	if len(kr.RowFilter) > 0 && superColumn != nil {
		return invalid("super columns are not supported for indexing")
	}
	if kr.Count <= 0 {
		return invalid("maxRows must be positive")
	}
	return nil
}

// randomMax is RandomPartitioner's largest token, 2^127.
var randomMax = new(big.Int).Lsh(big.NewInt(1), 127)

// preservesOrder is IPartitioner.preservesOrder.
func preservesOrder(p dht.Partitioner) bool {
	switch p.Name() {
	case "org.apache.cassandra.dht.RandomPartitioner", "org.apache.cassandra.dht.Murmur3Partitioner":
		return false
	}
	return true
}

// rangeBounds resolves a validated KeyRange into the pieces to scan, in
// ring order. Keys bound both ends inclusively, an empty key meaning the
// ring's start or end; a start key with an end token runs through that
// token; tokens give (start, end], wrapping around the ring when end is
// not after start.
func rangeBounds(p dht.Partitioner, kr *cassandra19.KeyRange) ([]engine.TokenRange, error) {
	if kr.StartKey != nil {
		b := engine.TokenRange{Start: p.Token(string(kr.StartKey)), StartInclusive: true}
		if kr.EndKey != nil {
			b.End = p.Token(string(kr.EndKey))
		} else {
			end, err := parseToken(p, *kr.EndToken)
			if err != nil {
				return nil, err
			}
			b.End = end
		}
		return []engine.TokenRange{b}, nil
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

// parseToken reads a token string; the real server failed with an internal
// error on a malformed one, thriftd refuses it with the partitioner's
// message. RandomPartitioner's tokens were any BigInteger there: one below
// its minimum (-1) or above 2^127 bounds a range as those do.
func parseToken(p dht.Partitioner, s string) (dht.Token, error) {
	if p.Name() == "org.apache.cassandra.dht.RandomPartitioner" {
		if n, ok := new(big.Int).SetString(s, 10); ok {
			switch {
			case n.Sign() < 0:
				s = "-1"
			case n.Cmp(randomMax) > 0:
				s = randomMax.String()
			}
		}
	}
	t, err := p.ParseToken(s)
	if err != nil {
		return nil, invalid("%s", err.Error())
	}
	return t, nil
}
