package ldbstore

import (
	"bytes"
	"context"
	"fmt"
	"sort"

	"github.com/syndtr/goleveldb/leveldb"
	"github.com/syndtr/goleveldb/leveldb/iterator"
	"github.com/syndtr/goleveldb/leveldb/util"

	"github.com/thriftd/thriftd/dht"
	"github.com/thriftd/thriftd/engine"
)

// Range implements engine.Store: one ordered walk over the column
// family's row heads, which are stored in token order (head.go). A row
// whose head is current and holds what q reads is answered from the head
// alone; any other is read from the data region by one seek, and a stale
// head is rebuilt on the way, so that the next scan finds it current.
func (st *Store) Range(ctx context.Context, keyspace string, b engine.TokenRange, q engine.Query, maxRows int) ([]engine.Row, error) {
	if err := st.enter(); err != nil {
		return nil, err
	}
	defer st.leave()
	f, err := st.family(keyspace, q.ColumnFamily)
	if err != nil {
		return nil, err
	}
	// Read before the snapshot: a head built from it is published only
	// if no write that skipped its row's marker came after (head.go).
	seq := st.heads.writeSeq.Load()
	snap, err := st.db.GetSnapshot()
	if err != nil {
		return nil, err
	}
	defer snap.Release()
	s := &headScan{st: st, f: f, snap: snap, now: st.now(), seq: seq}
	defer s.release()
	var rows []engine.Row
	var a arena
	err = s.walk(b, func(key string) error {
		r, found, err := s.read(key, q, &a)
		if err != nil || !found {
			return err
		}
		r.Key = key
		rows = append(rows, r)
		if len(rows) >= maxRows {
			return errStop
		}
		return ctx.Err()
	})
	s.flush()
	if err != nil && err != errStop {
		return nil, err
	}
	return rows, s.err()
}

// headScan walks one family's row heads in a snapshot, reading the data
// region through a second iterator of the same snapshot when it must.
type headScan struct {
	st    *Store
	f     *family
	snap  *leveldb.Snapshot
	now   int64
	seq   uint64 // the write sequence number read before the snapshot
	heads iterator.Iterator
	data  *cursor // opened at the first row a head cannot answer

	// The row being visited: its data prefix, its marker version (when it
	// has a marker) and its head's value (when it has a head).
	row       []byte
	marker    uint64
	hasMarker bool
	body      []byte
	hasBody   bool

	head  headIter
	built []byte
	batch leveldb.Batch // rebuilt heads, written when the scan ends

	// What answered the rows: a current head, the data region beside a
	// current head too short for the query, or the data region for a
	// stale head (rebuilt).
	fromHead, fromData, rebuilt int
}

func (s *headScan) release() {
	if s.heads != nil {
		s.heads.Release()
	}
	if s.data != nil {
		s.data.Release()
	}
	s.st.scanStats.add(s.fromHead, s.fromData, s.rebuilt)
}

func (s *headScan) err() error {
	if s.heads != nil {
		if err := s.heads.Error(); err != nil {
			return err
		}
	}
	if s.data != nil {
		return s.data.Error()
	}
	return nil
}

// walk calls visit with the key of every row whose token lies in b, in
// token order, with the scan on that row. A non-nil error from visit ends
// the walk and is returned.
func (s *headScan) walk(b engine.TokenRange, visit func(key string) error) error {
	hp := headRow(nil, s.f.prefix)
	s.heads = s.snap.NewIterator(util.BytesPrefix(hp), nil)
	ok := s.heads.Seek(append(hp, b.Start...))
	for ok {
		k := s.heads.Key()
		key, tok, rest, err := s.st.part.DecodeRowKey(k[len(hp):])
		if err != nil {
			return err
		}
		if len(rest) != 1 {
			return fmt.Errorf("row head key %x: %w", k, errCorrupt)
		}
		if len(b.End) > 0 && bytes.Compare(tok, b.End) > 0 {
			return nil
		}
		skip := !b.StartInclusive && bytes.Equal(tok, b.Start)
		s.row = append(append(s.row[:0], prefixData), k[1:len(k)-1]...)
		s.hasMarker, s.hasBody, s.body = false, false, nil
		if rest[0] == markHeadMarker {
			s.marker, s.hasMarker = headVersion(s.heads.Value())
			if ok = s.heads.Next(); ok && s.isBody(s.heads.Key()) {
				s.body, s.hasBody = s.heads.Value(), true
			}
		} else {
			s.body, s.hasBody = s.heads.Value(), true
		}
		if !skip {
			if err := visit(key); err != nil {
				return err
			}
		}
		if s.hasBody {
			ok = s.heads.Next()
		}
	}
	return nil
}

