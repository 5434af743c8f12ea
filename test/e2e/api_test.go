package e2e

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/apache/thrift/lib/go/thrift"

	"github.com/thriftd/thriftd/gen-go/cassandra"
)

const ks1 = "Keyspace1"

var one = cassandra.ConsistencyLevel_ONE

func col(name, value string, ts int64) *cassandra.Column {
	return &cassandra.Column{Name: []byte(name), Value: []byte(value), Timestamp: ts}
}

func path(cf string, sc, c []byte) *cassandra.ColumnPath {
	return &cassandra.ColumnPath{ColumnFamily: cf, SuperColumn: sc, Column: c}
}

func long(v int64) []byte { return binary.BigEndian.AppendUint64(nil, uint64(v)) }

func all() *cassandra.SlicePredicate {
	return &cassandra.SlicePredicate{SliceRange: &cassandra.SliceRange{Start: []byte{}, Finish: []byte{}, Count: 1000}}
}

// names renders a get_slice result as "name=value" pairs (super columns as
// name{...}) so expectations read like the spec.
func names(cs []*cassandra.ColumnOrSuperColumn) string {
	var out []string
	render := func(c *cassandra.Column) string {
		n := string(c.Name)
		if len(c.Name) == 8 && (c.Name[0] == 0 || c.Name[0] == 0xff) {
			n = "#" + itoa(int64(binary.BigEndian.Uint64(c.Name)))
		}
		return n + "=" + string(c.Value)
	}
	for _, c := range cs {
		switch {
		case c.Column != nil:
			out = append(out, render(c.Column))
		case c.SuperColumn != nil:
			var subs []string
			for _, s := range c.SuperColumn.Columns {
				subs = append(subs, render(s))
			}
			out = append(out, string(c.SuperColumn.Name)+"{"+strings.Join(subs, " ")+"}")
		default:
			out = append(out, "<empty>")
		}
	}
	return strings.Join(out, " ")
}

func itoa(v int64) string {
	neg := v < 0
	u := uint64(v)
	if neg {
		u = uint64(-v)
	}
	var b []byte
	for {
		b = append([]byte{byte('0' + u%10)}, b...)
		u /= 10
		if u == 0 {
			break
		}
	}
	if neg {
		b = append([]byte{'-'}, b...)
	}
	return string(b)
}

