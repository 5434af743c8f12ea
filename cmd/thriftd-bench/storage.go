package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/syndtr/goleveldb/leveldb"
	"github.com/syndtr/goleveldb/leveldb/filter"
	"github.com/syndtr/goleveldb/leveldb/iterator"
	"github.com/syndtr/goleveldb/leveldb/opt"

	"github.com/thriftd/thriftd/dht"
	"github.com/thriftd/thriftd/marshal"
)

// rawStore is the storage ceiling: the benchmark's reads and writes done
// in-process on goleveldb, with engine/ldbstore's options and key layout
// (see engine/ldbstore/layout.go) but none of its logic: no
// read-before-write reconciliation, no tombstones, no row locks, no
// conversion into engine or Thrift values beyond copying the bytes out.
type rawStore struct {
	db   *leveldb.DB
	part dht.Partitioner
	cmp  marshal.Comparator
	// value is every column's value; names are C0..C<columns-1>.
	value   []byte
	columns int
}

// Layout bytes of engine/ldbstore (layout.go).
const (
	prefixData = 0x01
	markNames  = 0x01
	markEnd    = 0x02
)

func openRaw(dir string, valueSize, columns int) (*rawStore, error) {
	// engine/ldbstore's defaults: bloom filter, 32 MiB cache, 16 MiB memtable.
	db, err := leveldb.OpenFile(dir, &opt.Options{
		Filter:             filter.NewBloomFilter(10),
		BlockCacheCapacity: 32 << 20,
		WriteBuffer:        16 << 20,
	})
	if err != nil {
		return nil, err
	}
	part, err := dht.Lookup("RandomPartitioner")
	if err != nil {
		return nil, err
	}
	cmp, err := marshal.Lookup("BytesType")
	if err != nil {
		return nil, err
	}
	return &rawStore{db: db, part: part, cmp: cmp, value: make([]byte, valueSize), columns: columns}, nil
}

func (s *rawStore) close() error { return s.db.Close() }

// row is the data prefix of a row of column family cf.
func (s *rawStore) row(cf uint32, key string) []byte {
	p := binary.BigEndian.AppendUint32([]byte{prefixData}, cf)
	return s.part.RowKey(p, key)
}

func (s *rawStore) column(row []byte, name string) []byte {
	k := append(append(make([]byte, 0, len(row)+len(name)+8), row...), markNames)
	return s.cmp.Encode(k, []byte(name))
}

// cell is a live cell as ldbstore stores it: flags, timestamp, value.
func (s *rawStore) cell(ts int64) []byte {
	c := make([]byte, 9, 9+len(s.value))
	binary.BigEndian.PutUint64(c[1:], uint64(ts))
	return append(c, s.value...)
}

// write stores columns C0..C<n-1> of every key in one batch.
func (s *rawStore) write(cf uint32, keys []string, n int) error {
	b := new(leveldb.Batch)
	cell := s.cell(time.Now().UnixMicro())
	for _, key := range keys {
		row := s.row(cf, key)
		for i := range n {
			b.Put(s.column(row, "C"+strconv.Itoa(i)), cell)
		}
	}
	return s.db.Write(b, &opt.WriteOptions{})
}

// readColumns copies out up to count columns of the row under row, the
// iterator already positioned at or before them.
func readColumns(it iterator.Iterator, row []byte, count int) (n int) {
	names := append(row[:len(row):len(row)], markNames)
	for ok := it.Seek(names); ok && n < count && bytes.HasPrefix(it.Key(), names); ok = it.Next() {
		name := bytes.Clone(it.Key()[len(names):])
		value := bytes.Clone(it.Value()[9:])
		_, _ = name, value
		n++
	}
	return n
}

// slice reads the first count columns of a row.
func (s *rawStore) slice(cf uint32, key string, count int) (int, error) {
	it := s.db.NewIterator(nil, nil)
	defer it.Release()
	n := readColumns(it, s.row(cf, key), count)
	return n, it.Error()
}

// multi reads the first count columns of each key, from one snapshot.
func (s *rawStore) multi(cf uint32, keys []string, count int) (int, error) {
	it := s.db.NewIterator(nil, nil)
	defer it.Release()
	n := 0
	for _, k := range keys {
		n += readColumns(it, s.row(cf, k), count)
	}
	return n, it.Error()
}

// scan reads count columns of each of rows rows in ring order from key's
// token on, as get_range_slices does.
func (s *rawStore) scan(cf uint32, key string, rows, count int) (int, error) {
	it := s.db.NewIterator(nil, nil)
	defer it.Release()
	prefix := binary.BigEndian.AppendUint32([]byte{prefixData}, cf)
	got := 0
	for ok := it.Seek(s.row(cf, key)); ok && got < rows && bytes.HasPrefix(it.Key(), prefix); got++ {
		_, _, rest, err := s.part.DecodeRowKey(it.Key()[len(prefix):])
		if err != nil {
			return got, err
		}
		row := bytes.Clone(it.Key()[:len(it.Key())-len(rest)])
		readColumns(it, row, count)
		ok = it.Seek(append(row, markEnd))
	}
	return got, it.Error()
}

// storageOp is one benchmark operation done on a rawStore by connection id.
type storageOp func(s *rawStore, rng *rand.Rand, id int) error

// runStorage runs op from conns goroutines for d and returns operations
// per second.
func runStorage(s *rawStore, op storageOp, conns int, d time.Duration) (float64, error) {
	var ops atomic.Int64
	var firstOnce sync.Once
	var firstErr error
	deadline := time.Now().Add(d)
	start := time.Now()
	var wg sync.WaitGroup
	for id := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(id), 7))
			for time.Now().Before(deadline) {
				if err := op(s, rng, id); err != nil {
					firstOnce.Do(func() { firstErr = err })
					return
				}
				ops.Add(1)
			}
		}()
	}
	wg.Wait()
	if err := firstErr; err != nil {
		return 0, err
	}
	return float64(ops.Load()) / time.Since(start).Seconds(), nil
}

// load writes keys rows of columns columns into column family cf.
func (s *rawStore) load(cf uint32, keys, columns int) error {
	const perBatch = 100
	for i := 0; i < keys; i += perBatch {
		var ks []string
		for j := i; j < min(keys, i+perBatch); j++ {
			ks = append(ks, benchKey(j, keys))
		}
		if err := s.write(cf, ks, columns); err != nil {
			return fmt.Errorf("loading the raw store: %w", err)
		}
	}
	return nil
}

// benchKey is key i of n as thriftd-stress formats it (py_stress's keys).
func benchKey(i, n int) string {
	s := strconv.Itoa(i)
	for w := len(strconv.Itoa(n)); len(s) < w; {
		s = "0" + s
	}
	return s
}
