package transfer

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/thriftd/thriftd/gen-go/cassandra"
	"github.com/thriftd/thriftd/sstablejson"
)

// FileName is the file Export writes a column family to, in dir.
func FileName(dir, keyspace, cf string) string {
	return filepath.Join(dir, keyspace+"."+cf+".json")
}

// Export writes o.ColumnFamilies of o.Keyspace (all when empty) from a
// server into dir, one file per column family in 0.6's sstable2json
// format (FileName). Live data only comes through the API: every column
// is written with deleted=false and every super column with 0.6's
// deletedAt of a super column never deleted. Up to o.Workers column
// families are exported at once, each on its own connection.
//
// When stop is done, each export ends its row in progress, flushes its
// file, and the checkpoint records the file's length at that row so a
// resumed export continues the same file.
func Export(stop context.Context, from Endpoint, o Options, dir string) (*Summary, error) {
	t0 := time.Now()
	if err := o.defaults(); err != nil {
		return nil, err
	}
	sum := &Summary{Command: "export", Keyspace: o.Keyspace, Checkpoint: o.Checkpoint}
	defer func() { sum.Elapsed = time.Since(t0) }()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return sum, err
	}
	c, err := dial(context.Background(), from, o.Keyspace)
	if err != nil {
		return sum, err
	}
	all, names, err := describe(context.Background(), c, o.Keyspace)
	if err != nil {
		c.Close()
		return sum, err
	}
	fams, err := choose(all, names, o.ColumnFamilies, o.Keyspace, from.Addr)
	if err != nil {
		c.Close()
		return sum, err
	}
	rg := newRing(c, len(fams), o.Stats)
	c.Close()
	cp, err := openCheckpoint(o.Checkpoint, o.Resume, "export", o.Keyspace, from.Addr)
	if err != nil {
		return sum, err
	}

	results := make([]FamilySummary, len(fams))
	errs := make([]error, len(fams))
	sem := make(chan struct{}, o.Workers)
	var wg sync.WaitGroup
	for i, f := range fams {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			results[i], errs[i] = exportFamily(stop, from, &o, f, FileName(dir, o.Keyspace, f.Name), cp, rg)
		}()
	}
	wg.Wait()
	for _, r := range results {
		sum.add(r)
	}
	// A failure outranks an interruption in what is reported.
	var interrupted bool
	for _, err := range errs {
		if errors.Is(err, ErrInterrupted) {
			interrupted = true
		} else if err != nil {
			return sum, err
		}
	}
	if interrupted {
		sum.Interrupted = true
		return sum, ErrInterrupted
	}
	return sum, cp.remove()
}

func exportFamily(stop context.Context, from Endpoint, o *Options, f Family, path string, cp *checkpointer, rg *ring) (FamilySummary, error) {
	start := cp.get(f.Name)
	fs := FamilySummary{Name: f.Name, File: path, Resumed: o.Resume && (start.Rows > 0 || start.Done)}
	if start.Done {
		fs.Rows, fs.Columns, fs.Bytes = start.Rows, start.Columns, start.Bytes
		rg.at(f.Name, "", true)
		return fs, nil
	}
	c, err := dial(context.Background(), from, o.Keyspace)
	if err != nil {
		return fs, err
	}
	defer c.Close()

	var file *os.File
	var w *sstablejson.Writer
	if start.Offset > 0 {
		// Resume: cut the file back to the last row the checkpoint saw
		// complete, then go on after that row.
		if file, err = os.OpenFile(path, os.O_RDWR, 0); err != nil {
			return fs, fmt.Errorf("resuming the export of %s: %w", f.Name, err)
		}
		if st, err := file.Stat(); err != nil || st.Size() < start.Offset {
			file.Close()
			return fs, fmt.Errorf("resuming the export of %s: %s is shorter than the checkpoint says (%d bytes); start afresh without --resume", f.Name, path, start.Offset)
		}
		if err := file.Truncate(start.Offset); err != nil {
			file.Close()
			return fs, err
		}
		if _, err := file.Seek(start.Offset, 0); err != nil {
			file.Close()
			return fs, err
		}
		w = sstablejson.ResumeWriter(file, f.Super, start.Rows, start.Offset)
	} else {
		start = Position{}
		if file, err = os.Create(path); err != nil {
			return fs, err
		}
		w = sstablejson.NewWriter(file, f.Super)
	}
	defer file.Close()
	o.Logger.Info("exporting", "keyspace", o.Keyspace, "column_family", f.Name, "file", path, "after_key", start.LastKey)
	sink := &exportSink{w: w, f: f, pos: start, file: file, cp: cp, stats: o.Stats, lastSave: time.Now(), rowEnd: w.Offset()}
	var rs rowSink = sink
	if rg != nil {
		rs = &ringSink{rowSink: sink, r: rg, cf: f.Name}
	}
	err = scan(stop, c, o, f, start.LastKey, rs)
	if err == nil {
		if err = w.Close(); err == nil {
			sink.pos.Done = true
			rg.at(f.Name, "", true)
		}
	}
	if serr := sink.save(); err == nil {
		err = serr
	}
	fs.Rows, fs.Columns, fs.Bytes = sink.pos.Rows, sink.pos.Columns, sink.pos.Bytes
	if err == nil {
		o.Logger.Info("exported", "column_family", f.Name, "rows", fs.Rows, "columns", fs.Columns, "file", path)
	}
	return fs, err
}

