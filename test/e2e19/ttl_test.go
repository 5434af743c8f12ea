package e2e19

import (
	"testing"
	"time"

	"github.com/apache/thrift/lib/go/thrift"

	"github.com/thriftd/thriftd/gen-go/cassandra19"
)

// Expiring columns through the real binary on the embedded store: a read
// reports the ttl written; once it has passed, get_slice, get_count and
// multiget_slice leave the column out, and get_range_slices still returns
// its row, with no columns, when nothing else is left in it.
func TestExpiringColumns(t *testing.T) {
	n := start(t)
	c := n.Client19(true)
	must(t, c.SetKeyspace(ctx, "Keyspace1"))
	parent := &cassandra19.ColumnParent{ColumnFamily: "Standard1"}
	all := &cassandra19.SlicePredicate{SliceRange: &cassandra19.SliceRange{Count: 100}}
	one := cassandra19.ConsistencyLevel_ONE
	col := func(name string, ttl int32) *cassandra19.Column {
		c := &cassandra19.Column{Name: []byte(name), Value: []byte("v"), Timestamp: ts()}
		if ttl > 0 {
			c.TTL = thrift.Int32Ptr(ttl)
		}
		return c
	}
	must(t, c.Insert(ctx, []byte("ttl-k"), parent, col("short", 1), one))
	must(t, c.Insert(ctx, []byte("ttl-gone"), parent, col("short", 1), one))
	must(t, c.BatchMutate(ctx, map[string]map[string][]*cassandra19.Mutation{"ttl-k": {"Standard1": {
		{ColumnOrSupercolumn: &cassandra19.ColumnOrSuperColumn{Column: col("long", 3600)}},
		{ColumnOrSupercolumn: &cassandra19.ColumnOrSuperColumn{Column: col("plain", 0)}},
	}}}, one))
	got, err := c.GetSlice(ctx, []byte("ttl-k"), parent, &cassandra19.SlicePredicate{ColumnNames: [][]byte{[]byte("long"), []byte("plain")}}, one)
	must(t, err)
	if len(got) != 2 || got[0].Column.TTL == nil || *got[0].Column.TTL != 3600 || got[1].Column.TTL != nil {
		t.Fatalf("before expiry: %v", got)
	}

	// The expiry is waited for, as long as a busy machine needs.
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(100 * time.Millisecond) {
		got, err = c.GetSlice(ctx, []byte("ttl-k"), parent, all, one)
		must(t, err)
		if len(got) == 2 && string(got[0].Column.Name) == "long" && string(got[1].Column.Name) == "plain" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("get_slice 2 minutes after the 1 s ttl: %v", got)
		}
	}
	// ttl-gone's column was written before ttl-k's: it has expired too.
	count, err := c.GetCount(ctx, []byte("ttl-k"), parent, all, one)
	must(t, err)
	if count != 2 {
		t.Errorf("get_count after expiry = %d, want 2", count)
	}
	multi, err := c.MultigetSlice(ctx, [][]byte{[]byte("ttl-gone")}, parent, all, one)
	must(t, err)
	if len(multi["ttl-gone"]) != 0 {
		t.Errorf("multiget_slice of an expired row: %v", multi)
	}
	rows, err := c.GetRangeSlices(ctx, parent, all, &cassandra19.KeyRange{StartKey: []byte{}, EndKey: []byte{}, Count: 100}, one)
	must(t, err)
	ghost := false
	for _, r := range rows {
		if string(r.Key) == "ttl-gone" {
			ghost = len(r.Columns) == 0
		}
	}
	if !ghost {
		t.Errorf("the row whose only column expired is not a range ghost: %v", rows)
	}
}
