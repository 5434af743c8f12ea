package main

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/apache/thrift/lib/go/thrift"

	"github.com/thriftd/thriftd/gen-go/cassandra"
)

// worker is one connection and the keys it is responsible for.
type worker struct {
	o   *options
	id  int
	rec *recorder
	// completed counts the calls of every worker that succeeded.
	completed *atomic.Uint64
	trans     thrift.TTransport
	c         *cassandra.CassandraClient
	c19       *client19 // with -api 19 instead of c
	rng       *rand.Rand
	cl        cassandra.ConsistencyLevel

	// keys [first, end) belong to this worker, as py_stress split them;
	// next is the next one it writes.
	first, end, next int
	keyWidth         int
	value            []byte
	// pool is where -random-values takes each value from, at a random
	// offset, so that no two columns share their bytes.
	pool        []byte
	columnNames [][]byte
	superNames  [][]byte
	// rangeStart is where the next get_range_slices call starts.
	rangeStart string
}

func newWorker(o *options, id int, rec *recorder, completed *atomic.Uint64) (*worker, error) {
	cl, _ := consistencyLevel(o.consistency)
	first, end := keyRange(o, id)
	w := &worker{
		o: o, id: id, rec: rec, cl: cl, completed: completed,
		rng:      rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), uint64(id))),
		first:    first,
		end:      end,
		keyWidth: len(strconv.Itoa(o.numKeys)),
		value:    workerValue(id, o.columnSize),
	}
	w.next = w.first
	if o.randomValues {
		w.pool = make([]byte, 1<<20+o.columnSize)
		for i := range w.pool {
			w.pool[i] = byte(w.rng.Uint32())
		}
	}
	for i := range o.columns {
		w.columnNames = append(w.columnNames, []byte("C"+strconv.Itoa(i)))
	}
	for i := range o.superColumns {
		w.superNames = append(w.superNames, []byte("S"+strconv.Itoa(i)))
	}
	cfg := &thrift.TConfiguration{ConnectTimeout: o.timeout, SocketTimeout: o.timeout}
	node := o.nodes[w.rng.IntN(len(o.nodes))]
	if o.api == "19" {
		return w, w.open19(node, cfg)
	}
	sock := thrift.NewTSocketConf(net.JoinHostPort(node, strconv.Itoa(o.port)), cfg)
	var t richTransport
	if o.framed {
		t = newFramedClient(sock, cfg.GetMaxFrameSize())
	} else {
		t = thrift.NewTBufferedTransport(sock, 16<<10)
	}
	if err := t.Open(); err != nil {
		return nil, fmt.Errorf("connection %d: %w", id, err)
	}
	w.trans = t
	p := newExactProtocol(t, cfg)
	w.c = cassandra.NewCassandraClientProtocol(t, p, p)
	return w, nil
}

func (w *worker) close() { w.trans.Close() }

// workerValue is py_stress's column value: the hex MD5 of the worker's
// identity, repeated and cut to size bytes.
func workerValue(id, size int) []byte {
	sum := md5.Sum([]byte(strconv.Itoa(os.Getpid()) + "/" + strconv.Itoa(id)))
	unit := hex.EncodeToString(sum[:])
	out := make([]byte, 0, size+len(unit))
	for len(out) < size {
		out = append(out, unit...)
	}
	return out[:size]
}

// keyRange is the run of key numbers worker id writes, as py_stress split
// them: n/t consecutive keys each, less the skipped fraction at the start.
func keyRange(o *options, id int) (first, end int) {
	per := o.numKeys / o.threads
	return per*id + int(o.skipKeys*float64(per)), per * (id + 1)
}

// formatKey formats key number i as py_stress did: decimal, zero-padded to the
// width of -n.
func formatKey(i, width int) string {
	s := strconv.Itoa(i)
	for len(s) < width {
		s = "0" + s
	}
	return s
}

