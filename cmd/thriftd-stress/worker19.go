package main

import (
	"context"
	"fmt"
	"net"
	"strconv"

	"github.com/apache/thrift/lib/go/thrift"

	"github.com/thriftd/thriftd/gen-go/cassandra19"
)

// client19 is a worker's 19.x connection (-api 19): framed transport and
// strict binary protocol, as every client since Cassandra 0.8, with the
// keyspace set once by set_keyspace.
type client19 struct {
	c  *cassandra19.CassandraClient
	cl cassandra19.ConsistencyLevel
	// pageStart and pageColumn are where the next get_paged_slice call
	// starts.
	pageStart, pageColumn []byte
}

// open19 connects w to node with the 19.x interface.
func (w *worker) open19(node string, cfg *thrift.TConfiguration) error {
	cl, err := cassandra19.ConsistencyLevelFromString(w.o.consistency)
	if err != nil {
		return fmt.Errorf("-cl: unknown consistency level %q", w.o.consistency)
	}
	t := newFramedClient(thrift.NewTSocketConf(net.JoinHostPort(node, strconv.Itoa(w.o.port)), cfg), cfg.GetMaxFrameSize())
	if err := t.Open(); err != nil {
		return fmt.Errorf("connection %d: %w", w.id, err)
	}
	w.trans = t
	p := newExactProtocol(t, cfg)
	w.c19 = &client19{c: cassandra19.NewCassandraClientProtocol(t, p, p), cl: cl}
	if err := w.c19.c.SetKeyspace(context.Background(), w.o.keyspace); err != nil {
		t.Close()
		return fmt.Errorf("connection %d: set_keyspace %s: %w", w.id, w.o.keyspace, err)
	}
	return nil
}

func (w *worker) do19(ctx context.Context, op string) error {
	switch op {
	case "insert":
		return w.insert19(ctx)
	case "read":
		return w.read19(ctx)
	case "rangeslice":
		return w.rangeSlice19(ctx)
	case "multiget":
		return w.multiget19(ctx)
	case "batch":
		return w.batch19(ctx)
	case "paged":
		return w.paged19(ctx)
	case "add":
		return w.add19(ctx)
	case "indexed":
		return w.indexed19(ctx)
	}
	return fmt.Errorf("unknown operation %q", op)
}

// columns19 are the -c columns a key receives.
func (w *worker) columns19() []*cassandra19.Column {
	ts := w.timestamp()
	cols := make([]*cassandra19.Column, len(w.columnNames))
	for i, n := range w.columnNames {
		v := w.value
		if w.pool != nil {
			off := w.rng.IntN(len(w.pool) - w.o.columnSize + 1)
			v = w.pool[off : off+w.o.columnSize]
		}
		cols[i] = &cassandra19.Column{Name: n, Value: v, Timestamp: &ts}
	}
	return cols
}

func (w *worker) parent19() *cassandra19.ColumnParent {
	return &cassandra19.ColumnParent{ColumnFamily: w.o.columnFamily}
}

func (w *worker) predicate19() *cassandra19.SlicePredicate {
	return &cassandra19.SlicePredicate{SliceRange: &cassandra19.SliceRange{Start: []byte{}, Finish: []byte{}, Count: int32(w.o.sliceCount)}}
}

// insert19 is 19.x's insert, which takes one column: the first of -c.
func (w *worker) insert19(ctx context.Context) error {
	ts := w.timestamp()
	col := &cassandra19.Column{Name: w.columnNames[0], Value: w.value, Timestamp: &ts}
	return w.c19.c.Insert(ctx, []byte(w.nextWriteKey()), w.parent19(), col, w.c19.cl)
}

// add19 adds 1 to a counter: the first of -c's names, in a key chosen
// as reads choose theirs (-s 0: every call the same key, one hot
// counter; -r: uniformly over -n keys).
func (w *worker) add19(ctx context.Context) error {
	return w.c19.c.Add(ctx, []byte(w.readKey()), w.parent19(), &cassandra19.CounterColumn{Name: w.columnNames[0], Value: 1}, w.c19.cl)
}

// batch19 writes the -c columns of one key with batch_mutate.
func (w *worker) batch19(ctx context.Context) error {
	cols := w.columns19()
	ms := make([]*cassandra19.Mutation, len(cols))
	for i, c := range cols {
		ms[i] = &cassandra19.Mutation{ColumnOrSupercolumn: &cassandra19.ColumnOrSuperColumn{Column: c}}
	}
	key := w.nextWriteKey()
	if w.o.indexValues > 0 {
		n, _ := strconv.Atoi(key)
		ts := w.timestamp()
		ms = append(ms, &cassandra19.Mutation{ColumnOrSupercolumn: &cassandra19.ColumnOrSuperColumn{
			Column: &cassandra19.Column{Name: []byte(indexColumn), Value: indexValue(n % w.o.indexValues), Timestamp: &ts}}})
	}
	m := map[string]map[string][]*cassandra19.Mutation{key: {w.o.columnFamily: ms}}
	return w.c19.c.BatchMutate(ctx, m, w.c19.cl)
}

