package transfer

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/thriftd/thriftd/gen-go/cassandra19"
)

// family19 is a column family of a 19.x source, as describe_keyspace
// reports it.
type family19 struct {
	def *cassandra19.CfDef
}

// bounds are the start and finish of a slice of the whole row: empty,
// except under InetAddressType, which refuses the empty name in a slice
// as 1.2 did; its names are 4 or 16 bytes compared as unsigned bytes, so
// 0.0.0.0 and sixteen 0xff bytes bound them.
func (f family19) bounds() (start, finish []byte) {
	lo, hi := []byte{0, 0, 0, 0}, bytes.Repeat([]byte{0xff}, 16)
	switch strings.TrimPrefix(f.def.ComparatorType, "org.apache.cassandra.db.marshal.") {
	case "InetAddressType":
		return lo, hi
	case "ReversedType(org.apache.cassandra.db.marshal.InetAddressType)", "ReversedType(InetAddressType)":
		return hi, lo
	}
	return []byte{}, []byte{}
}

// counter reports whether the family holds counters (1.2's rule: its
// default validator is CounterColumnType).
func (f family19) counter() bool {
	return f.def.DefaultValidationClass != nil && strings.HasSuffix(*f.def.DefaultValidationClass, "CounterColumnType")
}

// copy19 is Copy from a server of the 19.x or 20.x API: the keyspace and
// column families are created on the target (through the same API) from
// the source's KsDef and CfDefs, every field kept, when the target lacks
// them; then every row is copied with get_range_slices and get_slice,
// written with batch_mutate keeping each column's timestamp and the TTL
// that remains (remainingTTL).
func copy19(stop context.Context, from, to Endpoint, o Options, version string, t0 time.Time) (*Summary, error) {
	sum := &Summary{Command: "copy", Keyspace: o.Keyspace, Checkpoint: o.Checkpoint}
	defer func() { sum.Elapsed = time.Since(t0) }()
	ctx := context.Background()
	o.Logger.Info("the source serves the 19.x API", "server", from.Addr, "version", version)
	src, err := dial19(ctx, from, "")
	if err != nil {
		return sum, err
	}
	defer src.Close()
	ks, err := src.DescribeKeyspace(ctx, o.Keyspace)
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
	if err := ensureSchema(ctx, to, ks, fams); err != nil {
		return sum, err
	}
	if err := src.SetKeyspace(ctx, o.Keyspace); err != nil {
		return sum, fmt.Errorf("set_keyspace %s on %s: %w", o.Keyspace, from.Addr, describeErr19(err))
	}
	cp, err := openCheckpoint(o.Checkpoint, o.Resume, "copy", o.Keyspace, from.Addr)
	if err != nil {
		return sum, err
	}
	for _, f := range fams {
		name := f.def.Name
		start := cp.get(name)
		fs := FamilySummary{Name: name, Resumed: o.Resume && (start.Rows > 0 || start.Done)}
		if start.Done {
			fs.Rows, fs.Columns, fs.Bytes = start.Rows, start.Columns, start.Bytes
			sum.add(fs)
			continue
		}
		after, err := hex.DecodeString(start.LastKey)
		if err != nil {
			return sum, fmt.Errorf("checkpoint %s: last key of %s is not hex: %w", o.Checkpoint, name, err)
		}
		o.Logger.Info("copying", "keyspace", o.Keyspace, "column_family", name, "from", from.Addr, "to", to.Addr, "after_key", start.LastKey)
		w, err := newWriter19(&o, to, name, cp, start, f.counter())
		if err != nil {
			return sum, err
		}
		sink := &copySink19{w: w, batch: o.BatchSize, now: time.Now, super: f.super()}
		pos, err := drain(w, scan19(stop, src, &o, f, after, start.LastKey != "" || start.Rows > 0, sink))
		fs.Rows, fs.Columns, fs.Bytes = pos.Rows, pos.Columns, pos.Bytes
		sum.add(fs)
		if err != nil {
			sum.Interrupted = errors.Is(err, ErrInterrupted)
			return sum, err
		}
		pos.Done = true
		cp.set(name, pos)
		if err := cp.save(); err != nil {
			return sum, err
		}
		o.Logger.Info("copied", "column_family", name, "rows", pos.Rows, "columns", pos.Columns)
	}
	if err := cp.remove(); err != nil {
		return sum, err
	}
	return sum, nil
}

