package e2e19

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/thriftd/thriftd/gen-go/cassandra"
	"github.com/thriftd/thriftd/gen-go/cassandra19"
	"github.com/thriftd/thriftd/internal/testenv"
)

// The run-time schema: keyspaces and column families created, changed
// and dropped through the system_* calls are served again after a restart
// and after a crash, with their data, and to 0.6 clients too.

func strp(s string) *string { return &s }
func i32(n int32) *int32    { return &n }

func withComment(d *cassandra19.CfDef, comment string) *cassandra19.CfDef {
	d.Comment = &comment
	return d
}

func insert(t *testing.T, c *testenv.Client19, cf, key, name, value string) {
	t.Helper()
	must(t, c.Insert(ctx, []byte(key), &cassandra19.ColumnParent{ColumnFamily: cf},
		&cassandra19.Column{Name: []byte(name), Value: []byte(value), Timestamp: ts()}, cassandra19.ConsistencyLevel_ONE))
}

// row renders a row's columns as "name=value ...".
func row(t *testing.T, c *testenv.Client19, cf, key string) string {
	t.Helper()
	cols, err := c.GetSlice(ctx, []byte(key), &cassandra19.ColumnParent{ColumnFamily: cf},
		&cassandra19.SlicePredicate{SliceRange: &cassandra19.SliceRange{Count: 100}}, cassandra19.ConsistencyLevel_ONE)
	must(t, err)
	var out []string
	for _, c := range cols {
		out = append(out, string(c.Column.Name)+"="+string(c.Column.Value))
	}
	return strings.Join(out, " ")
}

func expectRow(t *testing.T, c *testenv.Client19, cf, key, want string) {
	t.Helper()
	if got := row(t, c, cf, key); got != want {
		t.Errorf("%s[%s] = %q, want %q", cf, key, got, want)
	}
}

func invalidWhy(err error) string {
	var ire *cassandra19.InvalidRequestException
	if errors.As(err, &ire) {
		return ire.Why
	}
	if err == nil {
		return "<no error>"
	}
	return err.Error()
}

// connect opens a 19.x connection in keyspace ks.
func connect(t *testing.T, n *testenv.Node, ks string) *testenv.Client19 {
	t.Helper()
	c := n.Client19(true)
	if ks != "" {
		must(t, c.SetKeyspace(ctx, ks))
	}
	return c
}

// cfDef is a CfDef as the generated client builds it, with the IDL's
// defaults (column_type Standard, comparator_type BytesType, ...).
func cfDef(ks, name, comparator string) *cassandra19.CfDef {
	d := cassandra19.NewCfDef()
	d.Keyspace, d.Name, d.ComparatorType = ks, name, comparator
	return d
}

// blogKeyspace is the keyspace of the restart and crash tests, with
// durable writes set explicitly (Go's zero value is false): what it holds
// must outlive them.
func blogKeyspace() *cassandra19.KsDef {
	return &cassandra19.KsDef{
		Name: "Blog", StrategyClass: "SimpleStrategy", DurableWrites: true, StrategyOptions: map[string]string{"replication_factor": "1"},
		CfDefs: []*cassandra19.CfDef{withComment(cfDef("Blog", "Posts", "UTF8Type"), "posts")},
	}
}

