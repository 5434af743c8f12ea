package transfer

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/thriftd/thriftd/gen-go/cassandra"
	"github.com/thriftd/thriftd/marshal"
	"github.com/thriftd/thriftd/sstablejson"
)

// ImportOptions are Import's own.
type ImportOptions struct {
	// Keys says how row keys are read (sstablejson.KeysAuto by default).
	Keys sstablejson.KeyMode
	// NoPrecheck skips reading the whole file once before writing. With
	// the precheck (the default), a file with any malformed or invalid
	// part writes nothing; without it, rows before the fault are written
	// (every batch is still validated whole before it is sent).
	NoPrecheck bool
}

// ValidationError is a column or key the target would refuse.
type ValidationError struct {
	File      string
	Line, Col int
	Key       string
	// Super and Column name the column (hex in the message); empty when
	// the key itself is at fault.
	Super, Column []byte
	Why           string
}

func (e *ValidationError) Error() string {
	where := fmt.Sprintf("%s:%d:%d: row %q", e.File, e.Line, e.Col, e.Key)
	if e.Super != nil {
		where += fmt.Sprintf(", super column %x", e.Super)
	}
	if e.Column != nil {
		where += fmt.Sprintf(", column %x", e.Column)
	}
	return where + ": " + e.Why
}

// Import writes the rows of one sstable2json file (0.6's own or one
// Export wrote) into column family o.ColumnFamilies[0] of o.Keyspace on a
// server, through batch_mutate, keeping every timestamp. Deleted columns
// become Deletions of that column and a super column's deletedAt (other
// than 0.6's "never") a Deletion of the super column, each with its
// timestamp, so they shadow older data on the target as they did on the
// source. The file is read as a stream, never whole.
//
// When stop is done, Import ends at a row boundary, waits for the
// writes in flight and saves the checkpoint (rows are counted from the
// start of the file).
func Import(stop context.Context, to Endpoint, o Options, path string, imp ImportOptions) (*Summary, error) {
	t0 := time.Now()
	if err := o.defaults(); err != nil {
		return nil, err
	}
	sum := &Summary{Command: "import", Keyspace: o.Keyspace, Checkpoint: o.Checkpoint}
	defer func() { sum.Elapsed = time.Since(t0) }()
	if len(o.ColumnFamilies) != 1 {
		return sum, errors.New("import writes one column family: name it")
	}
	c, err := dial(context.Background(), to, o.Keyspace)
	if err != nil {
		return sum, err
	}
	all, names, err := describe(context.Background(), c, o.Keyspace)
	c.Close()
	if err != nil {
		return sum, err
	}
	fams, err := choose(all, names, o.ColumnFamilies, o.Keyspace, to.Addr)
	if err != nil {
		return sum, err
	}
	f := fams[0]
	abs, err := filepath.Abs(path)
	if err != nil {
		return sum, err
	}
	cp, err := openCheckpoint(o.Checkpoint, o.Resume, "import", o.Keyspace, abs)
	if err != nil {
		return sum, err
	}
	start := cp.get(f.Name)
	fs := FamilySummary{Name: f.Name, File: path, Resumed: o.Resume && (start.Rows > 0 || start.Done)}
	if start.Done {
		fs.Rows, fs.Columns, fs.Bytes = start.Rows, start.Columns, start.Bytes
		sum.add(fs)
		return sum, cp.remove()
	}
	conv, err := newConverter(f, path)
	if err != nil {
		return sum, err
	}
	// Progress runs over the file once per pass.
	var size int64
	if st, err := os.Stat(path); err == nil {
		size = st.Size()
	}
	passes := int64(2)
	if imp.NoPrecheck {
		passes = 1
	}
	o.Stats.Total.Store(passes * size)
	if !imp.NoPrecheck {
		o.Logger.Info("checking the file before writing", "file", path)
		if err := readFile(stop, path, f, imp.Keys, conv, nil, 0, "", o.Stats, 0); err != nil {
			if errors.Is(err, ErrInterrupted) {
				sum.Interrupted = true
			}
			return sum, err
		}
	}
	w, err := newWriter(&o, to, f.Name, cp, start)
	if err != nil {
		return sum, err
	}
	o.Logger.Info("importing", "file", path, "keyspace", o.Keyspace, "column_family", f.Name, "to", to.Addr, "after_rows", start.Rows)
	pos, err := drain(w, readFile(stop, path, f, imp.Keys, conv, w, start.Rows, start.LastKey, o.Stats, (passes-1)*size))
	fs.Rows, fs.Columns, fs.Bytes = pos.Rows, pos.Columns, pos.Bytes
	sum.add(fs)
	if err != nil {
		sum.Interrupted = errors.Is(err, ErrInterrupted)
		return sum, err
	}
	pos.Done = true
	cp.set(f.Name, pos)
	return sum, cp.remove()
}