// choose19 returns the column families of ks named in want (all when
// want is empty), sorted by name.
func choose19(ks *cassandra19.KsDef, want []string, addr string) ([]family19, error) {
	byName := map[string]*cassandra19.CfDef{}
	var all []string
	for _, d := range ks.CfDefs {
		byName[d.Name] = d
		all = append(all, d.Name)
	}
	sort.Strings(all)
	if len(want) == 0 {
		want = all
	}
	var out []family19
	var missing []string
	for _, n := range want {
		d, ok := byName[n]
		if !ok {
			missing = append(missing, n)
			continue
		}
		out = append(out, family19{d})
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("keyspace %s on %s has no column family %s (it has: %s)", ks.Name, addr, strings.Join(missing, ", "), strings.Join(all, ", "))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].def.Name < out[j].def.Name })
	return out, nil
}

// forTarget is a copy of a source's CfDef to create on a target: every
// field kept but the id, which the target assigns, and the columns that
// Cassandra 3.x lists in a super family's column_metadata for its own
// layout (superLayoutColumns).
func forTarget(d *cassandra19.CfDef) *cassandra19.CfDef {
	c := *d
	c.ID = nil
	if drop := superLayoutColumns(d); len(drop) > 0 {
		c.ColumnMetadata = nil
		for _, cd := range d.ColumnMetadata {
			if !drop[string(cd.Name)] {
				c.ColumnMetadata = append(c.ColumnMetadata, cd)
			}
		}
		if c.ColumnMetadata == nil {
			c.ColumnMetadata = []*cassandra19.ColumnDef{}
		}
	}
	return &c
}

// superLayoutColumns returns the names of the column_metadata entries
// that Cassandra 3.0 to 3.11 describe for a super family of their own
// accord: the family is stored as a CQL table whose super columns map
// subcolumn names to values, and 3.x's describe_keyspace lists that map,
// named "" and typed MapType(subcomparator, default validator), and a
// column named "value" of the default validator. No client declared
// them (1.2 and 2.1 list none), and no Thrift server takes a MapType
// validator back, so copy leaves them out. "value" is left out only
// beside such a map, unindexed and of the default validator, as 3.x
// lists it.
func superLayoutColumns(d *cassandra19.CfDef) map[string]bool {
	if d.ColumnType != "Super" {
		return nil
	}
	validator := "BytesType"
	if d.DefaultValidationClass != nil {
		validator = *d.DefaultValidationClass
	}
	short := func(class string) string {
		return strings.ReplaceAll(class, "org.apache.cassandra.db.marshal.", "")
	}
	sub := "BytesType"
	if d.SubcomparatorType != nil {
		sub = *d.SubcomparatorType
	}
	drop := map[string]bool{}
	for _, cd := range d.ColumnMetadata {
		if len(cd.Name) == 0 && cd.IndexType == nil && short(cd.ValidationClass) == "MapType("+short(sub)+","+short(validator)+")" {
			drop[""] = true
		}
	}
	if !drop[""] {
		return nil
	}
	for _, cd := range d.ColumnMetadata {
		if string(cd.Name) == "value" && cd.IndexType == nil && short(cd.ValidationClass) == short(validator) {
			drop["value"] = true
		}
	}
	return drop
}