func TestSchemaChangesSurviveRestartAndCrash(t *testing.T) {
	n := start(t)
	c := connect(t, n, "")
	v1, err := c.SystemAddKeyspace(ctx, blogKeyspace())
	must(t, err)
	must(t, c.SetKeyspace(ctx, "Blog"))
	comments := cfDef("Blog", "Comments", "UTF8Type")
	comments.ColumnType, comments.SubcomparatorType = "Super", strp("LongType")
	_, err = c.SystemAddColumnFamily(ctx, comments)
	must(t, err)
	_, err = c.SystemAddColumnFamily(ctx, cfDef("Blog", "Posts", "UTF8Type"))
	if why := invalidWhy(err); why != `Cannot add already existing column family "Posts" to keyspace "Blog"` {
		t.Errorf("adding an existing family: %s", why)
	}
	_, err = c.SystemAddKeyspace(ctx, &cassandra19.KsDef{Name: "blog", StrategyClass: "SimpleStrategy", CfDefs: []*cassandra19.CfDef{}})
	if why := invalidWhy(err); why != `Keyspace names must be case-insensitively unique ("blog" conflicts with "Blog")` {
		t.Errorf("a keyspace differing in case: %s", why)
	}
	insert(t, c, "Posts", "p1", "title", "hello")
	versions, err := c.DescribeSchemaVersions(ctx)
	must(t, err)
	if len(versions) != 1 {
		t.Fatalf("describe_schema_versions = %v", versions)
	}
	for v := range versions {
		if v == v1 {
			t.Errorf("the schema version did not change after add_column_family: %s", v)
		}
	}

	// The 0.6 API serves the new keyspace too.
	got, err := c.V06.Get(ctx, "Blog", "p1", &cassandra.ColumnPath{ColumnFamily: "Posts", Column: []byte("title")}, cassandra.ConsistencyLevel_ONE)
	must(t, err)
	if string(got.Column.Value) != "hello" {
		t.Fatalf("0.6 get of a family created at run time: %q", got.Column.Value)
	}

	n.Stop()
	n.Start()
	c = connect(t, n, "Blog")
	expectRow(t, c, "Posts", "p1", "title=hello")
	ks, err := c.DescribeKeyspace(ctx, "Blog")
	must(t, err)
	if len(ks.CfDefs) != 2 || ks.CfDefs[0].Name != "Comments" || ks.CfDefs[0].GetSubcomparatorType() != "org.apache.cassandra.db.marshal.LongType" ||
		ks.CfDefs[1].GetComment() != "posts" {
		t.Fatalf("Blog after a restart: %+v", ks)
	}
	versionsAfter, err := c.DescribeSchemaVersions(ctx)
	must(t, err)
	if !reflect.DeepEqual(versionsAfter, versions) {
		t.Errorf("schema versions before the restart %v, after %v", versions, versionsAfter)
	}

	// A change just before a crash is there after it.
	_, err = c.SystemUpdateColumnFamily(ctx, withComment(cfDef("Blog", "Posts", "UTF8Type"), "changed"))
	must(t, err)
	_, err = c.SystemAddColumnFamily(ctx, cfDef("Blog", "Tags", "BytesType"))
	must(t, err)
	insert(t, c, "Tags", "t", "go", "1")
	n.Kill()
	n.Start()
	c = connect(t, n, "Blog")
	expectRow(t, c, "Posts", "p1", "title=hello")
	expectRow(t, c, "Tags", "t", "go=1")
	ks, err = c.DescribeKeyspace(ctx, "Blog")
	must(t, err)
	if len(ks.CfDefs) != 3 || ks.CfDefs[1].GetComment() != "changed" {
		t.Fatalf("Blog after a crash: %d families, Posts %+v", len(ks.CfDefs), ks.CfDefs[1])
	}

	// A dropped family comes back empty, across a restart too.
	_, err = c.SystemDropColumnFamily(ctx, "Posts")
	must(t, err)
	_, err = c.GetSlice(ctx, []byte("p1"), &cassandra19.ColumnParent{ColumnFamily: "Posts"},
		&cassandra19.SlicePredicate{SliceRange: &cassandra19.SliceRange{Count: 1}}, cassandra19.ConsistencyLevel_ONE)
	if why := invalidWhy(err); why != "unconfigured columnfamily Posts" {
		t.Errorf("a read of a dropped family: %s", why)
	}
	_, err = c.SystemDropColumnFamily(ctx, "Posts")
	if why := invalidWhy(err); why != "unconfigured columnfamily Posts" {
		t.Errorf("dropping it again: %s", why)
	}
	n.Stop()
	n.Start()
	c = connect(t, n, "Blog")
	_, err = c.SystemAddColumnFamily(ctx, cfDef("Blog", "Posts", "UTF8Type"))
	must(t, err)
	expectRow(t, c, "Posts", "p1", "")

	// Truncate: earlier writes gone, later ones kept.
	insert(t, c, "Tags", "t", "rust", "2")
	must(t, c.Truncate(ctx, "Tags"))
	expectRow(t, c, "Tags", "t", "")
	insert(t, c, "Tags", "t", "zig", "3")
	n.Kill()
	n.Start()
	c = connect(t, n, "Blog")
	expectRow(t, c, "Tags", "t", "zig=3")

	// A dropped keyspace is gone, and comes back empty.
	_, err = c.SystemDropKeyspace(ctx, "Blog")
	must(t, err)
	n.Stop()
	n.Start()
	c = connect(t, n, "")
	if _, err := c.DescribeKeyspace(ctx, "Blog"); err == nil {
		t.Fatal("a dropped keyspace is described after a restart")
	}
	_, err = c.SystemAddKeyspace(ctx, &cassandra19.KsDef{Name: "Blog", StrategyClass: "SimpleStrategy",
		StrategyOptions: map[string]string{"replication_factor": "1"},
		CfDefs:          []*cassandra19.CfDef{cfDef("Blog", "Tags", "BytesType")}})
	must(t, err)
	must(t, c.SetKeyspace(ctx, "Blog"))
	expectRow(t, c, "Tags", "t", "")
}

