package cqlstore

import (
	"bytes"
	"context"
	"fmt"
	"sort"

	"github.com/thriftd/thriftd/dht"
	"github.com/thriftd/thriftd/engine"
)

// Range implements engine.Store: a read of whole rows up to a count
// (scansWhole) is one scan of the table's rows in the cluster's token
// order, which is the 0.6 token order (scanRows); any other pages through
// the table's partitions (SELECT DISTINCT key ... WHERE token(key) >= ?),
// keeping those inside b, then reads their predicate as GetMany does. A
// partition that holds only the ghost marker is a range ghost: it is
// returned with nothing in it.
func (st *Store) Range(ctx context.Context, keyspace string, b engine.TokenRange, q engine.Query, maxRows int) ([]engine.Row, error) {
	if err := st.enter(); err != nil {
		return nil, err
	}
	defer st.leave()
	ctx = nonSerial(ctx)
	f, err := st.family(keyspace, q.ColumnFamily)
	if err != nil {
		return nil, err
	}
	if f.system || maxRows <= 0 {
		return nil, nil
	}
	if scansWhole(f, q) {
		return st.scanRows(ctx, f, b, q, maxRows)
	}
	var keys []string
	err = st.walkKeys(ctx, f, b, maxRows, func(key string, _ dht.Token) bool {
		keys = append(keys, key)
		return len(keys) < maxRows
	})
	if err != nil {
		return nil, err
	}
	return st.readRows(ctx, f, keys, q)
}

// walkKeys calls visit with every row key of f whose 0.6 token lies in b,
// in token order, until visit returns false. want is how many keys the
// caller expects to visit (0: all): the first page asks for no more, so
// that a page of 100 rows does not make the node read 1,000 keys.
//
// Each page is a request of its own, bounded by Cluster.Timeout (as each
// of 2.1's range requests was by range_request_timeout_in_ms), not the
// walk as a whole: a walk of many keys on a busy cluster may rightly take
// longer than one request, and only a page the cluster does not answer in
// time is a timeout. ctx bounds the whole walk.
func (st *Store) walkKeys(ctx context.Context, f *family, b engine.TokenRange, want int, visit func(string, dht.Token) bool) error {
	stmt, args := f.cql.keys, []any(nil)
	if len(b.Start) > 0 {
		// The minimum token needs no bound (and ByteOrdered's, the empty
		// blob, binds as null, which Cassandra refuses).
		stmt, args = f.cql.keysFrom, append(args, st.tokenValue(f, b.Start))
	}
	if want > 0 && !b.StartInclusive && len(b.Start) > 0 {
		// The first key may be the start's own, which is skipped: a page
		// of want keys would then need a second page for the last one.
		want++
	}
	page := pageSize
	if st.rowsPerPage > 0 {
		page = st.rowsPerPage
	}
	size := page
	if want > 0 && want < page {
		// The first page is likely the last.
		size = want
	}
	var state []byte
	for {
		more, next, err := st.walkPage(ctx, f, b, stmt, args, size, state, visit)
		if err != nil || !more || len(next) == 0 {
			return err
		}
		state, size = next, page
	}
}

// walkPage reads one page of walkKeys under its own bound, from state (nil:
// the first), and returns whether visit wants more and the next page's
// state (empty after the last).
func (st *Store) walkPage(ctx context.Context, f *family, b engine.TokenRange, stmt string, args []any, size int, state []byte,
	visit func(string, dht.Token) bool) (more bool, next []byte, err error) {
	pctx, cancel := st.withRequestTimeout(ctx)
	defer cancel()
	iter := st.readQuery(pctx, stmt, args...).PageSize(size).PageState(state).Iter()
	var blob raw
	for iter.Scan(&blob) {
		key, tok, err := st.decodeKey(blob)
		if f.rawKey {
			key, tok, err = string(blob), st.part.Token(string(blob)), nil
		}
		if err != nil {
			iter.Close()
			return false, nil, fmt.Errorf("%s: stored row key: %w", f.table, err)
		}
		if len(b.End) > 0 && bytes.Compare(tok, b.End) > 0 {
			iter.Close()
			return false, nil, nil
		}
		blob = nil
		if !b.StartInclusive && bytes.Equal(tok, b.Start) {
			continue
		}
		if !visit(key, tok) {
			iter.Close()
			return false, nil, nil
		}
	}
	next = iter.PageState()
	if err := iter.Close(); err != nil {
		return false, nil, clusterError(pctx, "scan "+f.table, err)
	}
	return true, next, nil
}

// Splits implements engine.Store by walking the row tokens of the column
// families named in b, as the LevelDB store does: exact, and as costly as
// reading every key of them in b once. It is bounded by ctx and, per page,
// by Cluster.Timeout (walkKeys).
func (st *Store) Splits(ctx context.Context, keyspace, columnFamily string, b engine.TokenRange, keysPerSplit int) ([]dht.Token, error) {
	if err := st.enter(); err != nil {
		return nil, err
	}
	defer st.leave()
	if keysPerSplit <= 0 {
		keysPerSplit = 1
	}
	seen := map[string]bool{}
	var tokens []dht.Token
	for name, f := range *st.cfs.Load() {
		if f.system || (keyspace != "" && name.keyspace != keyspace) || (columnFamily != "" && name.name != columnFamily) {
			continue
		}
		err := st.walkKeys(ctx, f, b, 0, func(_ string, tok dht.Token) bool {
			if !seen[string(tok)] {
				seen[string(tok)] = true
				tokens = append(tokens, append(dht.Token(nil), tok...))
			}
			return ctx.Err() == nil
		})
		if err != nil {
			return nil, err
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	sort.Slice(tokens, func(i, j int) bool { return bytes.Compare(tokens[i], tokens[j]) < 0 })
	var out []dht.Token
	for i := keysPerSplit; i < len(tokens); i += keysPerSplit {
		if len(b.End) > 0 && bytes.Equal(tokens[i-1], b.End) {
			break
		}
		out = append(out, tokens[i-1])
	}
	return out, nil
}
