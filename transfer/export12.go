package transfer

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/thriftd/thriftd/gen-go/cassandra19"
	"github.com/thriftd/thriftd/sstablejson"
)

// Export12 is Export in the JSON of Cassandra 1.x's sstable2json
// (sstablejson.Writer12) from a server of the 19.x or 20.x API (thriftd,
// Cassandra 0.7 to 3.11): names and values as text of the family's types,
// expiring columns with their TTL as written and a local expiration time
// derived as copy derives the remaining TTL (remainingTTL). Only live
// data comes through the API. A counter is written as a counter cell
// ("c") whose context holds its total (sstablejson.CounterContext12), with
// the export's start as its timestamp (in milliseconds, as 1.2 stamped
// counters), since the API reports none.
// Column families are exported one after
// the other; the checkpoint records those completed, and a resumed export
// writes the family it was in again from its start.
func Export12(stop context.Context, from Endpoint, o Options, dir string) (*Summary, error) {
	t0 := time.Now()
	if err := o.defaults(); err != nil {
		return nil, err
	}
	sum := &Summary{Command: "export", Keyspace: o.Keyspace, Checkpoint: o.Checkpoint}
	defer func() { sum.Elapsed = time.Since(t0) }()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return sum, err
	}
	c, err := dial19(context.Background(), from, "")
	if err != nil {
		return sum, err
	}
	defer c.Close()
	ks, err := c.DescribeKeyspace(context.Background(), o.Keyspace)
	if err != nil {
		var nf *cassandra19.NotFoundException
		if errors.As(err, &nf) {
			return sum, fmt.Errorf("keyspace %s does not exist on %s", o.Keyspace, from.Addr)
		}
		return sum, fmt.Errorf("describe_keyspace %s on %s: %w", o.Keyspace, from.Addr, describeErr19(err))
	}
	fams, err := choose19(ks, o.ColumnFamilies, from.Addr)
	if err != nil {
		return sum, err
	}
	if err := c.SetKeyspace(context.Background(), o.Keyspace); err != nil {
		return sum, fmt.Errorf("set_keyspace %s on %s: %w", o.Keyspace, from.Addr, describeErr19(err))
	}
	cp, err := openCheckpoint(o.Checkpoint, o.Resume, "export", o.Keyspace, from.Addr)
	if err != nil {
		return sum, err
	}
	for _, f := range fams {
		name := f.def.Name
		path := FileName(dir, o.Keyspace, name)
		start := cp.get(name)
		fs := FamilySummary{Name: name, File: path, Resumed: o.Resume && start.Done}
		if start.Done {
			fs.Rows, fs.Columns, fs.Bytes = start.Rows, start.Columns, start.Bytes
			sum.add(fs)
			continue
		}
		file, err := os.Create(path)
		if err != nil {
			return sum, err
		}
		sink := &exportSink12{x: sstablejson.NewWriter12(file, f.super()), def: f.def, o: &o, now: time.Now()}
		err = scan19(stop, c, &o, f, nil, false, sink)
		if err == nil {
			err = sink.x.Close()
		} else {
			sink.x.Flush()
		}
		if cerr := file.Close(); err == nil {
			err = cerr
		}
		fs.Rows, fs.Columns, fs.Bytes = sink.pos.Rows, sink.pos.Columns, sink.pos.Bytes
		sum.add(fs)
		if err != nil {
			sum.Interrupted = errors.Is(err, ErrInterrupted)
			if serr := cp.save(); serr != nil && !sum.Interrupted {
				return sum, errors.Join(err, serr)
			}
			return sum, err
		}
		pos := sink.pos
		pos.Done = true
		cp.set(name, pos)
		if err := cp.save(); err != nil {
			return sum, err
		}
	}
	return sum, cp.remove()
}

// exportSink12 writes what a 19.x read returns as 1.x JSON.
type exportSink12 struct {
	x   *sstablejson.Writer12
	def *cassandra19.CfDef
	o   *Options
	now time.Time
	pos Position
	key []byte
	n   int64
}

func (s *exportSink12) beginRow(key []byte) error {
	s.key, s.n = key, 0
	s.x.BeginRow(key)
	return nil
}

func (s *exportSink12) endRow() error {
	s.x.EndRow()
	s.pos.Rows++
	s.pos.LastKey = hex.EncodeToString(s.key)
	s.o.Stats.Rows.Add(1)
	return nil
}

func (s *exportSink12) validator(name []byte, super bool) string {
	if !super {
		for _, cd := range s.def.ColumnMetadata {
			if string(cd.Name) == string(name) {
				return cd.ValidationClass
			}
		}
	}
	if s.def.DefaultValidationClass != nil {
		return *s.def.DefaultValidationClass
	}
	return "BytesType"
}

func (s *exportSink12) column(c *cassandra19.Column, nameType string, super bool) error {
	name, err := sstablejson.TypeString(nameType, c.Name)
	if err != nil {
		return err
	}
	value, err := sstablejson.TypeString(s.validator(c.Name, super), c.Value)
	if err != nil {
		return err
	}
	var ttl, exp int32
	if c.TTL != nil && *c.TTL > 0 {
		ttl = *c.TTL
		exp = int32(s.now.Unix() + int64(remainingTTL(ttl, c.GetTimestamp(), s.now)))
	}
	s.x.Column(name, value, c.GetTimestamp(), ttl, exp)
	s.pos.Columns++
	s.pos.Bytes += int64(len(c.Name) + len(c.Value))
	s.o.Stats.Columns.Add(1)
	s.o.Stats.Bytes.Add(int64(len(c.Name) + len(c.Value)))
	return nil
}

// counter writes a counter cell.
func (s *exportSink12) counter(c *cassandra19.CounterColumn, nameType string) error {
	name, err := sstablejson.TypeString(nameType, c.Name)
	if err != nil {
		return fmt.Errorf("row %x: %w", s.key, err)
	}
	// In milliseconds, as 1.2 stamped a counter.
	s.x.Counter(name, c.Value, s.now.UnixMilli())
	s.pos.Columns++
	s.pos.Bytes += int64(len(c.Name) + 8)
	s.o.Stats.Columns.Add(1)
	s.o.Stats.Bytes.Add(int64(len(c.Name) + 8))
	return nil
}

func (s *exportSink12) items(page []*cassandra19.ColumnOrSuperColumn) error {
	sub := "BytesType"
	if s.def.SubcomparatorType != nil {
		sub = *s.def.SubcomparatorType
	}
	for _, it := range page {
		if c := it.CounterColumn; c != nil {
			if err := s.counter(c, s.def.ComparatorType); err != nil {
				return err
			}
			continue
		}
		if sc := it.CounterSuperColumn; sc != nil {
			name, err := sstablejson.TypeString(s.def.ComparatorType, sc.Name)
			if err != nil {
				return err
			}
			s.x.BeginSuper(name)
			for _, c := range sc.Columns {
				if err := s.counter(c, sub); err != nil {
					return err
				}
			}
			s.x.EndSuper()
			continue
		}
		if c := it.Column; c != nil {
			if err := s.column(c, s.def.ComparatorType, false); err != nil {
				return fmt.Errorf("row %x: %w", s.key, err)
			}
			continue
		}
		sc := it.SuperColumn
		if sc == nil {
			continue
		}
		name, err := sstablejson.TypeString(s.def.ComparatorType, sc.Name)
		if err != nil {
			return err
		}
		s.x.BeginSuper(name)
		for _, c := range sc.Columns {
			if err := s.column(c, sub, true); err != nil {
				return fmt.Errorf("row %x: %w", s.key, err)
			}
		}
		s.x.EndSuper()
	}
	return nil
}