// emptyConf writes the 0.6 test configuration with no keyspace.
func emptyConf(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(testenv.Fixture("storage-conf-0.6-test.xml"))
	must(t, err)
	s := string(data)
	s = s[:strings.Index(s, "<Keyspaces>")] + "<Keyspaces/>" + s[strings.Index(s, "</Keyspaces>")+len("</Keyspaces>"):]
	path := filepath.Join(t.TempDir(), "storage-conf.xml")
	must(t, os.WriteFile(path, []byte(s), 0o644))
	return path
}

func TestStartWithNoKeyspaces(t *testing.T) {
	yaml := filepath.Join(t.TempDir(), "thriftd.yaml")
	must(t, os.WriteFile(yaml, []byte("storage_conf: \"\"\n"), 0o644))
	for name, conf := range map[string]string{"empty Keyspaces": emptyConf(t), "thriftd.yaml naming no storage-conf.xml": yaml} {
		t.Run(name, func(t *testing.T) { testStartWithNoKeyspaces(t, conf) })
	}
}

func testStartWithNoKeyspaces(t *testing.T, conf string) {
	n := testenv.NewNode(t, thriftdBin, conf, "-api", "auto")
	n.Start()
	c := connect(t, n, "")
	kss, err := c.DescribeKeyspaces(ctx)
	must(t, err)
	if len(kss) != 1 || kss[0].Name != "system" {
		t.Fatalf("describe_keyspaces with no keyspace configured: %d keyspaces", len(kss))
	}
	_, err = c.SystemAddKeyspace(ctx, blogKeyspace())
	must(t, err)
	must(t, c.SetKeyspace(ctx, "Blog"))
	insert(t, c, "Posts", "p", "a", "b")
	n.Stop()
	n.Start()
	c = connect(t, n, "Blog")
	expectRow(t, c, "Posts", "p", "a=b")
}

// The keyspaces of storage-conf.xml are changed and dropped through the
// API like any other, and a restart keeps the API's version over the
// file's.
func TestStorageConfKeyspacesChangeThroughTheAPI(t *testing.T) {
	n := start(t)
	c := connect(t, n, "Keyspace1")
	ks, err := c.DescribeKeyspace(ctx, "Keyspace1")
	must(t, err)
	var std *cassandra19.CfDef
	for _, d := range ks.CfDefs {
		if d.Name == "Standard1" {
			std = d
		}
	}
	if std == nil {
		t.Fatal("no Standard1 in Keyspace1")
	}
	// As pycassa does: the described definition, one field changed.
	std.Comment = strp("changed through the API")
	_, err = c.SystemUpdateColumnFamily(ctx, std)
	must(t, err)
	insert(t, c, "Standard1", "k", "c", "v")
	_, err = c.SystemDropKeyspace(ctx, "Keyspace2")
	must(t, err)
	_, err = c.SystemUpdateKeyspace(ctx, &cassandra19.KsDef{Name: "Keyspace3", StrategyClass: "org.apache.cassandra.locator.SimpleStrategy",
		StrategyOptions: map[string]string{"replication_factor": "3"}, CfDefs: []*cassandra19.CfDef{}})
	must(t, err)
	n.Stop()
	n.Start()
	c = connect(t, n, "Keyspace1")
	expectRow(t, c, "Standard1", "k", "c=v")
	kss, err := c.DescribeKeyspaces(ctx)
	must(t, err)
	var names []string
	for _, k := range kss {
		names = append(names, k.Name)
		switch k.Name {
		case "Keyspace1":
			for _, d := range k.CfDefs {
				if d.Name == "Standard1" && d.GetComment() != "changed through the API" {
					t.Errorf("Standard1's comment after a restart: %q", d.GetComment())
				}
			}
		case "Keyspace3":
			if k.StrategyOptions["replication_factor"] != "3" {
				t.Errorf("Keyspace3's options after a restart: %v", k.StrategyOptions)
			}
		}
	}
	if strings.Join(names, ",") != "Keyspace1,Keyspace3,Keyspace4,system" {
		t.Errorf("keyspaces after a restart: %v (Keyspace2 was dropped and must stay dropped)", names)
	}
	// 0.6's describe_keyspaces agrees (an unframed connection speaks 0.6).
	names06, err := n.Client(false).DescribeKeyspaces(ctx)
	must(t, err)
	if strings.Join(names06, ",") != "Keyspace1,Keyspace3,Keyspace4,system" {
		t.Errorf("0.6 describe_keyspaces after a restart: %v", names06)
	}
}