// readFile reads path through conv into w (only validating when w is
// nil), skipping the first skip rows, the last of which must be lastKey.
// It checks stop between rows, and sets stats.Done to done plus the bytes
// read.
func readFile(stop context.Context, path string, f Family, mode sstablejson.KeyMode, conv *converter, w *writer, skip int64, lastKey string, stats *Stats, done int64) error {
	file, err := os.Open(path)
	if err != nil {
		return err
	}
	defer file.Close()
	r := sstablejson.NewReader(file, path, f.Super, mode)
	var row int64
	skipping := false
	for {
		ev, err := r.Next()
		if err == io.EOF {
			if row < skip {
				return fmt.Errorf("%s has %d rows, but the checkpoint says %d were imported: is it the same file?", path, row, skip)
			}
			return nil
		}
		if err != nil {
			return err
		}
		if ev.Kind == sstablejson.RowStart {
			row++
			skipping = row <= skip
			if row == skip && ev.Key != lastKey {
				return fmt.Errorf("%s:%d:%d: row %d is %q, but the checkpoint says it is %q: is it the same file?", path, ev.Line, ev.Col, row, ev.Key, lastKey)
			}
			if !skipping && stop.Err() != nil {
				return ErrInterrupted
			}
		}
		if ev.Kind == sstablejson.RowEnd {
			stats.Done.Store(done + r.BytesRead())
		}
		if skipping {
			continue
		}
		if err := conv.event(ev, w); err != nil {
			return err
		}
	}
}

// converter validates a file's events as the target would and turns them
// into mutations.
type converter struct {
	f        Family
	file     string
	cmp, sub marshal.Comparator
	key      string
	super    []byte
	// live holds the open super column's live subcolumns not yet added.
	live     []*cassandra.Column
	liveSize int64
}

func newConverter(f Family, file string) (*converter, error) {
	c := &converter{f: f, file: file}
	// A comparator this build does not know (a custom class on a 0.6
	// cluster) is left to the server to check.
	c.cmp, _ = marshal.Lookup(f.CompareWith)
	if f.Super {
		c.sub, _ = marshal.Lookup(f.CompareSubcolumnsWith)
	}
	return c, nil
}

func (c *converter) invalid(ev sstablejson.Event, super, column []byte, why string) error {
	return &ValidationError{File: c.file, Line: ev.Line, Col: ev.Col, Key: c.key, Super: super, Column: column, Why: why}
}

func checkName(cmp marshal.Comparator, name []byte, what string) string {
	switch {
	case len(name) == 0:
		return what + " name must not be empty"
	case len(name) > 65535:
		return what + " name length must not be greater than 65535"
	}
	if cmp != nil {
		if err := cmp.Validate(name); err != nil {
			return err.Error()
		}
	}
	return ""
}

// event validates ev and, when w is set, adds its mutations.
func (c *converter) event(ev sstablejson.Event, w *writer) error {
	switch ev.Kind {
	case sstablejson.RowStart:
		c.key = ev.Key
		switch {
		case ev.Key == "":
			return c.invalid(ev, nil, nil, "row key may not be empty")
		case len(ev.Key) > 65535:
			return c.invalid(ev, nil, nil, fmt.Sprintf("row key of %d bytes is longer than the maximum of 65535", len(ev.Key)))
		}
		if w != nil {
			return w.beginRow(ev.Key)
		}
	case sstablejson.SuperStart:
		if why := checkName(c.cmp, ev.Name, "supercolumn"); why != "" {
			return c.invalid(ev, ev.Name, nil, why)
		}
		c.super = bytes.Clone(ev.Name)
		if ev.DeletedAt != sstablejson.NotDeleted && w != nil {
			m := &cassandra.Mutation{Deletion: &cassandra.Deletion{Timestamp: ev.DeletedAt, SuperColumn: c.super}}
			return w.add(m, 1, int64(len(c.super)))
		}
	case sstablejson.ColumnItem:
		col := ev.Column
		cmp, what := c.cmp, "column"
		if c.f.Super {
			cmp = c.sub
		}
		if why := checkName(cmp, col.Name, what); why != "" {
			return c.invalid(ev, c.super, col.Name, why)
		}
		if w == nil {
			return nil
		}
		name := bytes.Clone(col.Name)
		if col.Deleted {
			// 0.6 stores a tombstone's local deletion time as its value;
			// the target keeps its own.
			m := &cassandra.Mutation{Deletion: &cassandra.Deletion{Timestamp: col.Timestamp, SuperColumn: c.super,
				Predicate: &cassandra.SlicePredicate{ColumnNames: [][]byte{name}}}}
			return w.add(m, 1, int64(len(name)))
		}
		tc := &cassandra.Column{Name: name, Value: bytes.Clone(col.Value), Timestamp: col.Timestamp}
		if !c.f.Super {
			m := &cassandra.Mutation{ColumnOrSupercolumn: &cassandra.ColumnOrSuperColumn{Column: tc}}
			return w.add(m, 1, int64(len(tc.Name)+len(tc.Value)))
		}
		c.live = append(c.live, tc)
		c.liveSize += int64(len(tc.Name) + len(tc.Value))
		if len(c.live) >= w.o.BatchSize {
			return c.flushLive(w)
		}
	case sstablejson.SuperEnd:
		if w != nil {
			if err := c.flushLive(w); err != nil {
				return err
			}
		}
		c.super = nil
	case sstablejson.RowEnd:
		if w != nil {
			return w.endRow()
		}
	}
	return nil
}

// flushLive adds the open super column's gathered subcolumns as one
// mutation (inserting subcolumns merges them into the super column).
func (c *converter) flushLive(w *writer) error {
	if len(c.live) == 0 {
		return nil
	}
	m := &cassandra.Mutation{ColumnOrSupercolumn: &cassandra.ColumnOrSuperColumn{SuperColumn: &cassandra.SuperColumn{Name: c.super, Columns: c.live}}}
	n, size := len(c.live), c.liveSize
	c.live, c.liveSize = nil, 0
	return w.add(m, n, size)
}