// ensureSchema creates on the target what it lacks of the keyspace and
// of fams, and checks that the families it has can hold the source's
// data (same type and comparators).
func ensureSchema(ctx context.Context, to Endpoint, ks *cassandra19.KsDef, fams []family19) error {
	c, err := dial19(ctx, to, "")
	if err != nil {
		return err
	}
	defer c.Close()
	have, err := c.DescribeKeyspace(ctx, ks.Name)
	var nf *cassandra19.NotFoundException
	if errors.As(err, &nf) {
		def := *ks
		def.CfDefs = nil
		for _, f := range fams {
			def.CfDefs = append(def.CfDefs, forTarget(f.def))
		}
		if def.CfDefs == nil {
			def.CfDefs = []*cassandra19.CfDef{}
		}
		if _, err := c.SystemAddKeyspace(ctx, &def); err != nil {
			return fmt.Errorf("system_add_keyspace %s on %s: %w", ks.Name, to.Addr, describeErr19(err))
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("describe_keyspace %s on %s: %w", ks.Name, to.Addr, describeErr19(err))
	}
	existing := map[string]*cassandra19.CfDef{}
	for _, d := range have.CfDefs {
		existing[d.Name] = d
	}
	keyspaceSet := false
	for _, f := range fams {
		d, ok := existing[f.def.Name]
		if ok {
			if err := sameShape19(f.def, d, to.Addr); err != nil {
				return err
			}
			continue
		}
		if !keyspaceSet {
			if err := c.SetKeyspace(ctx, ks.Name); err != nil {
				return fmt.Errorf("set_keyspace %s on %s: %w", ks.Name, to.Addr, describeErr19(err))
			}
			keyspaceSet = true
		}
		if _, err := c.SystemAddColumnFamily(ctx, forTarget(f.def)); err != nil {
			return fmt.Errorf("system_add_column_family %s.%s on %s: %w", ks.Name, f.def.Name, to.Addr, describeErr19(err))
		}
	}
	return nil
}

func sameShape19(src, dst *cassandra19.CfDef, dstAddr string) error {
	if src.ColumnType != dst.ColumnType {
		return fmt.Errorf("column family %s is %s on the source but %s on %s", src.Name, src.ColumnType, dst.ColumnType, dstAddr)
	}
	sub := func(d *cassandra19.CfDef) string {
		if d.SubcomparatorType == nil {
			return ""
		}
		return *d.SubcomparatorType
	}
	if src.ComparatorType != dst.ComparatorType || sub(src) != sub(dst) {
		return fmt.Errorf("column family %s compares with %s%s on the source but %s%s on %s: names would sort differently or be refused",
			src.Name, src.ComparatorType, sub(src), dst.ComparatorType, sub(dst), dstAddr)
	}
	return nil
}

// scan19 reads every row of fam with live data, after the row with key
// after when skip is set, into sink, checking stop between rows. Rows are
// paged with get_range_slices from the last key read (start keys compare
// by token, so this walks the ring in order under every partitioner);
// rows that fill a page are read on with get_slice from their last name.
func scan19(stop context.Context, c *conn19, o *Options, fam family19, after []byte, skip bool, sink rowSink19) error {
	ctx := context.Background()
	parent := &cassandra19.ColumnParent{ColumnFamily: fam.def.Name}
	cl := cassandra19.ConsistencyLevel(o.Consistency)
	start := after
	if start == nil {
		start = []byte{} // set: the range starts at the first key
	}
	for {
		count := int32(o.PageRows)
		if skip {
			count++
		}
		first, finish := fam.bounds()
		pred := &cassandra19.SlicePredicate{SliceRange: &cassandra19.SliceRange{Start: first, Finish: finish, Count: int32(o.PageSize)}}
		kr := &cassandra19.KeyRange{StartKey: start, EndKey: []byte{}, Count: count}
		page, err := c.GetRangeSlices(ctx, parent, pred, kr, cl)
		if err != nil {
			return fmt.Errorf("get_range_slices of %s.%s from key %x on %s: %w", o.Keyspace, fam.def.Name, start, c.addr, describeErr19(err))
		}
		for _, ks := range page {
			if skip && bytes.Equal(ks.Key, start) {
				continue
			}
			if stop.Err() != nil {
				return ErrInterrupted
			}
			if len(ks.Columns) == 0 {
				continue
			}
			if err := readRow19(ctx, c, o, fam, ks, sink); err != nil {
				return err
			}
		}
		if len(page) < int(count) {
			return nil
		}
		start, skip = page[len(page)-1].Key, true
	}
}

func itemName19(c *cassandra19.ColumnOrSuperColumn) []byte {
	switch {
	case c.SuperColumn != nil:
		return c.SuperColumn.Name
	case c.Column != nil:
		return c.Column.Name
	case c.CounterSuperColumn != nil:
		return c.CounterSuperColumn.Name
	case c.CounterColumn != nil:
		return c.CounterColumn.Name
	}
	return nil
}

// rowSink19 is rowSink for the 19.x API, whose keys are bytes.
type rowSink19 interface {
	beginRow(key []byte) error
	items(page []*cassandra19.ColumnOrSuperColumn) error
	endRow() error
}

func readRow19(ctx context.Context, c *conn19, o *Options, fam family19, ks *cassandra19.KeySlice, sink rowSink19) error {
	if err := sink.beginRow(ks.Key); err != nil {
		return err
	}
	page := ks.Columns
	full := len(page) >= o.PageSize
	for {
		if err := sink.items(page); err != nil {
			return err
		}
		if !full {
			break
		}
		last := itemName19(page[len(page)-1])
		parent := &cassandra19.ColumnParent{ColumnFamily: fam.def.Name}
		_, finish := fam.bounds()
		pred := &cassandra19.SlicePredicate{SliceRange: &cassandra19.SliceRange{Start: last, Finish: finish, Count: int32(o.PageSize + 1)}}
		next, err := c.GetSlice(ctx, ks.Key, parent, pred, cassandra19.ConsistencyLevel(o.Consistency))
		if err != nil {
			return fmt.Errorf("get_slice of %s.%s row %x from name %x on %s: %w", o.Keyspace, fam.def.Name, ks.Key, last, c.addr, describeErr19(err))
		}
		full = len(next) == o.PageSize+1
		if len(next) > 0 && bytes.Equal(itemName19(next[0]), last) {
			next = next[1:]
		}
		if len(next) == 0 {
			break
		}
		page = next
	}
	return sink.endRow()
}

// copySink19 turns what a 19.x read returns into mutations of a 19.x
// writer.
type copySink19 struct {
	w     *writer
	batch int
	now   func() time.Time
	super bool
}

// Plausible write times: a column's timestamp is taken as the time it was
// written when, read as microseconds (every client's default), then
// milliseconds, then nanoseconds since the epoch, it falls between
// 2000-01-01 and a day from now.
var epoch2000 = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// writeTime returns the time a column with timestamp ts was written, if
// the timestamp reads as one.
func writeTime(ts int64, now time.Time) (time.Time, bool) {
	limit := now.Add(24 * time.Hour)
	for _, t := range []time.Time{time.UnixMicro(ts), time.UnixMilli(ts), time.Unix(0, ts)} {
		if !t.Before(epoch2000) && !t.After(limit) {
			return t, true
		}
	}
	return time.Time{}, false
}

// remainingTTL is the TTL to write for a column read with ttl (the TTL
// it was written with: what 1.2 to 3.11 and thriftd answer) and timestamp
// ts, at now. Thrift does not tell when the column expires, so the write
// time is taken from the timestamp: what remains is ttl less the seconds
// since then (rounded up), so that the copy does not outlive the original
// (clients take the timestamp before sending the write, so the real
// expiry is at or after this one).
//
// A column the source still serves has not expired, whatever its
// timestamp says. When the TTL derived from the timestamp has run out,
// the timestamp is not the time of the write (a backfill, an event time,
// a logical clock), and the whole TTL is kept: cutting it to what the
// timestamp implies would drop live data at once. So it is too when the
// timestamp is no time (see writeTime) or lies ahead of now. Such a
// column may outlive the original by at most its TTL; it never dies
// before it.
func remainingTTL(ttl int32, ts int64, now time.Time) int32 {
	w, ok := writeTime(ts, now)
	if !ok {
		return ttl
	}
	elapsed := now.Sub(w)
	if elapsed <= 0 {
		return ttl
	}
	left := int64(ttl) - int64((elapsed+time.Second-1)/time.Second)
	if left <= 0 {
		return ttl
	}
	return int32(min(left, int64(ttl)))
}

func (s *copySink19) beginRow(key []byte) error { return s.w.beginRow(string(key)) }
func (s *copySink19) endRow() error             { return s.w.endRow() }

func (s *copySink19) column(c *cassandra19.Column, now time.Time) *cassandra19.Column {
	if c.TTL == nil || *c.TTL <= 0 {
		return c
	}
	ttl := remainingTTL(*c.TTL, c.GetTimestamp(), now)
	out := *c
	out.TTL = &ttl
	return &out
}

func (s *copySink19) items(page []*cassandra19.ColumnOrSuperColumn) error {
	now := s.now()
	for _, it := range page {
		if c := it.CounterColumn; c != nil {
			// The source's total: the writer turns it into the
			// difference from the target's (see mutateCounters).
			m := &cassandra19.Mutation{ColumnOrSupercolumn: &cassandra19.ColumnOrSuperColumn{CounterColumn: c}}
			if err := s.w.add19(m, 1, int64(len(c.Name)+8)); err != nil {
				return err
			}
			continue
		}
		if sc := it.CounterSuperColumn; sc != nil {
			for cols := sc.Columns; len(cols) > 0; {
				n := min(len(cols), s.batch)
				size := int64(len(sc.Name))
				for _, c := range cols[:n] {
					size += int64(len(c.Name) + 8)
				}
				m := &cassandra19.Mutation{ColumnOrSupercolumn: &cassandra19.ColumnOrSuperColumn{CounterSuperColumn: &cassandra19.CounterSuperColumn{Name: sc.Name, Columns: cols[:n:n]}}}
				if err := s.w.add19(m, n, size); err != nil {
					return err
				}
				cols = cols[n:]
			}
			continue
		}
		if c := it.Column; c != nil {
			m := &cassandra19.Mutation{ColumnOrSupercolumn: &cassandra19.ColumnOrSuperColumn{Column: s.column(c, now)}}
			if err := s.w.add19(m, 1, int64(len(c.Name)+len(c.Value))); err != nil {
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
			part := make([]*cassandra19.Column, 0, n)
			for _, c := range cols[:n] {
				size += int64(len(c.Name) + len(c.Value))
				part = append(part, s.column(c, now))
			}
			m := &cassandra19.Mutation{ColumnOrSupercolumn: &cassandra19.ColumnOrSuperColumn{SuperColumn: &cassandra19.SuperColumn{Name: sc.Name, Columns: part}}}
			if err := s.w.add19(m, n, size+int64(len(sc.Name))); err != nil {
				return err
			}
			cols = cols[n:]
		}
	}
	return nil
}

func (f family19) super() bool { return f.def.ColumnType == "Super" }