// A file that changes the comparator of a family the store holds is
// refused at start, naming the change.
func TestFileComparatorChangeIsRefused(t *testing.T) {
	n := start(t)
	n.Stop()
	data, err := os.ReadFile(testenv.Fixture("storage-conf-0.6-test.xml"))
	must(t, err)
	changed := strings.Replace(string(data), `<ColumnFamily Name="Standard2"/>`, `<ColumnFamily Name="Standard2" CompareWith="LongType"/>`, 1)
	if changed == string(data) {
		t.Fatal("the fixture has no Standard2 to change")
	}
	path := filepath.Join(t.TempDir(), "storage-conf.xml")
	must(t, os.WriteFile(path, []byte(changed), 0o644))
	m := testenv.NewNode(t, thriftdBin, path, "-api", "auto")
	m.ServeStoreOf(n)
	err = m.TryStart()
	if err == nil {
		t.Fatal("thriftd started with a changed comparator")
	}
	if logs := m.Logs(); !strings.Contains(logs, "Keyspace1.Standard2") || !strings.Contains(logs, "LongType") {
		t.Errorf("the refusal does not name the change:\n%s", logs)
	}
}

// describe_keyspace gives back every field a client sent, and 1.2.19's
// defaults for those it left out; the description sent back unchanged to
// system_update_column_family changes nothing.
func TestDescribeKeyspaceRoundTrip(t *testing.T) {
	n := start(t)
	c := connect(t, n, "")
	full := cfDef("Shop", "Items", "UTF8Type")
	full.Comment = strp("every field")
	rrc, fp := 0.25, 0.01
	full.ReadRepairChance, full.DclocalReadRepairChance = &rrc, 0.5
	full.GcGraceSeconds, full.MinCompactionThreshold, full.MaxCompactionThreshold = i32(3600), i32(2), i32(16)
	full.DefaultValidationClass, full.KeyValidationClass = strp("org.apache.cassandra.db.marshal.UTF8Type"), strp("org.apache.cassandra.db.marshal.LongType")
	no, yes := false, true
	full.ReplicateOnWrite, full.PopulateIoCacheOnFlush = &no, &yes
	full.KeyAlias = []byte("item_id")
	full.CompactionStrategy = strp("org.apache.cassandra.db.compaction.LeveledCompactionStrategy")
	full.CompactionStrategyOptions = map[string]string{"sstable_size_in_mb": "10"}
	full.CompressionOptions = map[string]string{"sstable_compression": "org.apache.cassandra.io.compress.DeflateCompressor", "chunk_length_kb": "64"}
	full.BloomFilterFpChance = &fp
	full.Caching = "ALL"
	keys := cassandra19.IndexType_KEYS
	full.ColumnMetadata = []*cassandra19.ColumnDef{
		{Name: []byte("price"), ValidationClass: "org.apache.cassandra.db.marshal.LongType", IndexType: &keys},
		{Name: []byte("title"), ValidationClass: "org.apache.cassandra.db.marshal.UTF8Type", IndexType: &keys, IndexName: strp("by_title")},
		{Name: []byte("notes"), ValidationClass: "org.apache.cassandra.db.marshal.UTF8Type"},
	}
	// 2.0's and 2.1's properties, which 1.2 lacks.
	full.DefaultTimeToLive, full.MemtableFlushPeriodInMs, full.IndexInterval = i32(600), i32(60000), i32(256)
	full.MinIndexInterval, full.MaxIndexInterval = i32(64), i32(4096)
	full.SpeculativeRetry, full.CellsPerRowToCache = "99PERCENTILE", "ALL"
	full.Triggers = []*cassandra19.TriggerDef{{Name: "audit", Options: map[string]string{"class": "org.example.Audit"}}}
	minimal := cfDef("Shop", "Minimal", "BytesType")
	_, err := c.SystemAddKeyspace(ctx, &cassandra19.KsDef{Name: "Shop", StrategyClass: "SimpleStrategy",
		StrategyOptions: map[string]string{"replication_factor": "1"}, DurableWrites: false,
		CfDefs: []*cassandra19.CfDef{full, minimal}})
	must(t, err)

	check := func(ks *cassandra19.KsDef) (*cassandra19.CfDef, *cassandra19.CfDef) {
		t.Helper()
		if ks.StrategyClass != "org.apache.cassandra.locator.SimpleStrategy" || ks.DurableWrites ||
			!reflect.DeepEqual(ks.StrategyOptions, map[string]string{"replication_factor": "1"}) || len(ks.CfDefs) != 2 {
			t.Fatalf("KsDef = %+v", ks)
		}
		items, min := ks.CfDefs[0], ks.CfDefs[1]
		got := []any{items.GetComment(), items.GetReadRepairChance(), items.DclocalReadRepairChance, items.GetGcGraceSeconds(),
			items.GetMinCompactionThreshold(), items.GetMaxCompactionThreshold(), items.GetDefaultValidationClass(), items.GetKeyValidationClass(),
			items.GetReplicateOnWrite(), items.GetPopulateIoCacheOnFlush(), string(items.KeyAlias), items.GetCompactionStrategy(),
			items.CompactionStrategyOptions, items.CompressionOptions, items.GetBloomFilterFpChance(), items.Caching,
			items.ComparatorType, items.ColumnType}
		want := []any{"every field", 0.25, 0.5, int32(3600), int32(2), int32(16), "org.apache.cassandra.db.marshal.UTF8Type", "org.apache.cassandra.db.marshal.LongType",
			false, true, "item_id", "org.apache.cassandra.db.compaction.LeveledCompactionStrategy",
			full.CompactionStrategyOptions, full.CompressionOptions, 0.01, "ALL",
			"org.apache.cassandra.db.marshal.UTF8Type", "Standard"}
		for i := range want {
			if !reflect.DeepEqual(got[i], want[i]) {
				t.Errorf("Items field %d: got %#v, want %#v", i, got[i], want[i])
			}
		}
		got = []any{items.GetDefaultTimeToLive(), items.GetMemtableFlushPeriodInMs(), items.GetIndexInterval(),
			items.GetMinIndexInterval(), items.GetMaxIndexInterval(), items.SpeculativeRetry, items.CellsPerRowToCache, items.Triggers}
		want = []any{int32(600), int32(60000), int32(256), int32(64), int32(4096), "99PERCENTILE", "ALL", full.Triggers}
		for i := range want {
			if !reflect.DeepEqual(got[i], want[i]) {
				t.Errorf("Items 2.x field %d: got %#v, want %#v", i, got[i], want[i])
			}
		}
		var cols []string
		for _, cd := range items.ColumnMetadata {
			s := string(cd.Name) + ":" + strings.TrimPrefix(cd.ValidationClass, "org.apache.cassandra.db.marshal.")
			if cd.IndexType != nil {
				s += ":" + cd.IndexType.String() + ":" + cd.GetIndexName()
			}
			cols = append(cols, s)
		}
		sort.Strings(cols)
		if w := "notes:UTF8Type price:LongType:KEYS:Items_price_idx title:UTF8Type:KEYS:by_title"; strings.Join(cols, " ") != w {
			t.Errorf("column_metadata = %v, want %s", cols, w)
		}
		// 1.2.19's defaults for what the client left out.
		got = []any{min.GetComment(), min.GetReadRepairChance(), min.DclocalReadRepairChance, min.GetGcGraceSeconds(),
			min.GetMinCompactionThreshold(), min.GetMaxCompactionThreshold(), min.GetDefaultValidationClass(), min.GetKeyValidationClass(),
			min.GetReplicateOnWrite(), min.GetPopulateIoCacheOnFlush(), min.KeyAlias, min.GetCompactionStrategy(),
			min.CompactionStrategyOptions, min.CompressionOptions, min.BloomFilterFpChance, min.Caching, len(min.ColumnMetadata)}
		want = []any{"", 0.1, 0.0, int32(864000), int32(4), int32(32), "org.apache.cassandra.db.marshal.BytesType", "org.apache.cassandra.db.marshal.BytesType",
			true, false, []byte(nil), "org.apache.cassandra.db.compaction.SizeTieredCompactionStrategy",
			map[string]string{}, map[string]string{"sstable_compression": "org.apache.cassandra.io.compress.SnappyCompressor"}, (*float64)(nil), "KEYS_ONLY", 0}
		for i := range want {
			if !reflect.DeepEqual(got[i], want[i]) {
				t.Errorf("Minimal field %d: got %#v, want %#v", i, got[i], want[i])
			}
		}
		return items, min
	}
	ks, err := c.DescribeKeyspace(ctx, "Shop")
	must(t, err)
	items, _ := check(ks)

	// As pycassa does: read, change one field, send it all back.
	must(t, c.SetKeyspace(ctx, "Shop"))
	items.Comment = strp("every field")
	_, err = c.SystemUpdateColumnFamily(ctx, items)
	must(t, err)
	// An update without key_alias keeps it (CASSANDRA-6831).
	ks, err = c.DescribeKeyspace(ctx, "Shop")
	must(t, err)
	items, _ = check(ks)
	items.KeyAlias = nil
	_, err = c.SystemUpdateColumnFamily(ctx, items)
	must(t, err)
	// An index's name cannot change.
	// column_metadata is in 1.2's HashMap order: title, notes, price.
	if string(items.ColumnMetadata[2].Name) != "price" {
		t.Fatalf("column_metadata is not in 1.2's order: %+v", items.ColumnMetadata)
	}
	items.ColumnMetadata[2].IndexName = strp("renamed")
	_, err = c.SystemUpdateColumnFamily(ctx, items)
	if why := invalidWhy(err); why != "Can't modify index name: was 'Items_price_idx' changed to 'renamed'." {
		t.Errorf("renaming an index: %s", why)
	}
	n.Stop()
	n.Start()
	c = connect(t, n, "")
	ks, err = c.DescribeKeyspace(ctx, "Shop")
	must(t, err)
	check(ks)
}

