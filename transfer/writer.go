package transfer

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/apache/thrift/lib/go/thrift"

	"github.com/thriftd/thriftd/gen-go/cassandra"
	"github.com/thriftd/thriftd/gen-go/cassandra19"
)

// batch is one batch_mutate call: whole rows and pieces of rows, in the
// order they were read.
type batch struct {
	seq int64
	m   map[string]map[string][]*cassandra.Mutation
	// m19 holds the mutations of a writer to a 19.x server instead.
	m19  map[string]map[string][]*cassandra19.Mutation
	cols int
	// bytes of names and values.
	bytes int64
	// rows is how many rows end in this batch, lastKey the last of them.
	rows    int64
	lastKey string
	// firstKey and latestKey name the batch in errors.
	firstKey, latestKey string
}

// writer writes one column family's rows through batch_mutate on Workers
// connections. Batches complete in any order; the position it records
// is that of the last row whose batches, and every batch before them,
// have completed, so a resume from it rewrites nothing that was lost and
// at most some rows that were written (with the same timestamps, so the
// data is the same).
type writer struct {
	o     *Options
	ep    Endpoint
	fam   string
	cp    *checkpointer
	jobs  chan *batch
	wg    sync.WaitGroup
	cur   *batch
	seq   int64
	key   string
	inRow bool
	// api19 sends batches through the 19.x API (m19), on connections
	// made by dial19; LastKey is then recorded in hex, keys being bytes.
	api19 bool

	// failed is cancelled on the first error, which err holds.
	failed context.Context
	fail   context.CancelCauseFunc

	mu        sync.Mutex
	pending   map[int64]*batch
	next      int64
	pos       Position
	lastSave  time.Time
	saveError error
}

// newWriter connects Workers connections to ep and starts their
// goroutines, which end when finish is called.
func newWriter(o *Options, ep Endpoint, fam string, cp *checkpointer, start Position) (*writer, error) {
	return startWriter(&writer{o: o, ep: ep, fam: fam, cp: cp, pos: start})
}

// newWriter19 is newWriter for a 19.x target.
func newWriter19(o *Options, ep Endpoint, fam string, cp *checkpointer, start Position) (*writer, error) {
	return startWriter(&writer{o: o, ep: ep, fam: fam, cp: cp, pos: start, api19: true})
}

// mutator is one connection of a writer.
type mutator interface {
	mutate(w *writer, b *batch) error
	Close() error
}

func (c *conn) mutate(w *writer, b *batch) error {
	return c.BatchMutate(context.Background(), w.o.Keyspace, b.m, w.o.Consistency)
}

func (c *conn19) mutate(w *writer, b *batch) error {
	return c.BatchMutate(context.Background(), b.m19, cassandra19.ConsistencyLevel(w.o.Consistency))
}

func (w *writer) dial() (mutator, error) {
	if w.api19 {
		return dial19(context.Background(), w.ep, w.o.Keyspace)
	}
	return dial(context.Background(), w.ep, w.o.Keyspace)
}

func startWriter(w *writer) (*writer, error) {
	o := w.o
	w.jobs, w.pending, w.lastSave = make(chan *batch), map[int64]*batch{}, time.Now()
	w.failed, w.fail = context.WithCancelCause(context.Background())
	conns := make([]mutator, 0, o.Workers)
	for range o.Workers {
		c, err := w.dial()
		if err != nil {
			for _, c := range conns {
				c.Close()
			}
			return nil, err
		}
		conns = append(conns, c)
	}
	for _, c := range conns {
		w.wg.Add(1)
		go w.work(c)
	}
	return w, nil
}

func (w *writer) work(c mutator) {
	defer w.wg.Done()
	defer func() {
		if c != nil {
			c.Close()
		}
	}()
	for b := range w.jobs {
		if w.failed.Err() != nil {
			continue
		}
		var err error
		c, err = w.send(c, b)
		if err != nil {
			w.fail(err)
			continue
		}
		w.completed(b)
	}
}

// send calls batch_mutate on c (dialling if c is nil), retrying twice on
// a new connection when the connection failed (the call is idempotent:
// the same columns with the same timestamps). A refusal by the server is
// not retried.
func (w *writer) send(c mutator, b *batch) (mutator, error) {
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		if c == nil {
			time.Sleep(time.Duration(attempt) * 500 * time.Millisecond)
			if c, err = w.dial(); err != nil {
				continue
			}
		}
		err = c.mutate(w, b)
		if err == nil {
			return c, nil
		}
		var te thrift.TTransportException
		if !errors.As(err, &te) {
			break
		}
		w.o.Logger.Warn("batch_mutate failed; reconnecting", "server", w.ep.Addr, "err", err, "attempt", attempt+1)
		c.Close()
		c = nil
	}
	return c, fmt.Errorf("batch_mutate of %d columns of %s.%s, rows %q to %q, on %s: %w",
		b.cols, w.o.Keyspace, w.fam, b.firstKey, b.latestKey, w.ep.Addr, describeErr(err))
}

