package transfer

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/thriftd/thriftd/gen-go/cassandra"
)

// Copy copies o.ColumnFamilies of o.Keyspace (all when empty) from one
// server to another, row by row, with no intermediate file. The target's
// column families must exist with the same type and comparators. Every
// column keeps its timestamp; what the source has deleted does not come
// through the API and is not copied (existing data on the target is only
// overwritten where the source has a newer timestamp).
//
// When stop is done, Copy ends the row in progress, waits for the writes
// in flight, saves the checkpoint and returns ErrInterrupted.
func Copy(stop context.Context, from, to Endpoint, o Options) (*Summary, error) {
	t0 := time.Now()
	if err := o.defaults(); err != nil {
		return nil, err
	}
	switch o.SourceAPI {
	case "", "auto", "19":
		if ok, v := probe19(from); ok {
			return copy19(stop, from, to, o, v, t0)
		}
		if o.SourceAPI == "19" {
			return &Summary{Command: "copy", Keyspace: o.Keyspace}, fmt.Errorf("%s does not answer describe_version of the 19.x or 20.x API over TFramedTransport", from.Addr)
		}
	case "0.6":
	default:
		return nil, fmt.Errorf("unknown source API %q: auto, 0.6 or 19", o.SourceAPI)
	}
	sum := &Summary{Command: "copy", Keyspace: o.Keyspace, Checkpoint: o.Checkpoint}
	defer func() { sum.Elapsed = time.Since(t0) }()
	src, err := dial(context.Background(), from, o.Keyspace)
	if err != nil {
		return sum, err
	}
	defer src.Close()
	dst, err := dial(context.Background(), to, o.Keyspace)
	if err != nil {
		return sum, err
	}
	srcFams, srcAll, err := describe(context.Background(), src, o.Keyspace)
	if err != nil {
		dst.Close()
		return sum, err
	}
	dstFams, dstAll, err := describe(context.Background(), dst, o.Keyspace)
	dst.Close()
	if err != nil {
		return sum, err
	}
	fams, err := choose(srcFams, srcAll, o.ColumnFamilies, o.Keyspace, from.Addr)
	if err != nil {
		return sum, err
	}
	for _, f := range fams {
		d, ok := dstFams[f.Name]
		if !ok {
			_, err := choose(dstFams, dstAll, []string{f.Name}, o.Keyspace, to.Addr)
			return sum, err
		}
		if err := sameShape(f, d, to.Addr); err != nil {
			return sum, err
		}
	}
	cp, err := openCheckpoint(o.Checkpoint, o.Resume, "copy", o.Keyspace, from.Addr)
	if err != nil {
		return sum, err
	}
	rg := newRing(src, len(fams), o.Stats)
	for _, f := range fams {
		start := cp.get(f.Name)
		fs := FamilySummary{Name: f.Name, Resumed: o.Resume && (start.Rows > 0 || start.Done)}
		if start.Done {
			fs.Rows, fs.Columns, fs.Bytes = start.Rows, start.Columns, start.Bytes
			sum.add(fs)
			rg.at(f.Name, "", true)
			continue
		}
		o.Logger.Info("copying", "keyspace", o.Keyspace, "column_family", f.Name, "from", from.Addr, "to", to.Addr, "after_key", start.LastKey)
		w, err := newWriter(&o, to, f.Name, cp, start)
		if err != nil {
			return sum, err
		}
		var sink rowSink = &copySink{w: w, batch: o.BatchSize}
		if rg != nil {
			sink = &ringSink{rowSink: sink, r: rg, cf: f.Name}
		}
		pos, err := drain(w, scan(stop, src, &o, f, start.LastKey, sink))
		fs.Rows, fs.Columns, fs.Bytes = pos.Rows, pos.Columns, pos.Bytes
		sum.add(fs)
		if err != nil {
			sum.Interrupted = errors.Is(err, ErrInterrupted)
			return sum, err
		}
		pos.Done = true
		rg.at(f.Name, "", true)
		cp.set(f.Name, pos)
		if err := cp.save(); err != nil {
			return sum, err
		}
		o.Logger.Info("copied", "column_family", f.Name, "rows", pos.Rows, "columns", pos.Columns)
	}
	return sum, cp.remove()
}

// drain ends writer w after its reader returned rerr: it waits for the
// batches in flight, and sends the batch being built unless the reader
// failed mid-row. The error is the reader's, else the writer's.
func drain(w *writer, rerr error) (Position, error) {
	if rerr != nil && !errors.Is(rerr, ErrInterrupted) {
		return w.abandon(), rerr
	}
	pos, err := w.finish()
	if err == nil {
		err = rerr
	}
	return pos, err
}

// copySink turns what a read returns into mutations of the writer.
type copySink struct {
	w     *writer
	batch int
}

func (s *copySink) beginRow(key string) error { return s.w.beginRow(key) }
func (s *copySink) endRow() error             { return s.w.endRow() }

func (s *copySink) items(page []*cassandra.ColumnOrSuperColumn) error {
	for _, it := range page {
		if c := it.Column; c != nil {
			m := &cassandra.Mutation{ColumnOrSupercolumn: &cassandra.ColumnOrSuperColumn{Column: c}}
			if err := s.w.add(m, 1, int64(len(c.Name)+len(c.Value))); err != nil {
				return err
			}
			continue
		}
		sc := it.SuperColumn
		if sc == nil {
			continue
		}
		// A super column wider than a batch goes in pieces: inserting
		// subcolumns into a super column merges them.
		for cols := sc.Columns; len(cols) > 0; {
			n := min(len(cols), s.batch)
			var size int64
			for _, c := range cols[:n] {
				size += int64(len(c.Name) + len(c.Value))
			}
			m := &cassandra.Mutation{ColumnOrSupercolumn: &cassandra.ColumnOrSuperColumn{SuperColumn: &cassandra.SuperColumn{Name: sc.Name, Columns: cols[:n]}}}
			if err := s.w.add(m, n, size+int64(len(sc.Name))); err != nil {
				return err
			}
			cols = cols[n:]
		}
	}
	return nil
}
