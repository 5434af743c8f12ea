package ldbstore

import (
	"bytes"
	"context"
	"sort"

	"github.com/syndtr/goleveldb/leveldb/iterator"

	"github.com/thriftd/thriftd/engine"
	"github.com/thriftd/thriftd/engine/partitioner"
)

// Range implements engine.Store: one ordered walk over the column family's
// rows, which are stored in token order, reading each row in place and
// then seeking past the rest of it, so a wide row costs only what the
// predicate reads.
func (st *Store) Range(ctx context.Context, keyspace string, b engine.Bounds, q engine.Query, maxRows int) ([]engine.Row, error) {
	if err := st.enter(); err != nil {
		return nil, err
	}
	defer st.leave()
	f, err := st.family(keyspace, q.ColumnFamily)
	if err != nil {
		return nil, err
	}
	it := newCursor(st.db.NewIterator(nil, nil))
	defer it.Release()
	var rows []engine.Row
	var a arena
	now := st.now()
	err = st.walkRows(it, f, b, func(key string, row []byte) error {
		r, err := readRow(it, f, row, q, &a, now)
		if err != nil {
			return err
		}
		r.Key = key
		rows = append(rows, r)
		if len(rows) >= maxRows {
			return errStop
		}
		return ctx.Err()
	})
	if err != nil && err != errStop {
		return nil, err
	}
	return rows, it.Error()
}

type stopError struct{}

func (stopError) Error() string { return "stop" }

var errStop error = stopError{}

// walkRows calls visit with the key and the data prefix of every row of f
// whose token lies in b, in token order. visit may move the iterator, and
// must not keep row, whose buffer the next row reuses; a non-nil error
// from it ends the walk and is returned.
//
// Each row costs one seek, past its end, whatever visit read of it: a
// LevelDB seek is dearer than a few steps but far cheaper than stepping
// over the rest of a wide row.
func (st *Store) walkRows(it iterator.Iterator, f *family, b engine.Bounds, visit func(key string, row []byte) error) error {
	var row, end []byte
	ok := it.Seek(append(append([]byte(nil), f.prefix...), b.Start...))
	for ok && bytes.HasPrefix(it.Key(), f.prefix) {
		key, tok, rest, err := st.part.DecodeRowKey(it.Key()[len(f.prefix):])
		if err != nil {
			return err
		}
		row = append(row[:0], it.Key()[:len(it.Key())-len(rest)]...)
		if len(b.End) > 0 && bytes.Compare(tok, b.End) > 0 {
			return nil
		}
		if b.StartInclusive || !bytes.Equal(tok, b.Start) {
			if err := visit(key, row); err != nil {
				return err
			}
		}
		end = append(append(end[:0], row...), markEnd)
		ok = it.Seek(end)
	}
	return nil
}

// Splits implements engine.Store by walking the row tokens of every column
// family in b.
func (st *Store) Splits(ctx context.Context, b engine.Bounds, keysPerSplit int) ([]partitioner.Token, error) {
	if err := st.enter(); err != nil {
		return nil, err
	}
	defer st.leave()
	if keysPerSplit <= 0 {
		keysPerSplit = 1
	}
	it := newCursor(st.db.NewIterator(nil, nil))
	defer it.Release()
	seen := map[string]bool{}
	var tokens []partitioner.Token
	for _, f := range st.cfs {
		err := st.walkRows(it, f, b, func(_ string, row []byte) error {
			_, tok, _, err := st.part.DecodeRowKey(row[len(f.prefix):])
			if err != nil {
				return err
			}
			if !seen[string(tok)] {
				seen[string(tok)] = true
				tokens = append(tokens, clone(tok))
			}
			return ctx.Err()
		})
		if err != nil {
			return nil, err
		}
	}
	sort.Slice(tokens, func(i, j int) bool { return bytes.Compare(tokens[i], tokens[j]) < 0 })
	var out []partitioner.Token
	for i := keysPerSplit; i < len(tokens); i += keysPerSplit {
		if len(b.End) > 0 && bytes.Equal(tokens[i-1], b.End) {
			break
		}
		out = append(out, tokens[i-1])
	}
	return out, it.Error()
}
