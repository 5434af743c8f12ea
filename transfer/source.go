package transfer

import (
	"bytes"
	"context"
	"fmt"

	"github.com/thriftd/thriftd/gen-go/cassandra"
)

// rowSink receives a column family's rows in the source's order, each as
// beginRow, one or more pages of items (columns, or super columns with
// all their subcolumns) in comparator order, then endRow.
type rowSink interface {
	beginRow(key string) error
	items(page []*cassandra.ColumnOrSuperColumn) error
	endRow() error
}

// scan reads every row of fam with live data, after the row after (all
// rows when after is ""), into sink. It checks stop between rows and
// returns ErrInterrupted, having ended the row in progress, once stop is
// done. Rows are paged with get_range_slices from the last key read (0.6
// compares start_key by token, so this walks the ring in order under
// every partitioner); rows that fill a page are read on with get_slice
// from their last name. Range ghosts (rows without live columns) are
// skipped.
func scan(stop context.Context, c *conn, o *Options, fam Family, after string, sink rowSink) error {
	ctx := context.Background()
	parent := &cassandra.ColumnParent{ColumnFamily: fam.Name}
	start := after
	for {
		skip := start != ""
		count := int32(o.PageRows)
		if skip {
			count++
		}
		pred := &cassandra.SlicePredicate{SliceRange: &cassandra.SliceRange{Start: []byte{}, Finish: []byte{}, Count: int32(o.PageSize)}}
		end := ""
		kr := &cassandra.KeyRange{StartKey: &start, EndKey: &end, Count: count}
		page, err := c.GetRangeSlices(ctx, o.Keyspace, parent, pred, kr, o.Consistency)
		if err != nil {
			return fmt.Errorf("get_range_slices of %s.%s from key %q on %s: %w", o.Keyspace, fam.Name, start, c.addr, describeErr(err))
		}
		for _, ks := range page {
			if skip && ks.Key == start {
				continue
			}
			if stop.Err() != nil {
				return ErrInterrupted
			}
			if len(ks.Columns) == 0 {
				continue
			}
			if err := readRow(ctx, c, o, fam, ks, sink); err != nil {
				return err
			}
		}
		if len(page) < int(count) {
			return nil
		}
		start = page[len(page)-1].Key
	}
}

func itemName(c *cassandra.ColumnOrSuperColumn) []byte {
	if c.SuperColumn != nil {
		return c.SuperColumn.Name
	}
	if c.Column != nil {
		return c.Column.Name
	}
	return nil
}

// readRow passes one row to sink: the page the range read returned, then
// get_slice pages while a page comes back full.
func readRow(ctx context.Context, c *conn, o *Options, fam Family, ks *cassandra.KeySlice, sink rowSink) error {
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
		last := itemName(page[len(page)-1])
		parent := &cassandra.ColumnParent{ColumnFamily: fam.Name}
		pred := &cassandra.SlicePredicate{SliceRange: &cassandra.SliceRange{Start: last, Finish: []byte{}, Count: int32(o.PageSize + 1)}}
		next, err := c.GetSlice(ctx, o.Keyspace, ks.Key, parent, pred, o.Consistency)
		if err != nil {
			return fmt.Errorf("get_slice of %s.%s row %q from name %x on %s: %w", o.Keyspace, fam.Name, ks.Key, last, c.addr, describeErr(err))
		}
		full = len(next) == o.PageSize+1
		if len(next) > 0 && bytes.Equal(itemName(next[0]), last) {
			next = next[1:]
		}
		if len(next) == 0 {
			break
		}
		page = next
	}
	return sink.endRow()
}