func TestKeyspaceStrategyChecks(t *testing.T) {
	n := start(t)
	c := connect(t, n, "")
	for _, tc := range []struct {
		class string
		opts  map[string]string
		why   string
	}{
		{"NoSuchStrategy", nil, "Unable to find replication strategy class 'org.apache.cassandra.locator.NoSuchStrategy'"},
		{"LocalStrategy", nil, "Unable to use given strategy class: LocalStrategy is reserved for internal use."},
		{"SimpleStrategy", map[string]string{}, "SimpleStrategy requires a replication_factor strategy option."},
		{"SimpleStrategy", map[string]string{"replication_factor": "x"}, "Replication factor must be numeric; found x"},
		{"SimpleStrategy", map[string]string{"replication_factor": "-1"}, "Replication factor must be non-negative; found -1"},
		{"NetworkTopologyStrategy", map[string]string{"replication_factor": "1"}, "replication_factor is an option for SimpleStrategy, not NetworkTopologyStrategy"},
	} {
		_, err := c.SystemAddKeyspace(ctx, &cassandra19.KsDef{Name: "K", StrategyClass: tc.class, StrategyOptions: tc.opts, CfDefs: []*cassandra19.CfDef{}})
		if why := invalidWhy(err); why != tc.why {
			t.Errorf("%s %v: %s, want %s", tc.class, tc.opts, why, tc.why)
		}
	}
	_, err := c.SystemAddKeyspace(ctx, &cassandra19.KsDef{Name: "K", StrategyClass: "NetworkTopologyStrategy",
		StrategyOptions: map[string]string{"datacenter1": "1"}, CfDefs: []*cassandra19.CfDef{}})
	must(t, err)
}