// indexColumn is the column -index-values writes and -o indexed asks for.
const indexColumn = "idx"

// indexValue is the value of indexColumn in the rows whose key number
// is i modulo -index-values.
func indexValue(i int) []byte {
	return []byte("v" + strconv.Itoa(i))
}

// indexed19 is get_indexed_slices: the rows whose indexColumn equals one
// of the -index-values values, chosen uniformly, up to -g of them from
// the start of the ring, each with a slice of -slice columns.
func (w *worker) indexed19(ctx context.Context) error {
	v := indexValue(w.rng.IntN(w.o.indexValues))
	clause := &cassandra19.IndexClause{
		Expressions: []*cassandra19.IndexExpression{{ColumnName: []byte(indexColumn), Op: cassandra19.IndexOperator_EQ, Value: v}},
		StartKey:    []byte{}, Count: int32(w.o.rangeCount)}
	r, err := w.c19.c.GetIndexedSlices(ctx, w.parent19(), clause, w.predicate19(), w.c19.cl)
	if err != nil {
		return err
	}
	if len(r) == 0 {
		return fmt.Errorf("no row has %s = %s", indexColumn, v)
	}
	return nil
}

func (w *worker) read19(ctx context.Context) error {
	key := w.readKey()
	r, err := w.c19.c.GetSlice(ctx, []byte(key), w.parent19(), w.predicate19(), w.c19.cl)
	if err != nil {
		return err
	}
	if len(r) == 0 {
		return fmt.Errorf("key %s not found", key)
	}
	return nil
}

func (w *worker) multiget19(ctx context.Context) error {
	keys := make([][]byte, w.o.multigetKeys)
	for i := range keys {
		keys[i] = []byte(w.readKey())
	}
	r, err := w.c19.c.MultigetSlice(ctx, keys, w.parent19(), w.predicate19(), w.c19.cl)
	if err != nil {
		return err
	}
	for _, k := range keys {
		if len(r[string(k)]) == 0 {
			return fmt.Errorf("key %s not found", k)
		}
	}
	return nil
}

// rangeSlice19 pages through the ring with get_range_slices as
// rangeSlice does: -g rows a call from the worker's first key on,
// starting over at the end of the ring.
func (w *worker) rangeSlice19(ctx context.Context) error {
	if w.rangeStart == "" {
		w.rangeStart = formatKey(w.first, w.keyWidth)
	}
	kr := &cassandra19.KeyRange{StartKey: []byte(w.rangeStart), EndKey: []byte{}, Count: int32(w.o.rangeCount)}
	r, err := w.c19.c.GetRangeSlices(ctx, w.parent19(), w.predicate19(), kr, w.c19.cl)
	if err != nil {
		return err
	}
	if len(r) == 0 {
		return fmt.Errorf("no rows from key %s on", w.rangeStart)
	}
	if len(r) < w.o.rangeCount {
		w.rangeStart = ""
		return nil
	}
	w.rangeStart = string(r[len(r)-1].Key)
	return nil
}

// paged19 reads the next page of get_paged_slice: -g columns in all, the
// whole of consecutive rows, from the worker's first key on. Each page
// starts at the last column the previous one returned, as paging clients
// do (that column comes back twice); at the end of the ring it starts
// over.
func (w *worker) paged19(ctx context.Context) error {
	p := w.c19
	if p.pageStart == nil {
		p.pageStart, p.pageColumn = []byte(formatKey(w.first, w.keyWidth)), []byte{}
	}
	kr := &cassandra19.KeyRange{StartKey: p.pageStart, EndKey: []byte{}, Count: int32(w.o.rangeCount)}
	r, err := p.c.GetPagedSlice(ctx, w.o.columnFamily, kr, p.pageColumn, p.cl)
	if err != nil {
		return err
	}
	n := 0
	for _, ks := range r {
		n += len(ks.Columns)
	}
	if n == 0 {
		return fmt.Errorf("no columns from key %s on", p.pageStart)
	}
	if n < w.o.rangeCount {
		p.pageStart = nil // the end of the ring: start over
		return nil
	}
	last := r[len(r)-1]
	p.pageStart, p.pageColumn = last.Key, []byte{}
	if c := last.Columns; len(c) > 0 && c[len(c)-1].Column != nil {
		p.pageColumn = c[len(c)-1].Column.Name
	}
	return nil
}