// exportSink writes rows to a file, recording the file's length after
// the last complete row in the checkpoint every few seconds.
type exportSink struct {
	w        *sstablejson.Writer
	f        Family
	file     *os.File
	pos      Position
	cp       *checkpointer
	stats    *Stats
	key      string
	cols     int64
	bytes    int64
	lastSave time.Time
	// rowEnd is the writer's offset after the last complete row.
	rowEnd int64
}

func (s *exportSink) beginRow(key string) error {
	s.key, s.cols, s.bytes = key, 0, 0
	if err := s.w.BeginRow(key); err != nil {
		return fmt.Errorf("exporting %s: %w", s.f.Name, err)
	}
	return nil
}

func (s *exportSink) items(page []*cassandra.ColumnOrSuperColumn) error {
	for _, it := range page {
		if c := it.Column; c != nil {
			if err := s.w.Column(sstablejson.Column{Name: c.Name, Value: c.Value, Timestamp: c.Timestamp}); err != nil {
				return err
			}
			s.cols++
			s.bytes += int64(len(c.Name) + len(c.Value))
			continue
		}
		sc := it.SuperColumn
		if sc == nil {
			continue
		}
		if err := s.w.BeginSuper(sc.Name, sstablejson.NotDeleted); err != nil {
			return err
		}
		s.bytes += int64(len(sc.Name))
		for _, c := range sc.Columns {
			if err := s.w.Column(sstablejson.Column{Name: c.Name, Value: c.Value, Timestamp: c.Timestamp}); err != nil {
				return err
			}
			s.cols++
			s.bytes += int64(len(c.Name) + len(c.Value))
		}
		if err := s.w.EndSuper(); err != nil {
			return err
		}
	}
	return nil
}

func (s *exportSink) endRow() error {
	if err := s.w.EndRow(); err != nil {
		return err
	}
	s.rowEnd = s.w.Offset()
	s.pos.Rows++
	s.pos.LastKey = s.key
	s.pos.Columns += s.cols
	s.pos.Bytes += s.bytes
	s.stats.Rows.Add(1)
	s.stats.Columns.Add(s.cols)
	s.stats.Bytes.Add(s.bytes)
	if time.Since(s.lastSave) > 2*time.Second {
		s.lastSave = time.Now()
		return s.save()
	}
	return nil
}

// save flushes and syncs the file, then records in the checkpoint its
// length up to the last complete row (what follows is cut on resume).
func (s *exportSink) save() error {
	if err := s.w.Flush(); err != nil {
		return fmt.Errorf("writing %s: %w", s.file.Name(), err)
	}
	if err := s.file.Sync(); err != nil {
		return fmt.Errorf("writing %s: %w", s.file.Name(), err)
	}
	s.pos.Offset = s.rowEnd
	if s.pos.Done {
		s.pos.Offset = s.w.Offset()
	}
	s.cp.set(s.f.Name, s.pos)
	return s.cp.save()
}