// nextWriteKey walks the worker's own keys in order, wrapping around.
func (w *worker) nextWriteKey() string {
	if w.next >= w.end {
		w.next = w.first
	}
	k := formatKey(w.next, w.keyWidth)
	w.next++
	return k
}

// readKey picks a key of the whole key space, gaussian around the middle
// (py_stress's default) or uniformly with -r.
func (w *worker) readKey() string {
	n := w.o.numKeys
	if w.o.random {
		return formatKey(w.rng.IntN(n), w.keyWidth)
	}
	for {
		g := w.rng.NormFloat64()*w.o.stdev*float64(n) + float64(n)/2
		if g >= 0 && g < float64(n) {
			return formatKey(int(g), w.keyWidth)
		}
	}
}

// calls is how many operations the worker makes without -duration: one per
// key of its range, as py_stress did (one per page of -g rows for ranges).
func (w *worker) calls() int {
	n := w.end - w.first
	switch w.o.operation {
	case "rangeslice", "paged":
		return max(1, (n+w.o.rangeCount-1)/w.o.rangeCount)
	case "multiget":
		return max(1, (n+w.o.multigetKeys-1)/w.o.multigetKeys)
	}
	return n
}

// run performs operations until the worker's calls are done or ctx ends.
// An error stops the run unless -k was given.
func (w *worker) run(ctx context.Context) error {
	limit := w.calls()
	if w.o.duration > 0 {
		limit = -1
	}
	for i := 0; i != limit && ctx.Err() == nil; i++ {
		op := w.o.operation
		if op == "mixed" {
			op = "insert"
			if w.rng.Float64() < w.o.readRatio {
				op = "read"
			}
		}
		t0 := time.Now()
		if w.o.sched != nil {
			due, ok := w.o.sched.wait(ctx)
			if !ok {
				return nil
			}
			t0 = due
		}
		err := w.do(ctx, op)
		d := time.Since(t0)
		if err != nil && ctx.Err() != nil {
			return nil // cut short by the end of the run
		}
		w.rec.record(d, err != nil)
		if err == nil {
			w.completed.Add(1)
		}
		if err != nil {
			if !w.o.keepGoing {
				return fmt.Errorf("%s: %w", op, err)
			}
			fmt.Fprintf(os.Stderr, "thriftd-stress: %s: %v\n", op, err)
			if !w.trans.IsOpen() {
				return err
			}
		}
	}
	return nil
}

func (w *worker) do(ctx context.Context, op string) error {
	if w.c19 != nil {
		return w.do19(ctx, op)
	}
	switch op {
	case "insert":
		return w.insert(ctx)
	case "read":
		return w.read(ctx)
	case "rangeslice":
		return w.rangeSlice(ctx)
	case "multiget":
		return w.multiget(ctx)
	case "batch":
		return w.batch(ctx)
	}
	return fmt.Errorf("unknown operation %q", op)
}

func (w *worker) timestamp() int64 {
	if w.o.clockStamps {
		return time.Now().UnixMicro()
	}
	return 0
}

func (w *worker) columns() []*cassandra.Column {
	ts := w.timestamp()
	cols := make([]*cassandra.Column, len(w.columnNames))
	for i, n := range w.columnNames {
		v := w.value
		if w.pool != nil {
			off := w.rng.IntN(len(w.pool) - w.o.columnSize + 1)
			v = w.pool[off : off+w.o.columnSize]
		}
		cols[i] = &cassandra.Column{Name: n, Value: v, Timestamp: ts}
	}
	return cols
}

// items is what one key receives: -c columns, or -u super columns of -c
// subcolumns each.
func (w *worker) items() []*cassandra.ColumnOrSuperColumn {
	if w.o.familyType != "super" {
		cols := w.columns()
		out := make([]*cassandra.ColumnOrSuperColumn, len(cols))
		for i, c := range cols {
			out[i] = &cassandra.ColumnOrSuperColumn{Column: c}
		}
		return out
	}
	out := make([]*cassandra.ColumnOrSuperColumn, len(w.superNames))
	for i, n := range w.superNames {
		out[i] = &cassandra.ColumnOrSuperColumn{SuperColumn: &cassandra.SuperColumn{Name: n, Columns: w.columns()}}
	}
	return out
}