// The system keyspace's schema cannot be changed.
func TestSystemSchemaIsNotModifiable(t *testing.T) {
	n := start(t)
	c := connect(t, n, "system")
	_, err := c.SystemAddColumnFamily(ctx, cfDef("system", "Mine", "BytesType"))
	if why := invalidWhy(err); why != "system keyspace is not user-modifiable." {
		t.Errorf("system_add_column_family in system: %s", why)
	}
	_, err = c.SystemDropColumnFamily(ctx, "LocationInfo")
	if why := invalidWhy(err); why != "system keyspace is not user-modifiable." {
		t.Errorf("system_drop_column_family in system: %s", why)
	}
	_, err = c.SystemUpdateColumnFamily(ctx, cfDef("system", "LocationInfo", "BytesType"))
	if why := invalidWhy(err); why != "system keyspace is not user-modifiable." {
		t.Errorf("system_update_column_family in system: %s", why)
	}
	_, err = c.SystemDropKeyspace(ctx, "SYSTEM")
	if why := invalidWhy(err); why != "system keyspace is not user-modifiable" {
		t.Errorf("system_drop_keyspace SYSTEM: %s", why)
	}
}

// A CfDef is checked as CFMetaData.validate checked it.
func TestColumnFamilyChecks(t *testing.T) {
	n := start(t)
	c := connect(t, n, "Keyspace1")
	keys := cassandra19.IndexType_KEYS
	for _, tc := range []struct {
		name string
		edit func(d *cassandra19.CfDef)
		why  string
	}{
		{"bad name", func(d *cassandra19.CfDef) { d.Name = "bad-name" },
			`ColumnFamily name must not be empty, more than 48 characters long, or contain non-alphanumeric-underscore characters (got "bad-name")`},
		{"subcomparator on Standard", func(d *cassandra19.CfDef) { d.SubcomparatorType = strp("UTF8Type") },
			"Subcolumn comparator (org.apache.cassandra.db.marshal.UTF8Type) is invalid for standard column family Checked"},
		{"min threshold", func(d *cassandra19.CfDef) { d.MinCompactionThreshold = i32(1) },
			"Min compaction threshold cannot be less than 2 (got 1)."},
		{"min above max", func(d *cassandra19.CfDef) { d.MinCompactionThreshold, d.MaxCompactionThreshold = i32(8), i32(6) },
			"Min compaction threshold (got 8) cannot be greater than max compaction threshold (got 6)"},
		{"bloom filter", func(d *cassandra19.CfDef) { zero := 0.0; d.BloomFilterFpChance = &zero },
			"Zero false positives is impossible; bloom filter false positive chance bffpc must be 0 < bffpc <= 1"},
		{"compaction strategy", func(d *cassandra19.CfDef) { d.CompactionStrategy = strp("NoSuchStrategy") },
			"Unable to find compaction strategy class 'org.apache.cassandra.db.compaction.NoSuchStrategy'"},
		{"column name", func(d *cassandra19.CfDef) {
			d.ComparatorType = "LongType"
			d.ColumnMetadata = []*cassandra19.ColumnDef{{Name: []byte("abc"), ValidationClass: "BytesType"}}
		}, "A long is exactly 8 bytes: 3"},
		{"index on Super", func(d *cassandra19.CfDef) {
			d.ColumnType = "Super"
			d.ColumnMetadata = []*cassandra19.ColumnDef{{Name: []byte("a"), ValidationClass: "BytesType", IndexType: &keys}}
		}, "Secondary indexes are not supported on super column families"},
		{"duplicate index name", func(d *cassandra19.CfDef) {
			d.ColumnMetadata = []*cassandra19.ColumnDef{
				{Name: []byte("a"), ValidationClass: "BytesType", IndexType: &keys, IndexName: strp("same")},
				{Name: []byte("b"), ValidationClass: "BytesType", IndexType: &keys, IndexName: strp("same")}}
		}, "Duplicate index name same"},
		{"key alias", func(d *cassandra19.CfDef) {
			d.KeyAlias = []byte("a")
			d.ColumnMetadata = []*cassandra19.ColumnDef{{Name: []byte("a"), ValidationClass: "BytesType"}}
		}, "Cannot have key alias equals to a column name: a"},
	} {
		d := cfDef("Keyspace1", "Checked", "BytesType")
		tc.edit(d)
		_, err := c.SystemAddColumnFamily(ctx, d)
		if why := invalidWhy(err); why != tc.why {
			t.Errorf("%s: %s\n want %s", tc.name, why, tc.why)
		}
	}
	kss, err := c.DescribeKeyspace(ctx, "Keyspace1")
	must(t, err)
	for _, d := range kss.CfDefs {
		if d.Name == "Checked" {
			t.Fatal("a refused column family was created")
		}
	}
}
