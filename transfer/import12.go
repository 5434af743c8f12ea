package transfer

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/thriftd/thriftd/gen-go/cassandra19"
	"github.com/thriftd/thriftd/sstablejson"
)

// Import12 writes the rows of one file in the JSON of Cassandra 1.x's
// sstable2json (sstablejson.Read12) into column family
// o.ColumnFamilies[0] of o.Keyspace on a server of the 19.x API (thriftd,
// or Cassandra 0.7 and later), through batch_mutate, keeping every
// timestamp. Names and values are read with the family's types as the
// target describes them (column_metadata first, then the default
// validator), as json2sstable did. A tombstone becomes a deletion of its
// column, a row's or super column's deletionInfo a deletion of the row or
// super column, each with its timestamp. An expiring column is written
// with the TTL that remains until its local expiration time, and skipped
// if that has passed. Range tombstones are refused: the target does not
// take range deletions through batch_mutate.
//
// A counter family's counter cells ("c") are counted so that each
// counter ends with the total of its context in the file
// (sstablejson.CounterTotal12): as copy does, the target's total is read
// and the difference added (mutateCounters), so an import interrupted
// and resumed, or run again, does not count a counter twice; counters
// the target held before keep what they held only if the file lacks
// them. Tombstones and row or super column deletions of a counter family
// are not written (a counter removed cannot be counted again reliably,
// and the file's live counters are what it holds); a counter cell in a
// family that is not a counter family, or a plain column in a counter
// family, is refused. A counter's total is that of one file: a counter
// whose shards are spread over several sstables of one node (before a
// compaction) is set by each file's dump in turn, ending with the last.
//
// When stop is done, Import12 ends at a row boundary, waits for the
// writes in flight and saves the checkpoint (rows counted from the start
// of the file, the last one's key in hex).
func Import12(stop context.Context, to Endpoint, o Options, path string) (*Summary, error) {
	t0 := time.Now()
	if err := o.defaults(); err != nil {
		return nil, err
	}
	sum := &Summary{Command: "import", Keyspace: o.Keyspace, Checkpoint: o.Checkpoint}
	defer func() { sum.Elapsed = time.Since(t0) }()
	if len(o.ColumnFamilies) != 1 {
		return sum, errors.New("import writes one column family: name it")
	}
	name := o.ColumnFamilies[0]
	c, err := dial19(context.Background(), to, "")
	if err != nil {
		return sum, err
	}
	ks, err := c.DescribeKeyspace(context.Background(), o.Keyspace)
	c.Close()
	if err != nil {
		var nf *cassandra19.NotFoundException
		if errors.As(err, &nf) {
			return sum, fmt.Errorf("keyspace %s does not exist on %s", o.Keyspace, to.Addr)
		}
		return sum, fmt.Errorf("describe_keyspace %s on %s: %w", o.Keyspace, to.Addr, describeErr19(err))
	}
	fams, err := choose19(ks, []string{name}, to.Addr)
	if err != nil {
		return sum, err
	}
	def := fams[0].def
	abs, err := filepath.Abs(path)
	if err != nil {
		return sum, err
	}
	cp, err := openCheckpoint(o.Checkpoint, o.Resume, "import", o.Keyspace, abs)
	if err != nil {
		return sum, err
	}
	start := cp.get(name)
	fs := FamilySummary{Name: name, File: path, Resumed: o.Resume && (start.Rows > 0 || start.Done)}
	if start.Done {
		fs.Rows, fs.Columns, fs.Bytes = start.Rows, start.Columns, start.Bytes
		sum.add(fs)
		return sum, cp.remove()
	}
	f, err := os.Open(path)
	if err != nil {
		return sum, err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil {
		o.Stats.Total.Store(st.Size())
	}
	counter := fams[0].counter()
	w, err := newWriter19(&o, to, name, cp, start, counter)
	if err != nil {
		return sum, err
	}
	o.Logger.Info("importing 1.x JSON", "file", path, "keyspace", o.Keyspace, "column_family", name, "to", to.Addr, "after_rows", start.Rows)
	h := &handler12{stop: stop, w: w, def: def, counter: counter, skip: start.Rows, lastKey: start.LastKey, now: time.Now(), file: path}
	rerr := sstablejson.Read12(&countingReader{r: f, n: &o.Stats.Done}, h)
	if rerr != nil && !errors.Is(rerr, ErrInterrupted) && !errors.Is(rerr, errBatch) {
		rerr = fmt.Errorf("%s: %w", path, rerr)
	}
	pos, err := drain(w, rerr)
	fs.Rows, fs.Columns, fs.Bytes = pos.Rows, pos.Columns, pos.Bytes
	sum.add(fs)
	if err != nil {
		sum.Interrupted = errors.Is(err, ErrInterrupted)
		return sum, err
	}
	if h.expired > 0 {
		o.Logger.Info("expiring columns past their expiration time were not written", "columns", h.expired)
	}
	if h.deletions > 0 {
		o.Logger.Info("deletions in a counter family were not written", "deletions", h.deletions)
	}
	pos.Done = true
	cp.set(name, pos)
	return sum, cp.remove()
}

// errBatch marks an error of the writer, which already names the batch.
var errBatch = errors.New("batch")

// handler12 turns a 1.x file's rows into mutations of a 19.x writer.
type handler12 struct {
	stop    context.Context
	w       *writer
	def     *cassandra19.CfDef
	counter bool // def is a counter family
	skip    int64
	lastKey string
	now     time.Time
	file    string

	row     int64
	key     []byte
	skipRow bool
	super   []byte
	expired int64
	// deletions of a counter family, not written.
	deletions int64
}

func (h *handler12) Row(r sstablejson.Row12) error {
	if h.stop.Err() != nil {
		return ErrInterrupted
	}
	h.row++
	h.key, h.super = r.Key, nil
	h.skipRow = h.row <= h.skip
	if h.skipRow {
		if h.row == h.skip && h.lastKey != "" && hex.EncodeToString(r.Key) != h.lastKey {
			return fmt.Errorf("row %d has key %x, but the checkpoint's last row has %s: is this the file that was being imported?", h.row, r.Key, h.lastKey)
		}
		return nil
	}
	if len(r.Key) == 0 {
		return fmt.Errorf("row %d: an empty key", h.row)
	}
	if err := h.w.beginRow(string(r.Key)); err != nil {
		return errors.Join(errBatch, err)
	}
	if r.Deleted != nil && h.counter {
		h.deletions++
	} else if r.Deleted != nil {
		m := &cassandra19.Mutation{Deletion: &cassandra19.Deletion{Timestamp: &r.Deleted.MarkedForDeleteAt}}
		return h.add(m, 0)
	}
	return nil
}

func (h *handler12) add(m *cassandra19.Mutation, size int64) error {
	if err := h.w.add19(m, 1, size); err != nil {
		return errors.Join(errBatch, err)
	}
	return nil
}

func (h *handler12) Super(name string, deleted *sstablejson.Deletion12) error {
	if h.skipRow {
		return nil
	}
	b, err := sstablejson.TypeFromString(h.def.ComparatorType, name)
	if err != nil {
		return fmt.Errorf("row %x: super column %q is not a %s: %v", h.key, name, h.def.ComparatorType, err)
	}
	h.super = b
	if deleted != nil && h.counter {
		h.deletions++
	} else if deleted != nil {
		m := &cassandra19.Mutation{Deletion: &cassandra19.Deletion{Timestamp: &deleted.MarkedForDeleteAt, SuperColumn: b}}
		return h.add(m, int64(len(b)))
	}
	return nil
}

// validator is the class that reads the value of the column named name.
func (h *handler12) validator(name []byte) string {
	if h.def.ColumnType != "Super" {
		for _, cd := range h.def.ColumnMetadata {
			if string(cd.Name) == string(name) {
				return cd.ValidationClass
			}
		}
	}
	if h.def.DefaultValidationClass != nil {
		return *h.def.DefaultValidationClass
	}
	return "BytesType"
}

func (h *handler12) Column(c sstablejson.Column12) error {
	if h.skipRow {
		return nil
	}
	nameType := h.def.ComparatorType
	if h.super != nil && h.def.SubcomparatorType != nil {
		nameType = *h.def.SubcomparatorType
	}
	name, err := sstablejson.TypeFromString(nameType, c.Name)
	if err != nil {
		return fmt.Errorf("row %x: column %q is not a %s: %v", h.key, c.Name, nameType, err)
	}
	switch {
	case c.Kind == "c" && !h.counter:
		return fmt.Errorf("row %x: column %q is a counter, but %s is not a counter column family", h.key, c.Name, h.def.Name)
	case c.Kind == "c":
		total, err := sstablejson.CounterTotal12(c.Value)
		if err != nil {
			return fmt.Errorf("row %x: counter %q: %v", h.key, c.Name, err)
		}
		// The total: the writer adds its difference from the target's.
		cc := &cassandra19.CounterColumn{Name: name, Value: total}
		cs := &cassandra19.ColumnOrSuperColumn{CounterColumn: cc}
		if h.super != nil {
			cs = &cassandra19.ColumnOrSuperColumn{CounterSuperColumn: &cassandra19.CounterSuperColumn{Name: h.super, Columns: []*cassandra19.CounterColumn{cc}}}
		}
		return h.add(&cassandra19.Mutation{ColumnOrSupercolumn: cs}, int64(len(name)+8))
	case h.counter && (c.Kind == "d" || c.Kind == "t"):
		h.deletions++
		return nil
	case h.counter:
		return fmt.Errorf("row %x: column %q is not a counter, but %s is a counter column family", h.key, c.Name, h.def.Name)
	}
	switch c.Kind {
	case "t":
		return fmt.Errorf("row %x: a range tombstone from %q to %q: range tombstones are not imported", h.key, c.Name, c.Value)
	case "d":
		ts := c.Timestamp
		d := &cassandra19.Deletion{Timestamp: &ts, SuperColumn: h.super, Predicate: &cassandra19.SlicePredicate{ColumnNames: [][]byte{name}}}
		return h.add(&cassandra19.Mutation{Deletion: d}, int64(len(name)))
	}
	vt := h.validator(name)
	value, err := sstablejson.TypeFromString(vt, c.Value)
	if err != nil {
		return fmt.Errorf("row %x: the value %q of column %q is not a %s: %v", h.key, c.Value, c.Name, vt, err)
	}
	ts := c.Timestamp
	col := &cassandra19.Column{Name: name, Value: value, Timestamp: &ts}
	if c.Kind == "e" {
		left := int64(c.LocalExpiration) - h.now.Unix()
		if left <= 0 {
			h.expired++
			return nil
		}
		ttl := int32(min(left, int64(c.TTL)))
		if c.TTL <= 0 {
			ttl = int32(left)
		}
		col.TTL = &ttl
	}
	cs := &cassandra19.ColumnOrSuperColumn{Column: col}
	if h.super != nil {
		cs = &cassandra19.ColumnOrSuperColumn{SuperColumn: &cassandra19.SuperColumn{Name: h.super, Columns: []*cassandra19.Column{col}}}
	}
	return h.add(&cassandra19.Mutation{ColumnOrSupercolumn: cs}, int64(len(name)+len(value)))
}

func (h *handler12) EndRow() error {
	if h.skipRow {
		return nil
	}
	if err := h.w.endRow(); err != nil {
		return errors.Join(errBatch, err)
	}
	return nil
}

// countingReader counts the bytes read into n (progress toward the
// file's size).
type countingReader struct {
	r interface{ Read([]byte) (int, error) }
	n *atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	k, err := c.r.Read(p)
	c.n.Add(int64(k))
	return k, err
}