// why returns the InvalidRequestException message of err, failing the test
// for any other outcome.
func why(t *testing.T, err error) string {
	t.Helper()
	var ire *cassandra.InvalidRequestException
	if !errors.As(err, &ire) {
		t.Fatalf("want InvalidRequestException, got %T %v", err, err)
	}
	return ire.Why
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// partitioners are those of spec 16.8; ordered ones keep keys in order.
var partitioners = []struct {
	class   string
	ordered bool
}{
	{"org.apache.cassandra.dht.CollatingOrderPreservingPartitioner", true},
	{"org.apache.cassandra.dht.OrderPreservingPartitioner", true},
	{"org.apache.cassandra.dht.ByteOrderedPartitioner", true},
	{"org.apache.cassandra.dht.RandomPartitioner", false},
	{"org.apache.cassandra.dht.Murmur3Partitioner", false},
}

// withPartitioner writes a copy of a fixture configuration with another
// partitioner; the fixture itself stays as it is.
func withPartitioner(t *testing.T, name, class string) string {
	t.Helper()
	text, err := os.ReadFile(fixture(name))
	must(t, err)
	start := bytes.Index(text, []byte("<Partitioner>"))
	end := bytes.Index(text, []byte("</Partitioner>"))
	if start < 0 || end < start {
		t.Fatalf("%s has no Partitioner element", name)
	}
	out := append(append(append([]byte(nil), text[:start]...), "<Partitioner>"+class...), text[end:]...)
	conf := filepath.Join(t.TempDir(), "storage-conf.xml")
	must(t, os.WriteFile(conf, out, 0o644))
	return conf
}

// TestAPI calls every method over both framings, under every partitioner.
func TestAPI(t *testing.T) {
	for _, p := range partitioners {
		short := p.class[strings.LastIndex(p.class, ".")+1:]
		t.Run(short, func(t *testing.T) {
			conf := fixture("storage-conf-0.6-test.xml")
			if !strings.Contains(p.class, "Collating") {
				conf = withPartitioner(t, "storage-conf-0.6-test.xml", p.class)
			}
			n := start(t, conf)
			for _, framed := range []bool{false, true} {
				name := "unframed"
				if framed {
					name = "framed"
				}
				t.Run(name, func(t *testing.T) {
					c := n.client(framed)
					key := "key-" + name
					testMeta(t, c, p.class, conf)
					testStandard(t, c, key)
					testSuper(t, c, key)
					testBatches(t, c, key)
					if p.ordered {
						testRanges(t, c, name)
					} else {
						testRingScan(t, c, name)
					}
				})
			}
		})
	}
}

func testMeta(t *testing.T, c *cassandra.CassandraClient, partitioner, conf string) {
	v, err := c.DescribeVersion(ctx)
	must(t, err)
	if v != "2.2.0" {
		t.Errorf("describe_version = %q", v)
	}
	cn, err := c.DescribeClusterName(ctx)
	must(t, err)
	if cn != "Test Cluster" {
		t.Errorf("describe_cluster_name = %q", cn)
	}
	p, err := c.DescribePartitioner(ctx)
	must(t, err)
	if p != partitioner {
		t.Errorf("describe_partitioner = %q", p)
	}
	kss, err := c.DescribeKeyspaces(ctx)
	must(t, err)
	sort.Strings(kss)
	if strings.Join(kss, ",") != "Keyspace1,Keyspace2,Keyspace3,Keyspace4,system" {
		t.Errorf("describe_keyspaces = %v", kss)
	}
	desc, err := c.DescribeKeyspace(ctx, ks1)
	must(t, err)
	if got := desc["Super1"]; got["Type"] != "Super" || got["CompareWith"] != "org.apache.cassandra.db.marshal.BytesType" ||
		got["CompareSubcolumnsWith"] != "org.apache.cassandra.db.marshal.LongType" ||
		got["Desc"] != "Keyspace1.Super1\nColumn Family Type: Super\nColumns Sorted By: org.apache.cassandra.db.marshal.BytesType\n" || len(got) != 4 {
		t.Errorf("describe_keyspace Super1 = %q", got)
	}
	if got := desc["StandardLong1"]; got["Type"] != "Standard" || got["CompareWith"] != "org.apache.cassandra.db.marshal.LongType" || len(got) != 3 {
		t.Errorf("describe_keyspace StandardLong1 = %q", got)
	}
	if len(desc) != 10 {
		t.Errorf("describe_keyspace has %d column families, want 10", len(desc))
	}
	sys, err := c.DescribeKeyspace(ctx, "system")
	must(t, err)
	if sys["LocationInfo"]["Desc"] != "persistent metadata for the local node" || sys["HintsColumnFamily"]["Type"] != "Super" {
		t.Errorf("describe_keyspace system = %q", sys)
	}
	_, err = c.DescribeKeyspace(ctx, "NoSuchKeyspace")
	var nfe *cassandra.NotFoundException
	if !errors.As(err, &nfe) {
		t.Errorf("describe_keyspace of an unknown keyspace: %v", err)
	}
	ring, err := c.DescribeRing(ctx, ks1)
	must(t, err)
	if len(ring) != 1 || ring[0].StartToken != ring[0].EndToken || len(ring[0].Endpoints) != 1 || ring[0].Endpoints[0] != "127.0.0.1" {
		t.Errorf("describe_ring = %v", ring)
	}
	_, err = c.DescribeRing(ctx, "system")
	if w := why(t, err); w != "There is no ring for the keyspace: system" {
		t.Errorf("describe_ring(system): %q", w)
	}
	if s, err := c.GetStringProperty(ctx, "version"); err != nil || s != "2.2.0" {
		t.Errorf("get_string_property(version) = %q, %v", s, err)
	}
	if s, err := c.GetStringProperty(ctx, "cluster name"); err != nil || s != "Test Cluster" {
		t.Errorf("get_string_property(cluster name) = %q, %v", s, err)
	}
	text, _ := os.ReadFile(conf)
	if s, err := c.GetStringProperty(ctx, "config file"); err != nil || s != string(text) {
		t.Errorf("get_string_property(config file) differs from the file: %v", err)
	}
	if s, err := c.GetStringProperty(ctx, "token map"); err != nil || !strings.HasPrefix(s, `{"`) || !strings.HasSuffix(s, `": "127.0.0.1"}`) && !strings.HasSuffix(s, `":"127.0.0.1"}`) {
		t.Errorf("get_string_property(token map) = %q, %v", s, err)
	}
	if s, err := c.GetStringProperty(ctx, "nonsense"); err != nil || s != "?" {
		t.Errorf("get_string_property(nonsense) = %q, %v", s, err)
	}
	l, err := c.GetStringListProperty(ctx, "keyspaces")
	must(t, err)
	if len(l) != 5 {
		t.Errorf("get_string_list_property(keyspaces) = %v", l)
	}
	if l, err := c.GetStringListProperty(ctx, "nonsense"); err != nil || len(l) != 0 {
		t.Errorf("get_string_list_property(nonsense) = %v, %v", l, err)
	}
	// AllowAllAuthenticator: login succeeds and is not needed.
	must(t, c.Login(ctx, ks1, &cassandra.AuthenticationRequest{Credentials: map[string]string{}}))
}

func testStandard(t *testing.T, c *cassandra.CassandraClient, key string) {
	must(t, c.Insert(ctx, ks1, key, path("Standard1", nil, []byte("c1")), []byte("value1"), 0, one))
	must(t, c.Insert(ctx, ks1, key, path("Standard1", nil, []byte("c2")), []byte("value2"), 0, one))
	got, err := c.Get(ctx, ks1, key, path("Standard1", nil, []byte("c1")), one)
	must(t, err)
	if string(got.Column.Value) != "value1" || got.Column.Timestamp != 0 || got.SuperColumn != nil {
		t.Errorf("get = %v", got)
	}
	_, err = c.Get(ctx, ks1, key, path("Standard1", nil, []byte("c3")), one)
	var nfe *cassandra.NotFoundException
	if !errors.As(err, &nfe) {
		t.Errorf("get of a missing column: %v", err)
	}
	s, err := c.GetSlice(ctx, ks1, key, &cassandra.ColumnParent{ColumnFamily: "Standard1"}, all(), one)
	must(t, err)
	if names(s) != "c1=value1 c2=value2" {
		t.Errorf("get_slice = %s", names(s))
	}
	s, err = c.GetSlice(ctx, ks1, key, &cassandra.ColumnParent{ColumnFamily: "Standard1"},
		&cassandra.SlicePredicate{SliceRange: &cassandra.SliceRange{Start: []byte{}, Finish: []byte{}, Reversed: true, Count: 1}}, one)
	must(t, err)
	if names(s) != "c2=value2" {
		t.Errorf("reversed get_slice = %s", names(s))
	}
	s, err = c.GetSlice(ctx, ks1, key, &cassandra.ColumnParent{ColumnFamily: "Standard1"},
		&cassandra.SlicePredicate{ColumnNames: [][]byte{[]byte("c2"), []byte("c0"), []byte("c1")}}, one)
	must(t, err)
	if names(s) != "c1=value1 c2=value2" {
		t.Errorf("get_slice by names = %s", names(s))
	}
	cnt, err := c.GetCount(ctx, ks1, key, &cassandra.ColumnParent{ColumnFamily: "Standard1"}, one)
	must(t, err)
	if cnt != 2 {
		t.Errorf("get_count = %d", cnt)
	}
	mg, err := c.Multiget(ctx, ks1, []string{key, "nobody"}, path("Standard1", nil, []byte("c1")), one)
	must(t, err)
	if len(mg) != 2 || string(mg[key].Column.Value) != "value1" || mg["nobody"].Column != nil || mg["nobody"].SuperColumn != nil {
		t.Errorf("multiget = %v", mg)
	}
	ms, err := c.MultigetSlice(ctx, ks1, []string{key, "nobody"}, &cassandra.ColumnParent{ColumnFamily: "Standard1"}, all(), one)
	must(t, err)
	if len(ms) != 2 || names(ms[key]) != "c1=value1 c2=value2" || len(ms["nobody"]) != 0 {
		t.Errorf("multiget_slice = %v", ms)
	}
	// remove: a column, then the row; an older insert stays deleted.
	must(t, c.Remove(ctx, ks1, key, path("Standard1", nil, []byte("c1")), 1, one))
	s, _ = c.GetSlice(ctx, ks1, key, &cassandra.ColumnParent{ColumnFamily: "Standard1"}, all(), one)
	if names(s) != "c2=value2" {
		t.Errorf("after removing c1: %s", names(s))
	}
	must(t, c.Remove(ctx, ks1, key, path("Standard1", nil, nil), 5, one))
	must(t, c.Insert(ctx, ks1, key, path("Standard1", nil, []byte("c3")), []byte("old"), 5, one))
	s, _ = c.GetSlice(ctx, ks1, key, &cassandra.ColumnParent{ColumnFamily: "Standard1"}, all(), one)
	if names(s) != "" {
		t.Errorf("after removing the row: %s", names(s))
	}
	must(t, c.Insert(ctx, ks1, key, path("Standard1", nil, []byte("c3")), []byte("new"), 6, one))
	s, _ = c.GetSlice(ctx, ks1, key, &cassandra.ColumnParent{ColumnFamily: "Standard1"}, all(), one)
	if names(s) != "c3=new" {
		t.Errorf("after resurrecting: %s", names(s))
	}
	// LongType orders negative names before positive ones.
	for _, v := range []int64{3, -3, 0} {
		must(t, c.Insert(ctx, ks1, key, path("StandardLong1", nil, long(v)), []byte(itoa(v)), 1, one))
	}
	s, _ = c.GetSlice(ctx, ks1, key, &cassandra.ColumnParent{ColumnFamily: "StandardLong1"}, all(), one)
	if names(s) != "#-3=-3 #0=0 #3=3" {
		t.Errorf("LongType order: %s", names(s))
	}
}

func testSuper(t *testing.T, c *cassandra.CassandraClient, key string) {
	for _, sc := range []struct {
		name string
		subs []int64
	}{{"sc1", []int64{4}}, {"sc2", []int64{5, 6}}} {
		for _, s := range sc.subs {
			must(t, c.Insert(ctx, ks1, key, path("Super1", []byte(sc.name), long(s)), []byte("value"+itoa(s)), 0, one))
		}
	}
	got, err := c.Get(ctx, ks1, key, path("Super1", []byte("sc2"), nil), one)
	must(t, err)
	if names([]*cassandra.ColumnOrSuperColumn{got}) != "sc2{#5=value5 #6=value6}" {
		t.Errorf("get super column = %s", names([]*cassandra.ColumnOrSuperColumn{got}))
	}
	got, err = c.Get(ctx, ks1, key, path("Super1", []byte("sc2"), long(6)), one)
	must(t, err)
	if got.Column == nil || string(got.Column.Value) != "value6" {
		t.Errorf("get subcolumn = %v", got)
	}
	s, err := c.GetSlice(ctx, ks1, key, &cassandra.ColumnParent{ColumnFamily: "Super1"},
		&cassandra.SlicePredicate{SliceRange: &cassandra.SliceRange{Start: []byte{}, Finish: []byte{}, Reversed: true, Count: 10}}, one)
	must(t, err)
	if names(s) != "sc2{#5=value5 #6=value6} sc1{#4=value4}" {
		t.Errorf("reversed super slice = %s", names(s))
	}
	for _, tc := range []struct {
		parent *cassandra.ColumnParent
		want   int32
	}{{&cassandra.ColumnParent{ColumnFamily: "Super1"}, 2}, {&cassandra.ColumnParent{ColumnFamily: "Super1", SuperColumn: []byte("sc2")}, 2}, {&cassandra.ColumnParent{ColumnFamily: "Standard2"}, 0}} {
		n, err := c.GetCount(ctx, ks1, key, tc.parent, one)
		must(t, err)
		if n != tc.want {
			t.Errorf("get_count(%v) = %d, want %d", tc.parent, n, tc.want)
		}
	}
	must(t, c.Remove(ctx, ks1, key, path("Super1", []byte("sc2"), long(5)), 1, one))
	must(t, c.Remove(ctx, ks1, key, path("Super1", []byte("sc1"), nil), 1, one))
	s, _ = c.GetSlice(ctx, ks1, key, &cassandra.ColumnParent{ColumnFamily: "Super1"}, all(), one)
	if names(s) != "sc2{#6=value6}" {
		t.Errorf("after removes: %s", names(s))
	}
}

func testBatches(t *testing.T, c *cassandra.CassandraClient, key string) {
	must(t, c.BatchInsert(ctx, ks1, key+"-b", map[string][]*cassandra.ColumnOrSuperColumn{
		"Standard1": {{Column: col("a", "1", 1)}, {Column: col("b", "2", 1)}},
		"Super1":    {{SuperColumn: &cassandra.SuperColumn{Name: []byte("sc"), Columns: []*cassandra.Column{{Name: long(1), Value: []byte("x"), Timestamp: 1}}}}},
	}, one))
	must(t, c.BatchMutate(ctx, ks1, map[string]map[string][]*cassandra.Mutation{
		key + "-b": {
			"Standard1": {
				{Deletion: &cassandra.Deletion{Timestamp: 2, Predicate: &cassandra.SlicePredicate{ColumnNames: [][]byte{[]byte("a")}}}},
				{ColumnOrSupercolumn: &cassandra.ColumnOrSuperColumn{Column: col("c", "3", 2)}},
			},
			"Super1": {{Deletion: &cassandra.Deletion{Timestamp: 2}}},
		},
		key + "-c": {"Standard1": {{ColumnOrSupercolumn: &cassandra.ColumnOrSuperColumn{Column: col("z", "26", 2)}}}},
	}, one))
	ms, err := c.MultigetSlice(ctx, ks1, []string{key + "-b", key + "-c"}, &cassandra.ColumnParent{ColumnFamily: "Standard1"}, all(), one)
	must(t, err)
	if names(ms[key+"-b"]) != "b=2 c=3" || names(ms[key+"-c"]) != "z=26" {
		t.Errorf("after batch_mutate: %v / %v", names(ms[key+"-b"]), names(ms[key+"-c"]))
	}
	s, _ := c.GetSlice(ctx, ks1, key+"-b", &cassandra.ColumnParent{ColumnFamily: "Super1"}, all(), one)
	if len(s) != 0 {
		t.Errorf("Super1 row after its deletion: %s", names(s))
	}
	// One invalid mutation among many: nothing is applied.
	err = c.BatchMutate(ctx, ks1, map[string]map[string][]*cassandra.Mutation{
		key + "-d": {"Standard1": {
			{ColumnOrSupercolumn: &cassandra.ColumnOrSuperColumn{Column: col("ok", "1", 1)}},
			{ColumnOrSupercolumn: &cassandra.ColumnOrSuperColumn{Column: col("", "1", 1)}},
		}},
	}, one)
	if w := why(t, err); w != "column name must not be empty" {
		t.Errorf("batch_mutate with an empty name: %q", w)
	}
	s, _ = c.GetSlice(ctx, ks1, key+"-d", &cassandra.ColumnParent{ColumnFamily: "Standard1"}, all(), one)
	if len(s) != 0 {
		t.Errorf("a rejected batch_mutate wrote %s", names(s))
	}
}

func testRanges(t *testing.T, c *cassandra.CassandraClient, prefix string) {
	for _, k := range []string{"a", "b", "c", "d", "e"} {
		must(t, c.Insert(ctx, "Keyspace2", prefix+k, path("Standard1", nil, []byte("c")), []byte(k), 1, one))
	}
	must(t, c.Remove(ctx, "Keyspace2", prefix+"b", path("Standard1", nil, nil), 2, one))
	keys := func(ks []*cassandra.KeySlice) string {
		var out []string
		for _, k := range ks {
			out = append(out, strings.TrimPrefix(k.Key, prefix)+":"+names(k.Columns))
		}
		return strings.Join(out, " ")
	}
	rs, err := c.GetRangeSlices(ctx, "Keyspace2", &cassandra.ColumnParent{ColumnFamily: "Standard1"}, all(),
		&cassandra.KeyRange{StartKey: thrift.StringPtr(prefix + "a"), EndKey: thrift.StringPtr(prefix + "d"), Count: 100}, one)
	must(t, err)
	if keys(rs) != "a:c=a b: c:c=c d:c=d" {
		t.Errorf("get_range_slices by keys = %s", keys(rs))
	}
	rs, err = c.GetRangeSlice(ctx, "Keyspace2", &cassandra.ColumnParent{ColumnFamily: "Standard1"}, all(), prefix+"c", prefix+"e", 2, one)
	must(t, err)
	if keys(rs) != "c:c=c d:c=d" {
		t.Errorf("get_range_slice = %s", keys(rs))
	}
	_, err = c.GetRangeSlices(ctx, "Keyspace2", &cassandra.ColumnParent{ColumnFamily: "Standard1"}, all(),
		&cassandra.KeyRange{StartKey: thrift.StringPtr(prefix + "d"), EndKey: thrift.StringPtr(prefix + "a"), Count: 100}, one)
	if w := why(t, err); w != "start key must sort before (or equal to) finish key in your partitioner!" {
		t.Errorf("reversed key range: %q", w)
	}
	// Five rows and more were written above: two rows a split cuts the
	// ring between its ends at least twice.
	splits, err := c.DescribeSplits(ctx, "", "", 2)
	must(t, err)
	if len(splits) < 4 || splits[0] != "" || splits[len(splits)-1] != "" {
		t.Errorf("describe_splits = %v", splits)
	}
	for i := 2; i < len(splits)-1; i++ {
		if splits[i-1] >= splits[i] {
			t.Errorf("describe_splits out of ring order: %v", splits)
		}
	}
}

// testRingScan reads the whole ring under a hashing partitioner, as 0.6
// clients paged: by key ranges from "" to "", each page starting at the
// last key of the one before (returned again, since keys are inclusive).
// Every row comes back once, ghosts included. A token range from the
// node's token to itself is the whole ring too.
func testRingScan(t *testing.T, c *cassandra.CassandraClient, prefix string) {
	want := map[string]bool{}
	for i := 0; i < 20; i++ {
		k := prefix + "-ring-" + itoa(int64(i))
		want[k] = true
		must(t, c.Insert(ctx, "Keyspace4", k, path("Standard1", nil, []byte("c")), []byte("v"), 1, one))
	}
	must(t, c.Remove(ctx, "Keyspace4", prefix+"-ring-3", path("Standard1", nil, nil), 2, one))
	parent := &cassandra.ColumnParent{ColumnFamily: "Standard1"}
	seen := map[string]bool{}
	ghosts := 0
	from := ""
	for page := 0; page < 100; page++ {
		rs, err := c.GetRangeSlices(ctx, "Keyspace4", parent, all(),
			&cassandra.KeyRange{StartKey: thrift.StringPtr(from), EndKey: thrift.StringPtr(""), Count: 7}, one)
		must(t, err)
		for i, r := range rs {
			if page > 0 && i == 0 {
				if r.Key != from {
					t.Fatalf("page %d starts at %q, want the last key %q", page, r.Key, from)
				}
				continue
			}
			if !strings.HasPrefix(r.Key, prefix+"-ring-") {
				continue
			}
			if seen[r.Key] {
				t.Fatalf("row %s returned twice", r.Key)
			}
			seen[r.Key] = true
			if len(r.Columns) == 0 {
				ghosts++
			}
		}
		if len(rs) < 7 {
			break
		}
		from = rs[len(rs)-1].Key
	}
	if len(seen) != len(want) || ghosts != 1 {
		t.Errorf("paging saw %d of %d rows, %d ghosts (want 1)", len(seen), len(want), ghosts)
	}
	ring, err := c.DescribeRing(ctx, "Keyspace4")
	must(t, err)
	rs, err := c.GetRangeSlices(ctx, "Keyspace4", parent, all(),
		&cassandra.KeyRange{StartToken: thrift.StringPtr(ring[0].StartToken), EndToken: thrift.StringPtr(ring[0].StartToken), Count: 1000}, one)
	must(t, err)
	n := 0
	for _, r := range rs {
		if want[r.Key] {
			n++
		}
	}
	if n != len(want) {
		t.Errorf("the whole-ring token range returned %d of %d rows", n, len(want))
	}
}