// isBody reports whether k is the head key of the row being visited.
func (s *headScan) isBody(k []byte) bool {
	return len(k) == len(s.row)+1 && k[len(k)-1] == markHeadBody && bytes.Equal(k[1:len(k)-1], s.row[1:])
}

// read answers q for the row being visited; found is false when the row
// has no stored entry left.
func (s *headScan) read(key string, q engine.Query, a *arena) (r engine.Row, found bool, err error) {
	if !s.hasMarker {
		// A head without a marker is one rebuilt by a scan that raced
		// with the purge of its whole row: nothing of the row is left.
		s.batch.Delete(bodyKey(s.row))
		return r, false, nil
	}
	v, ok := headVersion(s.body)
	current := s.hasBody && ok && v == s.marker
	if current && headShort(s.body, q) {
		s.fromData++
		r, err = readRow(s.dataIter(), s.f, s.row, q, a, s.now)
		return r, true, err
	}
	if current && s.head.reset(s.row, s.body) == nil {
		if s.head.empty() {
			return r, false, nil
		}
		if r, err = readRow(&s.head, s.f, s.row, q, a, s.now); err != nil || s.head.answered() {
			s.fromHead++
			return r, true, err
		}
		s.fromData++
		r, err = readRow(s.dataIter(), s.f, s.row, q, a, s.now)
		return r, true, err
	}
	// A stale head: rebuild it from the data, in this scan's snapshot.
	s.rebuilt++
	var any bool
	s.built, any = buildHead(s.built, s.dataIter(), s.row, s.marker)
	if s.st.mayPublish(s.st.stripe(s.f.def.Keyspace, key), s.row, s.seq) {
		s.batch.Put(bodyKey(s.row), s.built)
		if s.batch.Len() >= headFlush {
			s.flush()
		}
	}
	if !any {
		return r, false, nil
	}
	if err := s.head.reset(s.row, s.built); err != nil {
		return r, false, err
	}
	if r, err = readRow(&s.head, s.f, s.row, q, a, s.now); err != nil || s.head.answered() {
		return r, true, err
	}
	r, err = readRow(s.dataIter(), s.f, s.row, q, a, s.now)
	return r, true, err
}

// headFlush is how many rebuilt heads a scan writes at once.
const headFlush = 256

func (s *headScan) dataIter() *cursor {
	if s.data == nil {
		s.data = newCursor(s.snap.NewIterator(nil, nil))
	}
	return s.data
}

// flush writes the heads the scan rebuilt. A head is a copy: a failure to
// write it costs the next scan a rebuild, and fails no read.
func (s *headScan) flush() {
	if s.batch.Len() == 0 {
		return
	}
	if !s.st.failed.Load() {
		if err := s.st.db.Write(&s.batch, nil); err != nil {
			s.st.noteWriteError(err)
			s.st.opts.Logger.Warn("writing rebuilt row heads failed", "dir", s.st.dir, "err", err)
		}
	}
	s.batch.Reset()
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
func (st *Store) walkRows(it iterator.Iterator, f *family, b engine.TokenRange, visit func(key string, row []byte) error) error {
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

// Splits implements engine.Store by walking the row tokens of the column
// families named in b.
func (st *Store) Splits(ctx context.Context, keyspace, columnFamily string, b engine.TokenRange, keysPerSplit int) ([]dht.Token, error) {
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
	var tokens []dht.Token
	for name, f := range st.cfs {
		if (keyspace != "" && name.keyspace != keyspace) || (columnFamily != "" && name.name != columnFamily) {
			continue
		}
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
	var out []dht.Token
	for i := keysPerSplit; i < len(tokens); i += keysPerSplit {
		if len(b.End) > 0 && bytes.Equal(tokens[i-1], b.End) {
			break
		}
		out = append(out, tokens[i-1])
	}
	return out, it.Error()
}