// completed records batch b done and advances the position over every
// batch completed in order.
func (w *writer) completed(b *batch) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.pending[b.seq] = b
	for {
		d, ok := w.pending[w.next]
		if !ok {
			break
		}
		delete(w.pending, w.next)
		w.next++
		w.pos.Rows += d.rows
		if d.rows > 0 {
			w.pos.LastKey = d.lastKey
			if w.api19 {
				w.pos.LastKey = hex.EncodeToString([]byte(d.lastKey))
			}
		}
		w.pos.Columns += int64(d.cols)
		w.pos.Bytes += d.bytes
		w.o.Stats.Rows.Add(d.rows)
		w.o.Stats.Columns.Add(int64(d.cols))
		w.o.Stats.Bytes.Add(d.bytes)
	}
	w.cp.set(w.fam, w.pos)
	if time.Since(w.lastSave) > 2*time.Second {
		w.lastSave = time.Now()
		if err := w.cp.save(); err != nil && w.saveError == nil {
			w.saveError = err
			w.o.Logger.Error("cannot write the checkpoint", "err", err)
		}
	}
}

// beginRow starts a row.
func (w *writer) beginRow(key string) error {
	w.key, w.inRow = key, true
	return w.failed.Err()
}

// add appends a mutation of the open row carrying cols columns and
// bytes of names and values, sending the batch once it is full.
func (w *writer) add(m *cassandra.Mutation, cols int, bytes int64) error {
	if w.cur == nil {
		w.cur = w.newBatch()
	}
	b := w.cur
	row := b.m[w.key]
	if row == nil {
		row = map[string][]*cassandra.Mutation{}
		b.m[w.key] = row
	}
	row[w.fam] = append(row[w.fam], m)
	b.cols += cols
	b.bytes += bytes
	b.latestKey = w.key
	if b.cols >= w.o.BatchSize {
		return w.flush()
	}
	return nil
}

// add19 is add for a 19.x writer.
func (w *writer) add19(m *cassandra19.Mutation, cols int, bytes int64) error {
	if w.cur == nil {
		w.cur = w.newBatch()
	}
	b := w.cur
	row := b.m19[w.key]
	if row == nil {
		row = map[string][]*cassandra19.Mutation{}
		b.m19[w.key] = row
	}
	row[w.fam] = append(row[w.fam], m)
	b.cols += cols
	b.bytes += bytes
	b.latestKey = w.key
	if b.cols >= w.o.BatchSize {
		return w.flush()
	}
	return nil
}

func (w *writer) newBatch() *batch {
	b := &batch{seq: w.seq, firstKey: w.key}
	if w.api19 {
		b.m19 = map[string]map[string][]*cassandra19.Mutation{}
	} else {
		b.m = map[string]map[string][]*cassandra.Mutation{}
	}
	w.seq++
	return b
}

// endRow ends the open row.
func (w *writer) endRow() error {
	if w.cur == nil {
		w.cur = w.newBatch()
	}
	w.cur.rows++
	w.cur.lastKey = w.key
	w.inRow = false
	return nil
}

// flush hands the batch being built to a worker, waiting for one to be
// free.
func (w *writer) flush() error {
	b := w.cur
	if b == nil {
		return nil
	}
	w.cur = nil
	select {
	case w.jobs <- b:
		return nil
	case <-w.failed.Done():
		return context.Cause(w.failed)
	}
}

// finish sends what is left, waits for every worker and returns the
// position reached; err is the first failure. The checkpoint is saved.
func (w *writer) finish() (Position, error) {
	err := w.flush()
	close(w.jobs)
	w.wg.Wait()
	if cause := context.Cause(w.failed); cause != nil {
		err = cause
	}
	w.fail(nil) // releases the context; a cause already set stays
	w.mu.Lock()
	pos := w.pos
	w.mu.Unlock()
	w.cp.set(w.fam, pos)
	if serr := w.cp.save(); serr != nil && err == nil {
		err = serr
	}
	return pos, err
}

// abandon stops the writer after a failure elsewhere: what is queued is
// still sent, the batch being built is dropped.
func (w *writer) abandon() Position {
	w.cur = nil
	pos, _ := w.finish()
	return pos
}
