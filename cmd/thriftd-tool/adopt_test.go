package main

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/thriftd/thriftd/gen-go/cassandra19"
	"github.com/thriftd/thriftd/internal/testenv"
	"github.com/thriftd/thriftd/internal/transfertest"
)

// thriftd serves an adopted keyspace's counter tables: what CQL counts
// the 19.x client reads as CounterColumns, and what the client adds,
// removes or batches CQL reads, in one total; cql-tables reports them
// served.
func TestThriftdServesAdoptedCounters(t *testing.T) {
	points, s, ks := legacyKeyspace(t,
		`CREATE TABLE KS.hits (key blob, column1 text, value counter, PRIMARY KEY (key, column1))`,
		`CREATE TABLE KS.daily (key blob, column1 text, column2 int, value counter, PRIMARY KEY (key, column1, column2)) WITH CLUSTERING ORDER BY (column1 ASC, column2 DESC)`,
		`UPDATE KS.hits SET value = value + 5 WHERE key = 0x6b31 AND column1 = 'home'`,
		`UPDATE KS.hits SET value = value + 3 WHERE key = 0x6b31 AND column1 = 'about'`,
		`UPDATE KS.hits SET value = value + 1 WHERE key = 0x6b32 AND column1 = 'home'`,
		`UPDATE KS.daily SET value = value + 7 WHERE key = 0x64 AND column1 = 'mon' AND column2 = 1`,
		`UPDATE KS.daily SET value = value + 8 WHERE key = 0x64 AND column1 = 'mon' AND column2 = 2`,
	)
	dir := t.TempDir()
	out, errOut, code := tool(t, dir, "cql-tables", "--cassandra", points, ks)
	if code != 0 {
		t.Fatalf("cql-tables: exit %d: %s", code, errOut)
	}
	for _, re := range []string{`(?m)^hits +yes +counter +UTF8Type`, `(?m)^daily +yes +counter +CompositeType\(`, `2 of 2 tables`} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("cql-tables output does not match %s:\n%s", re, out)
		}
	}

	conf := transfertest.Config(t, dir, "RandomPartitioner")
	n := testenv.NewNode(t, thriftdBin, conf, append(testenv.CassandraStoreFlags(t, conf), "-api", "19.x", "-cassandra-adopt", ks)...)
	n.Start()
	c := n.Client19(true)
	ctx := context.Background()
	kd, err := c.DescribeKeyspace(ctx, ks)
	if err != nil {
		t.Fatalf("describe_keyspace: %v\n%s", err, n.Tail(30))
	}
	for _, cf := range kd.CfDefs {
		if cf.GetDefaultValidationClass() != "org.apache.cassandra.db.marshal.CounterColumnType" {
			t.Errorf("%s: default validator %s", cf.Name, cf.GetDefaultValidationClass())
		}
	}
	if err := c.SetKeyspace(ctx, ks); err != nil {
		t.Fatal(err)
	}
	one := cassandra19.ConsistencyLevel_ONE
	hits := &cassandra19.ColumnParent{ColumnFamily: "hits"}
	all := &cassandra19.SlicePredicate{SliceRange: &cassandra19.SliceRange{Start: []byte{}, Finish: []byte{}, Count: 100}}
	counters := func(cols []*cassandra19.ColumnOrSuperColumn) string {
		var out []string
		for _, c := range cols {
			if c.CounterColumn == nil {
				return fmt.Sprintf("not a counter: %v", c)
			}
			out = append(out, fmt.Sprintf("%q=%d", c.CounterColumn.Name, c.CounterColumn.Value))
		}
		return strings.Join(out, " ")
	}

	// CQL counted; the 19.x client reads.
	cols, err := c.GetSlice(ctx, []byte("k1"), hits, all, one)
	if err != nil {
		t.Fatal(err)
	}
	if got := counters(cols); got != `"about"=3 "home"=5` {
		t.Errorf("get_slice of CQL's counts: %s", got)
	}
	got, err := c.Get(ctx, []byte("k1"), &cassandra19.ColumnPath{ColumnFamily: "hits", Column: []byte("home")}, one)
	if err != nil || got.CounterColumn == nil || got.CounterColumn.Value != 5 {
		t.Errorf("get: %v, %v", got, err)
	}
	if n, err := c.GetCount(ctx, []byte("k1"), hits, all, one); err != nil || n != 2 {
		t.Errorf("get_count: %d, %v", n, err)
	}
	multi, err := c.MultigetSlice(ctx, [][]byte{[]byte("k1"), []byte("k2")}, hits, all, one)
	if err != nil || counters(multi["k2"]) != `"home"=1` || len(multi["k1"]) != 2 {
		t.Errorf("multiget_slice: %v, %v", multi, err)
	}
	slices, err := c.GetRangeSlices(ctx, hits, all, &cassandra19.KeyRange{StartKey: []byte{}, EndKey: []byte{}, Count: 10}, one)
	if err != nil || len(slices) != 2 {
		t.Errorf("get_range_slices: %v, %v", slices, err)
	}
	paged, err := c.GetPagedSlice(ctx, "hits", &cassandra19.KeyRange{StartKey: []byte{}, EndKey: []byte{}, Count: 10}, []byte{}, one)
	if err != nil || len(paged) != 2 {
		t.Errorf("get_paged_slice: %v, %v", paged, err)
	}
	cols, err = c.GetSlice(ctx, []byte("d"), &cassandra19.ColumnParent{ColumnFamily: "daily"}, all, one)
	if err != nil {
		t.Fatal(err)
	}
	if got := counters(cols); got != `"\x00\x03mon\x00\x00\x04\x00\x00\x00\x02\x00"=8 "\x00\x03mon\x00\x00\x04\x00\x00\x00\x01\x00"=7` {
		t.Errorf("get_slice of a composite counter table: %s", got)
	}

	// The 19.x client adds, removes and batches; CQL reads.
	if err := c.Add(ctx, []byte("k1"), hits, &cassandra19.CounterColumn{Name: []byte("home"), Value: 10}, one); err != nil {
		t.Fatal(err)
	}
	if err := c.RemoveCounter(ctx, []byte("k1"), &cassandra19.ColumnPath{ColumnFamily: "hits", Column: []byte("about")}, one); err != nil {
		t.Fatal(err)
	}
	err = c.BatchMutate(ctx, map[string]map[string][]*cassandra19.Mutation{
		"k3": {"hits": {{ColumnOrSupercolumn: &cassandra19.ColumnOrSuperColumn{CounterColumn: &cassandra19.CounterColumn{Name: []byte("home"), Value: -4}}}}},
		"d":  {"daily": {{ColumnOrSupercolumn: &cassandra19.ColumnOrSuperColumn{CounterColumn: &cassandra19.CounterColumn{Name: []byte("\x00\x03tue\x00\x00\x04\x00\x00\x00\x05\x00"), Value: 2}}}}},
	}, one)
	if err != nil {
		t.Fatal(err)
	}
	read := func(stmt string) string {
		t.Helper()
		iter := s.Query(strings.ReplaceAll(stmt, "KS.", ks+".")).Iter()
		var out []string
		for {
			row := map[string]any{}
			if !iter.MapScan(row) {
				break
			}
			l := fmt.Sprintf("%s/%v", row["key"], row["column1"])
			if c2, ok := row["column2"]; ok {
				l += fmt.Sprintf("/%v", c2)
			}
			out = append(out, fmt.Sprintf("%s=%v", l, row["value"]))
		}
		if err := iter.Close(); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
		return strings.Join(out, ", ")
	}
	if got := read(`SELECT key, column1, value FROM KS.hits WHERE key IN (0x6b31, 0x6b33)`); got != "k1/home=15, k3/home=-4" {
		t.Errorf("CQL reads hits as %q", got)
	}
	if got := read(`SELECT key, column1, column2, value FROM KS.daily WHERE key = 0x64`); got != "d/mon/2=8, d/mon/1=7, d/tue/5=2" {
		t.Errorf("CQL reads daily as %q", got)
	}
}

