package main

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/thriftd/thriftd/engine/cqlstore"
	"github.com/thriftd/thriftd/gen-go/cassandra"
	"github.com/thriftd/thriftd/gen-go/cassandra19"
	"github.com/thriftd/thriftd/internal/testenv"
	"github.com/thriftd/thriftd/internal/transfertest"
)

// A Thrift super column family of the real Cassandra 3.11.19 node, after
// DROP COMPACT STORAGE: cql-tables reports it served, and thriftd in front
// of the node describes it as 3.11 did and answers its reads as 3.11's
// Thrift server did before the drop, but for the subcolumns' timestamps,
// which CQL cannot read (0), through the 19.x API and the 0.6 one; a
// subcolumn written through thriftd is the map entry CQL reads. A super family of counters, whose drop 3.11
// refuses, is reported with what to do instead.
func TestSuperFamilyOf311ServedInPlace(t *testing.T) {
	thrift := testenv.Reference(t, "3.11", "random")
	cql := testenv.ReferenceCQL(t, "3.11", "random")
	cl := cqlstore.Cluster{Hosts: []string{cql}, Timeout: 30 * time.Second}
	ks := fmt.Sprintf("super311_%d", time.Now().UnixNano()%1e12)
	prefix := testenv.CassandraPrefix(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	s, err := cl.Connect()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Query(`DROP KEYSPACE IF EXISTS ` + ks).Exec(); err != nil {
			t.Logf("drop %s: %v", ks, err)
		}
		s.Close()
		if _, err := cqlstore.DropPrefix(context.Background(), cl, prefix); err != nil {
			t.Errorf("drop prefix %s: %v", prefix, err)
		}
	})

	c, err := testenv.Dial19(thrift, true, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	str := func(s string) *string { return &s }
	family := func(name, validator string) *cassandra19.CfDef {
		d := cassandra19.NewCfDef()
		d.Keyspace, d.Name, d.ColumnType, d.ComparatorType = ks, name, "Super", "UTF8Type"
		d.SubcomparatorType, d.DefaultValidationClass, d.KeyValidationClass = str("LongType"), str(validator), str("UTF8Type")
		return d
	}
	kd := cassandra19.NewKsDef()
	kd.Name, kd.StrategyClass = ks, "org.apache.cassandra.locator.SimpleStrategy"
	kd.StrategyOptions = map[string]string{"replication_factor": "1"}
	kd.CfDefs = []*cassandra19.CfDef{family("Super1", "UTF8Type"), family("SuperCounts", "CounterColumnType")}
	if _, err := c.SystemAddKeyspace(ctx, kd); err != nil {
		t.Fatalf("system_add_keyspace on 3.11: %v", err)
	}
	if err := c.SetKeyspace(ctx, ks); err != nil {
		t.Fatal(err)
	}
	long := func(n int64) []byte { return binary.BigEndian.AppendUint64(nil, uint64(n)) }
	one := cassandra19.ConsistencyLevel_ONE
	var muts []*cassandra19.Mutation
	for i, sc := range []string{"a", "b", "c"} {
		var cols []*cassandra19.Column
		for j := int64(0); j < 3; j++ {
			ts := int64(1000 + 10*i + int(j))
			cols = append(cols, &cassandra19.Column{Name: long(j * 7), Value: []byte(fmt.Sprintf("%s%d", sc, j)), Timestamp: &ts})
		}
		muts = append(muts, &cassandra19.Mutation{ColumnOrSupercolumn: &cassandra19.ColumnOrSuperColumn{SuperColumn: &cassandra19.SuperColumn{Name: []byte(sc), Columns: cols}}})
	}
	if err := c.BatchMutate(ctx, map[string]map[string][]*cassandra19.Mutation{"k": {"Super1": muts}}, one); err != nil {
		t.Fatal(err)
	}
	if err := c.Add(ctx, []byte("k"), &cassandra19.ColumnParent{ColumnFamily: "SuperCounts", SuperColumn: []byte("a")},
		&cassandra19.CounterColumn{Name: long(1), Value: 5}, one); err != nil {
		t.Fatal(err)
	}
	// The reads compared, as 3.11 answers them before the drop, each with
	// its subcolumns' timestamps set to 0.
	all := &cassandra19.SlicePredicate{SliceRange: &cassandra19.SliceRange{Start: []byte{}, Finish: []byte{}, Count: 100}}
	reads := func(c *testenv.Client19) string {
		t.Helper()
		var out []string
		for _, r := range []struct {
			parent *cassandra19.ColumnParent
			p      *cassandra19.SlicePredicate
		}{
			{&cassandra19.ColumnParent{ColumnFamily: "Super1"}, all},
			{&cassandra19.ColumnParent{ColumnFamily: "Super1"}, &cassandra19.SlicePredicate{SliceRange: &cassandra19.SliceRange{Start: []byte{}, Finish: []byte{}, Reversed: true, Count: 2}}},
			{&cassandra19.ColumnParent{ColumnFamily: "Super1"}, &cassandra19.SlicePredicate{ColumnNames: [][]byte{[]byte("c"), []byte("a")}}},
			{&cassandra19.ColumnParent{ColumnFamily: "Super1", SuperColumn: []byte("b")}, &cassandra19.SlicePredicate{SliceRange: &cassandra19.SliceRange{Start: long(7), Finish: []byte{}, Count: 100}}},
			{&cassandra19.ColumnParent{ColumnFamily: "Super1", SuperColumn: []byte("b")}, &cassandra19.SlicePredicate{SliceRange: &cassandra19.SliceRange{Start: []byte{}, Finish: []byte{}, Reversed: true, Count: 1}}},
		} {
			got, err := c.GetSlice(ctx, []byte("k"), r.parent, r.p, one)
			if err != nil {
				t.Fatalf("get_slice %+v: %v", r.parent, err)
			}
			for _, cosc := range got {
				if sc := cosc.SuperColumn; sc != nil {
					for _, col := range sc.Columns {
						col.Timestamp = new(int64)
					}
				}
				if col := cosc.Column; col != nil {
					col.Timestamp = new(int64)
				}
			}
			b, _ := json.Marshal(got)
			out = append(out, string(b))
		}
		n, err := c.GetCount(ctx, []byte("k"), &cassandra19.ColumnParent{ColumnFamily: "Super1"}, all, one)
		if err != nil {
			t.Fatal(err)
		}
		return strings.Join(append(out, fmt.Sprint("count ", n)), "\n")
	}
	want := reads(c)
	// Super1's column_metadata, which 3.11 lists of its own accord.
	metadata := func(d *cassandra19.KsDef) string {
		for _, cf := range d.CfDefs {
			if cf.Name == "Super1" {
				b, _ := json.Marshal(cf.ColumnMetadata)
				return string(b)
			}
		}
		return "no Super1"
	}
	d311, err := c.DescribeKeyspace(ctx, ks)
	if err != nil {
		t.Fatal(err)
	}
	wantMetadata := metadata(d311)

	if err := s.Query(`ALTER TABLE ` + ks + `."Super1" DROP COMPACT STORAGE`).WithContext(ctx).Exec(); err != nil {
		t.Fatalf("DROP COMPACT STORAGE on 3.11: %v", err)
	}
	err = s.Query(`ALTER TABLE ` + ks + `."SuperCounts" DROP COMPACT STORAGE`).WithContext(ctx).Exec()
	if err == nil || !strings.Contains(err.Error(), "Cannot add a non counter column") {
		t.Fatalf("3.11 drops a super counter family's compact storage (%v); cql-tables says it refuses", err)
	}

	dir := t.TempDir()
	out, errOut, code := tool(t, dir, "cql-tables", "--cassandra", cql, ks)
	if code != 0 {
		t.Fatalf("cql-tables: exit %d: %s", code, errOut)
	}
	for _, w := range []string{
		"Super1       yes     super  UTF8Type / org.apache.cassandra.db.marshal.LongType",
		"SuperCounts  no      -      -",
		"it is a super column family of counters",
		"1 of 2 tables of " + ks + " served in place",
	} {
		if !strings.Contains(out, w) {
			t.Errorf("cql-tables output lacks %q:\n%s", w, out)
		}
	}

	conf := transfertest.Config(t, dir, "RandomPartitioner")
	n := testenv.NewNode(t, thriftdBin, conf, "-cassandra", cql, "-cassandra-prefix", prefix, "-api", "auto", "-cassandra-adopt", ks)
	n.Start()
	tc := n.Client19(true)
	d, err := tc.DescribeKeyspace(ctx, ks)
	if err != nil {
		t.Fatalf("describe_keyspace: %v\n%s", err, n.Tail(30))
	}
	const m = "org.apache.cassandra.db.marshal."
	if len(d.CfDefs) != 1 || d.CfDefs[0].Name != "Super1" || d.CfDefs[0].ColumnType != "Super" || d.CfDefs[0].ComparatorType != m+"UTF8Type" ||
		d.CfDefs[0].GetSubcomparatorType() != m+"LongType" || d.CfDefs[0].GetDefaultValidationClass() != m+"UTF8Type" {
		t.Fatalf("describe_keyspace: %+v", d.CfDefs)
	}
	if got := metadata(d); got != wantMetadata {
		t.Errorf("thriftd lists Super1's column_metadata as %s; 3.11 listed %s before the drop", got, wantMetadata)
	}
	if err := tc.SetKeyspace(ctx, ks); err != nil {
		t.Fatal(err)
	}
	if got := reads(tc); got != want {
		t.Errorf("thriftd answers\n%s\n3.11 answered before the drop\n%s", got, want)
	}
	// The 0.6 API serves the family too (-api auto), the same subcolumns.
	old, err := tc.V06.GetSlice(ctx, ks, "k", &cassandra.ColumnParent{ColumnFamily: "Super1"},
		&cassandra.SlicePredicate{SliceRange: &cassandra.SliceRange{Start: []byte{}, Finish: []byte{}, Count: 100}}, cassandra.ConsistencyLevel_ONE)
	if err != nil {
		t.Fatalf("0.6 get_slice: %v", err)
	}
	var view []string
	for _, cosc := range old {
		for _, col := range cosc.SuperColumn.Columns {
			view = append(view, fmt.Sprintf("%s/%d=%s@%d", cosc.SuperColumn.Name, binary.BigEndian.Uint64(col.Name), col.Value, col.Timestamp))
		}
	}
	if got := strings.Join(view, " "); got != "a/0=a0@0 a/7=a1@0 a/14=a2@0 b/0=b0@0 b/7=b1@0 b/14=b2@0 c/0=c0@0 c/7=c1@0 c/14=c2@0" {
		t.Errorf("0.6 get_slice: %s", got)
	}
	ts, ttl := int64(5000), int32(3600)
	if err := tc.Insert(ctx, []byte("k"), &cassandra19.ColumnParent{ColumnFamily: "Super1", SuperColumn: []byte("b")},
		&cassandra19.Column{Name: long(99), Value: []byte("new"), Timestamp: &ts, TTL: &ttl}, one); err != nil {
		t.Fatal(err)
	}
	row := map[string]any{}
	if err := s.Query(`SELECT * FROM ` + ks + `."Super1" WHERE key = 'k' AND column1 = 'b'`).WithContext(ctx).MapScan(row); err != nil {
		t.Fatal(err)
	}
	entries, _ := row[""].(map[int64]string)
	if fmt.Sprint(entries) != "map[0:b0 7:b1 14:b2 99:new]" {
		t.Errorf("CQL reads the super column written through thriftd as %v", row)
	}
}