// insert is py_stress's insert: batch_insert of every item of one key.
func (w *worker) insert(ctx context.Context) error {
	cfmap := map[string][]*cassandra.ColumnOrSuperColumn{w.o.columnFamily: w.items()}
	return w.c.BatchInsert(ctx, w.o.keyspace, w.nextWriteKey(), cfmap, w.cl)
}

// batch writes the same items as insert through batch_mutate.
func (w *worker) batch(ctx context.Context) error {
	items := w.items()
	ms := make([]*cassandra.Mutation, len(items))
	for i, it := range items {
		ms[i] = &cassandra.Mutation{ColumnOrSupercolumn: it}
	}
	m := map[string]map[string][]*cassandra.Mutation{w.nextWriteKey(): {w.o.columnFamily: ms}}
	return w.c.BatchMutate(ctx, w.o.keyspace, m, w.cl)
}

func (w *worker) parent() *cassandra.ColumnParent {
	p := &cassandra.ColumnParent{ColumnFamily: w.o.columnFamily}
	if w.o.familyType == "super" {
		p.SuperColumn = w.superNames[w.rng.IntN(len(w.superNames))]
	}
	return p
}

func (w *worker) predicate() *cassandra.SlicePredicate {
	return &cassandra.SlicePredicate{SliceRange: &cassandra.SliceRange{Start: []byte{}, Finish: []byte{}, Count: int32(w.o.sliceCount)}}
}

// read is py_stress's read: get_slice of the first -slice columns of a
// key; an empty result is an error.
func (w *worker) read(ctx context.Context) error {
	key := w.readKey()
	r, err := w.c.GetSlice(ctx, w.o.keyspace, key, w.parent(), w.predicate(), w.cl)
	if err != nil {
		return err
	}
	if len(r) == 0 {
		return fmt.Errorf("key %s not found", key)
	}
	return nil
}

// multiget reads -multiget keys with multiget_slice; a key without columns
// is an error.
func (w *worker) multiget(ctx context.Context) error {
	keys := make([]string, w.o.multigetKeys)
	for i := range keys {
		keys[i] = w.readKey()
	}
	r, err := w.c.MultigetSlice(ctx, w.o.keyspace, keys, w.parent(), w.predicate(), w.cl)
	if err != nil {
		return err
	}
	for _, k := range keys {
		if len(r[k]) == 0 {
			return fmt.Errorf("key %s not found", k)
		}
	}
	return nil
}

// rangeSlice reads the next page of -g rows with get_range_slices. Pages
// follow each other in the server's ring order, starting at the worker's
// first key, so it works under every partitioner; at the end of the ring it
// starts over.
func (w *worker) rangeSlice(ctx context.Context) error {
	if w.rangeStart == "" {
		w.rangeStart = formatKey(w.first, w.keyWidth)
	}
	start, end := w.rangeStart, ""
	kr := &cassandra.KeyRange{StartKey: &start, EndKey: &end, Count: int32(w.o.rangeCount)}
	r, err := w.c.GetRangeSlices(ctx, w.o.keyspace, w.parent(), w.predicate(), kr, w.cl)
	if err != nil {
		return err
	}
	if len(r) == 0 {
		return fmt.Errorf("no rows from key %s on", start)
	}
	if len(r) < w.o.rangeCount {
		w.rangeStart = "" // the end of the ring: start over
		return nil
	}
	// The start key is inclusive, so the next page repeats this last row;
	// py_stress's pages overlapped the same way.
	w.rangeStart = r[len(r)-1].Key
	return nil
}

func consistencyLevel(s string) (cassandra.ConsistencyLevel, error) {
	cl, err := cassandra.ConsistencyLevelFromString(s)
	if err != nil {
		return 0, fmt.Errorf("-cl: unknown consistency level %q", s)
	}
	return cl, nil
}