// thriftd follows an adopted keyspace's schema as CQL changes it while
// it runs: a table created with CQL is described and served, one altered
// is described as it now is, and one dropped is an unknown column family,
// as the real server answers one.
func TestThriftdFollowsCQLSchemaChanges(t *testing.T) {
	_, s, ks := legacyKeyspace(t,
		`CREATE TABLE KS.events (key blob, column1 text, value text, PRIMARY KEY (key, column1))`,
		`CREATE TABLE KS.old (key blob, column1 text, value blob, PRIMARY KEY (key, column1))`,
	)
	dir := t.TempDir()
	conf := transfertest.Config(t, dir, "RandomPartitioner")
	n := testenv.NewNode(t, thriftdBin, conf, append(testenv.CassandraStoreFlags(t, conf), "-api", "19.x", "-cassandra-adopt", ks)...)
	n.Start()
	c := n.Client19(true)
	ctx := context.Background()
	if err := c.SetKeyspace(ctx, ks); err != nil {
		t.Fatal(err)
	}
	one := cassandra19.ConsistencyLevel_ONE
	ts := int64(10)
	described := func() map[string]string {
		t.Helper()
		kd, err := c.DescribeKeyspace(ctx, ks)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, cf := range kd.CfDefs {
			d := strings.TrimPrefix(cf.ComparatorType, "org.apache.cassandra.db.marshal.")
			for _, c := range cf.ColumnMetadata {
				d += " " + string(c.Name)
			}
			out[cf.Name] = d
		}
		return out
	}
	if got := fmt.Sprint(described()); got != "map[events:UTF8Type old:UTF8Type]" {
		t.Fatalf("described at start: %s", got)
	}
	all := &cassandra19.SlicePredicate{SliceRange: &cassandra19.SliceRange{Start: []byte{}, Finish: []byte{}, Count: 100}}
	dropped := func() {
		t.Helper()
		_, err := c.GetSlice(ctx, []byte("k"), &cassandra19.ColumnParent{ColumnFamily: "old"}, all, one)
		var ire *cassandra19.InvalidRequestException
		if !errors.As(err, &ire) || ire.Why != "unconfigured columnfamily old" {
			t.Fatalf("get_slice of a table dropped with CQL: %v", err)
		}
	}
	if _, err := c.GetSlice(ctx, []byte("k"), &cassandra19.ColumnParent{ColumnFamily: "old"}, all, one); err != nil {
		t.Fatal(err)
	}
	for _, stmt := range []string{
		`CREATE TABLE KS.late (key blob, column1 int, value text, PRIMARY KEY (key, column1)) WITH CLUSTERING ORDER BY (column1 DESC)`,
		`ALTER TABLE KS.events ADD owner text static`,
		`DROP TABLE KS.old`,
	} {
		if err := s.Query(strings.ReplaceAll(stmt, "KS.", ks+".")).Exec(); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	// At once, before any describe call: the cluster's refusal, or the
	// schema already read again, answer alike.
	dropped()
	// describe_keyspace reads the changes before it answers.
	if got := fmt.Sprint(described()); got != "map[events:UTF8Type owner late:ReversedType(org.apache.cassandra.db.marshal.Int32Type)]" {
		t.Fatalf("described after the CQL changes: %s", got)
	}
	err := c.Insert(ctx, []byte("k"), &cassandra19.ColumnParent{ColumnFamily: "late"},
		&cassandra19.Column{Name: []byte{0, 0, 0, 7}, Value: []byte("seven"), Timestamp: &ts}, one)
	if err != nil {
		t.Fatal(err)
	}
	var value string
	if err := s.Query(`SELECT value FROM ` + ks + `.late WHERE key = 0x6b AND column1 = 7`).Scan(&value); err != nil || value != "seven" {
		t.Fatalf("CQL reads the new table's Thrift write as %q (%v)", value, err)
	}
	err = c.Insert(ctx, []byte("k"), &cassandra19.ColumnParent{ColumnFamily: "events"},
		&cassandra19.Column{Name: []byte("owner"), Value: []byte("ann"), Timestamp: &ts}, one)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Query(`SELECT owner FROM ` + ks + `.events WHERE key = 0x6b LIMIT 1`).Scan(&value); err != nil || value != "ann" {
		t.Fatalf("CQL reads the new static column as %q (%v)", value, err)
	}
	dropped()

	// Without a describe call, the periodic check serves a change within
	// seconds.
	if err := s.Query(`CREATE TABLE ` + ks + `.later (key blob, column1 text, value blob, PRIMARY KEY (key, column1))`).Exec(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(2 * time.Minute)
	for {
		err = c.Insert(ctx, []byte("k"), &cassandra19.ColumnParent{ColumnFamily: "later"},
			&cassandra19.Column{Name: []byte("a"), Value: []byte("b"), Timestamp: &ts}, one)
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a table created with CQL is not served after 2 minutes: %v\n%s", err, n.Tail(20))
		}
		time.Sleep(200 * time.Millisecond)
	}
}
