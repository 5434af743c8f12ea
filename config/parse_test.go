package config

import (
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"
)

func loadFixture(t *testing.T, name string) *Config {
	t.Helper()
	c, err := Load(fixture(t, name))
	if err != nil {
		t.Fatalf("Load(%s): %v", name, err)
	}
	return c
}

// check compares one field; the name says which.
func check(t *testing.T, name string, got, want any) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s = %#v, want %#v", name, got, want)
	}
}

func TestStockDefaultConfig(t *testing.T) {
	path := fixture(t, "storage-conf-0.6-default.xml")
	c := loadFixture(t, "storage-conf-0.6-default.xml")
	text, _ := os.ReadFile(path)
	for _, f := range []struct {
		name      string
		got, want any
	}{
		{"Path", c.Path, path},
		{"Text", string(c.Text), string(text)},
		{"ClusterName", c.ClusterName, "Test Cluster"},
		{"AutoBootstrap", c.AutoBootstrap, false},
		{"HintedHandoffEnabled", c.HintedHandoffEnabled, true},
		{"IndexInterval", c.IndexInterval, 128},
		{"Authenticator", c.Authenticator, "org.apache.cassandra.auth.AllowAllAuthenticator"},
		{"Partitioner", c.Partitioner, "org.apache.cassandra.dht.RandomPartitioner"},
		{"InitialToken", c.InitialToken, ""}, // <InitialToken></InitialToken> is absent
		{"SavedCachesDirectory", c.SavedCachesDirectory, "/var/lib/cassandra/saved_caches"},
		{"CommitLogDirectory", c.CommitLogDirectory, "/var/lib/cassandra/commitlog"},
		{"DataFileDirectories", c.DataFileDirectories, []string{"/var/lib/cassandra/data"}},
		{"Seeds", c.Seeds, []string{"127.0.0.1"}},
		{"RpcTimeoutInMillis", c.RpcTimeoutInMillis, 10000},
		{"PhiConvictThreshold", c.PhiConvictThreshold, 8}, // absent: default
		{"CommitLogRotationThresholdInMB", c.CommitLogRotationThresholdInMB, 128},
		{"ListenAddress", c.ListenAddress, "localhost"},
		{"StoragePort", c.StoragePort, 7000},
		{"ThriftAddress", c.ThriftAddress, "localhost"},
		{"ThriftPort", c.ThriftPort, 9160},
		{"ThriftFramedTransport", c.ThriftFramedTransport, false},
		{"DiskAccessMode", c.DiskAccessMode, "auto"},
		{"RowWarningThresholdInMB", c.RowWarningThresholdInMB, int64(64)},
		{"SlicedBufferSizeInKB", c.SlicedBufferSizeInKB, 64},
		{"FlushDataBufferSizeInMB", c.FlushDataBufferSizeInMB, 32.0},
		{"FlushIndexBufferSizeInMB", c.FlushIndexBufferSizeInMB, 8.0},
		{"ColumnIndexSizeInKB", c.ColumnIndexSizeInKB, 64},
		{"MemtableThroughputInMB", c.MemtableThroughputInMB, 64},
		{"BinaryMemtableThroughputInMB", c.BinaryMemtableThroughputInMB, 256},
		{"MemtableOperationsInMillions", c.MemtableOperationsInMillions, 0.3},
		{"MemtableFlushAfterMinutes", c.MemtableFlushAfterMinutes, 60},
		{"ConcurrentReads", c.ConcurrentReads, 8},
		{"ConcurrentWrites", c.ConcurrentWrites, 32},
		{"CommitLogSync", c.CommitLogSync, "periodic"},
		{"CommitLogSyncPeriodInMS", c.CommitLogSyncPeriodInMS, 10000},
		{"CommitLogSyncBatchWindowInMS", c.CommitLogSyncBatchWindowInMS, 0.0},
		{"GCGraceSeconds", c.GCGraceSeconds, 864000},
		{"DoConsistencyChecksBoolean", c.DoConsistencyChecksBoolean, true},
		{"SnapshotBeforeCompaction", c.SnapshotBeforeCompaction, false},
		{"JobTrackerHost", c.JobTrackerHost, ""},
		{"Ignored", len(c.Ignored), 0},
		{"Warnings", c.Warnings, []string(nil)},
		{"Server.MaxMessageSize", c.Server.MaxMessageSize, int64(16 << 20)},
		{"Server.MaxConnections", c.Server.MaxConnections, 4096},
	} {
		check(t, f.name, f.got, f.want)
	}

	want := []Keyspace{{
		Name:                     "Keyspace1",
		ReplicaPlacementStrategy: "org.apache.cassandra.locator.RackUnawareStrategy",
		ReplicationFactor:        1,
		EndPointSnitch:           "org.apache.cassandra.locator.EndPointSnitch",
		ColumnFamilies: []ColumnFamily{
			{Name: "Standard1", ColumnType: "Standard", CompareWith: "BytesType",
				KeysCached: "1000", RowsCached: "100", KeyCacheSavePeriodInSeconds: 3600},
			{Name: "Standard2", ColumnType: "Standard", CompareWith: "UTF8Type",
				KeysCached: "100%", RowsCached: "0"},
			{Name: "StandardByUUID1", ColumnType: "Standard", CompareWith: "TimeUUIDType",
				KeysCached: "200000", RowsCached: "0"},
			{Name: "Super1", ColumnType: "Super", CompareWith: "BytesType",
				CompareSubcolumnsWith: "BytesType", KeysCached: "200000", RowsCached: "0"},
			{Name: "Super2", ColumnType: "Super", CompareWith: "UTF8Type",
				CompareSubcolumnsWith: "UTF8Type", KeysCached: "50%", RowsCached: "10000",
				Comment:    "A column family with supercolumns, whose column and subcolumn names are UTF8 strings",
				HasComment: true},
		},
	}}
	check(t, "Keyspaces", c.Keyspaces, want)
}

func TestCassandraTestConfig(t *testing.T) {
	c := loadFixture(t, "storage-conf-0.6-test.xml")
	for _, f := range []struct {
		name      string
		got, want any
	}{
		{"Partitioner", c.Partitioner, "org.apache.cassandra.dht.CollatingOrderPreservingPartitioner"},
		{"ListenAddress", c.ListenAddress, "127.0.0.1"},
		{"ThriftAddress", c.ThriftAddress, ""}, // unset: the listen address
		{"StoragePort", c.StoragePort, 7010},
		{"ThriftPort", c.ThriftPort, 9170},
		{"RpcTimeoutInMillis", c.RpcTimeoutInMillis, 5000},
		{"CommitLogSync", c.CommitLogSync, "batch"},
		{"CommitLogSyncBatchWindowInMS", c.CommitLogSyncBatchWindowInMS, 1.0},
		{"CommitLogSyncPeriodInMS", c.CommitLogSyncPeriodInMS, 0},
		{"DiskAccessMode", c.DiskAccessMode, "mmap"},
		{"ColumnIndexSizeInKB", c.ColumnIndexSizeInKB, 4},
		{"MemtableThroughputInMB", c.MemtableThroughputInMB, 1},
		{"MemtableOperationsInMillions", c.MemtableOperationsInMillions, 0.00002},
		{"FlushDataBufferSizeInMB", c.FlushDataBufferSizeInMB, 1.0},
		{"FlushIndexBufferSizeInMB", c.FlushIndexBufferSizeInMB, 0.1},
		{"DataFileDirectories", c.DataFileDirectories, []string{"build/test/cassandra/data"}},
		{"CommitLogDirectory", c.CommitLogDirectory, "build/test/cassandra/commitlog"},
		{"SavedCachesDirectory", c.SavedCachesDirectory, "build/test/cassandra/saved_caches"},
		{"Seeds", c.Seeds, []string{"127.0.0.1"}},
		{"Ignored", c.Ignored, []string{"BootstrapFileDirectory"}},
		// Absent from this file: 0.6's defaults.
		{"Authenticator", c.Authenticator, "org.apache.cassandra.auth.AllowAllAuthenticator"},
		{"HintedHandoffEnabled", c.HintedHandoffEnabled, true},
		{"IndexInterval", c.IndexInterval, 128},
		{"RowWarningThresholdInMB", c.RowWarningThresholdInMB, int64(512)},
		{"GCGraceSeconds", c.GCGraceSeconds, 864000},
		{"ConcurrentReads", c.ConcurrentReads, 8},
		{"ConcurrentWrites", c.ConcurrentWrites, 32},
		{"BinaryMemtableThroughputInMB", c.BinaryMemtableThroughputInMB, 256},
		{"MemtableFlushAfterMinutes", c.MemtableFlushAfterMinutes, 60},
		{"SlicedBufferSizeInKB", c.SlicedBufferSizeInKB, 64},
		{"PhiConvictThreshold", c.PhiConvictThreshold, 8},
		{"AutoBootstrap", c.AutoBootstrap, false},
		{"DoConsistencyChecksBoolean", c.DoConsistencyChecksBoolean, true},
	} {
		check(t, f.name, f.got, f.want)
	}

	// The table of spec 9.5: keyspace, RF, then each CF's type and
	// comparators as written (the file leaves CompareWith out on Supers).
	type cfWant struct{ name, typ, with, sub, keys, rows string }
	std := func(n string) cfWant { return cfWant{n, "Standard", "BytesType", "", "200000", "0"} }
	sup := func(n, sub string) cfWant { return cfWant{n, "Super", "BytesType", sub, "200000", "0"} }
	want := []struct {
		name string
		rf   int
		cfs  []cfWant
	}{
		{"Keyspace1", 1, []cfWant{
			{"Standard1", "Standard", "BytesType", "", "0", "10%"},
			std("Standard2"),
			{"Standard3", "Standard", "BytesType", "", "50%", "0"},
			{"Standard4", "Standard", "BytesType", "", "100%", "0"},
			{"StandardLong1", "Standard", "LongType", "", "200000", "0"},
			{"StandardLong2", "Standard", "LongType", "", "200000", "0"},
			{"Super1", "Super", "BytesType", "LongType", "0", "1000"},
			sup("Super2", "LongType"), sup("Super3", "LongType"), sup("Super4", "UTF8Type"),
		}},
		{"Keyspace2", 1, []cfWant{std("Standard1"), std("Standard3"), sup("Super3", "BytesType"), sup("Super4", "TimeUUIDType")}},
		{"Keyspace3", 5, []cfWant{std("Standard1")}},
		{"Keyspace4", 3, []cfWant{std("Standard1"), std("Standard3"), sup("Super3", "BytesType"), sup("Super4", "TimeUUIDType")}},
	}
	if len(c.Keyspaces) != len(want) {
		t.Fatalf("got %d keyspaces, want %d", len(c.Keyspaces), len(want))
	}
	for i, w := range want {
		ks := c.Keyspaces[i]
		check(t, "keyspace name", ks.Name, w.name)
		check(t, w.name+" RF", ks.ReplicationFactor, w.rf)
		check(t, w.name+" strategy", ks.ReplicaPlacementStrategy, "org.apache.cassandra.locator.RackUnawareStrategy")
		check(t, w.name+" snitch", ks.EndPointSnitch, "org.apache.cassandra.locator.EndPointSnitch")
		var got []cfWant
		for _, cf := range ks.ColumnFamilies {
			got = append(got, cfWant{cf.Name, cf.ColumnType, cf.CompareWith, cf.CompareSubcolumnsWith, cf.KeysCached, cf.RowsCached})
			if cf.HasComment {
				t.Errorf("%s.%s has a comment %q; the file has none", w.name, cf.Name, cf.Comment)
			}
		}
		check(t, w.name+" column families", got, w.cfs)
	}
}

func TestBloggyAppyConfig(t *testing.T) {
	c := loadFixture(t, "storage-conf-bloggyappy.xml")
	check(t, "ClusterName", c.ClusterName, "Bloggy Cluster")
	check(t, "DataFileDirectories", c.DataFileDirectories, []string{"var/data"})
	check(t, "CommitLogDirectory", c.CommitLogDirectory, "var/commitlog")
	check(t, "DiskAccessMode", c.DiskAccessMode, "auto")
	if len(c.Keyspaces) != 1 || c.Keyspaces[0].Name != "BloggyAppy" {
		t.Fatalf("keyspaces = %+v", c.Keyspaces)
	}
	cfs := c.Keyspaces[0].ColumnFamilies
	check(t, "CF count", len(cfs), 4)
	check(t, "TaggedPosts", [2]string{cfs[2].Name, cfs[2].CompareWith}, [2]string{"TaggedPosts", "TimeUUIDType"})
	check(t, "Comments", [4]string{cfs[3].Name, cfs[3].ColumnType, cfs[3].CompareWith, cfs[3].CompareSubcolumnsWith},
		[4]string{"Comments", "Super", "TimeUUIDType", "BytesType"})
	// XML comments inside the keyspace are not comments of a column family.
	for _, cf := range cfs {
		if cf.HasComment {
			t.Errorf("%s has comment %q", cf.Name, cf.Comment)
		}
	}
}

// minimal is the smallest configuration 0.6.13 starts with; error cases
// edit it.
const minimal = `<Storage>
  <ClusterName>C</ClusterName>
  <Keyspaces>
    <Keyspace Name="K">
      <ColumnFamily Name="CF"/>
      <ReplicaPlacementStrategy>org.apache.cassandra.locator.RackUnawareStrategy</ReplicaPlacementStrategy>
      <ReplicationFactor>1</ReplicationFactor>
      <EndPointSnitch>org.apache.cassandra.locator.EndPointSnitch</EndPointSnitch>
    </Keyspace>
  </Keyspaces>
  <Partitioner>RandomPartitioner</Partitioner>
  <SavedCachesDirectory>sc</SavedCachesDirectory>
  <CommitLogDirectory>cl</CommitLogDirectory>
  <DataFileDirectories><DataFileDirectory>data</DataFileDirectory></DataFileDirectories>
  <Seeds><Seed>127.0.0.1</Seed></Seeds>
  <DiskAccessMode>auto</DiskAccessMode>
  <CommitLogSync>periodic</CommitLogSync>
  <CommitLogSyncPeriodInMS>10000</CommitLogSyncPeriodInMS>
</Storage>
`

// withTop adds elements at the end of <Storage> in minimal.
func withTop(elems string) string {
	return strings.Replace(minimal, "</Storage>", elems+"\n</Storage>", 1)
}

// withCF replaces the column family of minimal.
func withCF(cf string) string {
	return strings.Replace(minimal, `<ColumnFamily Name="CF"/>`, cf, 1)
}

func TestMinimalConfigDefaults(t *testing.T) {
	c, err := Parse([]byte(minimal), "dir/storage-conf.xml")
	if err != nil {
		t.Fatal(err)
	}
	check(t, "Partitioner", c.Partitioner, "org.apache.cassandra.dht.RandomPartitioner")
	check(t, "Authenticator", c.Authenticator, "org.apache.cassandra.auth.AllowAllAuthenticator")
	check(t, "RpcTimeoutInMillis", c.RpcTimeoutInMillis, 2000)
	check(t, "ThriftPort", c.ThriftPort, 9160)
	check(t, "StoragePort", c.StoragePort, 7000)
	check(t, "RowWarningThresholdInMB", c.RowWarningThresholdInMB, int64(512))
	check(t, "MemtableOperationsInMillions", c.MemtableOperationsInMillions, 0.1)
	check(t, "GCGraceSeconds", c.GCGraceSeconds, 864000)
	check(t, "ListenAddress", c.ListenAddress, "")
	check(t, "Server.PasswdFile", c.Server.PasswdFile, "dir/passwd.properties")
	check(t, "Server.AccessFile", c.Server.AccessFile, "dir/access.properties")
	check(t, "Server.RequestTimeout", c.Server.RequestTimeout, 30*time.Second)
	check(t, "CF", c.Keyspaces[0].ColumnFamilies[0], ColumnFamily{
		Name: "CF", ColumnType: "Standard", CompareWith: "BytesType",
		KeysCached: "200000", RowsCached: "0"})
}

// TestMinimalWithEdits checks accepted variations and what they read as.
func TestAcceptedValues(t *testing.T) {
	tests := []struct {
		name string
		xml  string
		get  func(*Config) any
		want any
	}{
		{"bool any case", withTop("<AutoBootstrap>TRUE</AutoBootstrap>"),
			func(c *Config) any { return c.AutoBootstrap }, true},
		{"hinted handoff off", withTop("<HintedHandoffEnabled>False</HintedHandoffEnabled>"),
			func(c *Config) any { return c.HintedHandoffEnabled }, false},
		{"consistency checks: parseBoolean", withTop("<DoConsistencyChecksBoolean>yes</DoConsistencyChecksBoolean>"),
			func(c *Config) any { return c.DoConsistencyChecksBoolean }, false},
		{"consistency checks: True", withTop("<DoConsistencyChecksBoolean>True</DoConsistencyChecksBoolean>"),
			func(c *Config) any { return c.DoConsistencyChecksBoolean }, true},
		{"fully qualified partitioner kept", strings.Replace(minimal, "<Partitioner>RandomPartitioner", "<Partitioner>com.example.P", 1),
			func(c *Config) any { return c.Partitioner }, "com.example.P"},
		{"short OPP gets the package", strings.Replace(minimal, "<Partitioner>RandomPartitioner", "<Partitioner>OrderPreservingPartitioner", 1),
			func(c *Config) any { return c.Partitioner }, "org.apache.cassandra.dht.OrderPreservingPartitioner"},
		{"authenticator as written", withTop("<Authenticator>SimpleAuthenticator</Authenticator>"),
			func(c *Config) any { return c.Authenticator }, "SimpleAuthenticator"},
		{"empty element is absent", withTop("<ThriftPort></ThriftPort><ThriftAddress/>"),
			func(c *Config) any { return [2]any{c.ThriftPort, c.ThriftAddress} }, [2]any{9160, ""}},
		{"first of a repeated element", withTop("<ThriftPort>1</ThriftPort><ThriftPort>2</ThriftPort>"),
			func(c *Config) any { return [2]any{c.ThriftPort, len(c.Warnings)} }, [2]any{1, 1}},
		{"text as written", strings.Replace(minimal, "<ClusterName>C", "<ClusterName> a &amp; <![CDATA[b]]><!-- x -->c ", 1),
			func(c *Config) any { return c.ClusterName }, " a & bc "},
		{"relative paths kept", withTop(""),
			func(c *Config) any {
				return [3]any{c.DataFileDirectories, c.CommitLogDirectory, c.SavedCachesDirectory}
			},
			[3]any{[]string{"data"}, "cl", "sc"}},
		{"seeds not resolved", strings.Replace(minimal, "<Seed>127.0.0.1</Seed>", "<Seed>no.such.host.invalid</Seed><Seed>10.0.0.2</Seed>", 1),
			func(c *Config) any { return c.Seeds }, []string{"no.such.host.invalid", "10.0.0.2"}},
		{"seeds across Seeds elements", withTop("<Seeds><Seed>b</Seed></Seeds>"),
			func(c *Config) any { return c.Seeds }, []string{"127.0.0.1", "b"}},
		{"cluster settings kept", withTop("<PhiConvictThreshold>16</PhiConvictThreshold><StoragePort>7001</StoragePort><ListenAddress>10.1.1.1</ListenAddress>"),
			func(c *Config) any { return [3]any{c.PhiConvictThreshold, c.StoragePort, c.ListenAddress} }, [3]any{16, 7001, "10.1.1.1"}},
		{"ignored top-level elements once each", withTop("<BootstrapFileDirectory>b</BootstrapFileDirectory><Foo/><Foo/>"),
			func(c *Config) any { return c.Ignored }, []string{"BootstrapFileDirectory", "Foo"}},
		{"batch window", strings.Replace(strings.Replace(minimal, "periodic", "batch", 1),
			"<CommitLogSyncPeriodInMS>10000</CommitLogSyncPeriodInMS>", "<CommitLogSyncBatchWindowInMS>0.5d</CommitLogSyncBatchWindowInMS>", 1),
			func(c *Config) any { return [2]any{c.CommitLogSync, c.CommitLogSyncBatchWindowInMS} }, [2]any{"batch", 0.5}},
		{"row warning as long", withTop("<RowWarningThresholdInMB>4096</RowWarningThresholdInMB>"),
			func(c *Config) any { return c.RowWarningThresholdInMB }, int64(4096)},
		{"minimum int", withTop("<GCGraceSeconds>-2147483648</GCGraceSeconds>"),
			func(c *Config) any { return c.GCGraceSeconds }, -2147483648},
		{"thriftd elements", withTop(`<ThriftMaxMessageLengthInMB>2</ThriftMaxMessageLengthInMB>
			<ThriftMaxConnections>0</ThriftMaxConnections>
			<ThriftIdleTimeoutInSeconds>90</ThriftIdleTimeoutInSeconds>
			<ThriftRequestTimeoutInSeconds>0</ThriftRequestTimeoutInSeconds>`),
			func(c *Config) any {
				return [5]any{c.Server.MaxMessageSize, c.Server.MaxConnections, c.Server.IdleTimeout, c.Server.RequestTimeout, len(c.Ignored)}
			},
			[5]any{int64(2 << 20), 0, 90 * time.Second, time.Duration(0), 0}},
		{"comment element", withCF(`<ColumnFamily Name="CF"><Comment>hello</Comment></ColumnFamily>`),
			func(c *Config) any { cf := c.Keyspaces[0].ColumnFamilies[0]; return [2]any{cf.Comment, cf.HasComment} },
			[2]any{"hello", true}},
		{"comment element wins over attribute", withCF(`<ColumnFamily Name="CF" Comment="attr"><Comment>elem</Comment></ColumnFamily>`),
			func(c *Config) any { return c.Keyspaces[0].ColumnFamilies[0].Comment }, "elem"},
		{"empty comment attribute is a comment", withCF(`<ColumnFamily Name="CF" Comment=""/>`),
			func(c *Config) any { cf := c.Keyspaces[0].ColumnFamilies[0]; return [2]any{cf.Comment, cf.HasComment} },
			[2]any{"", true}},
		{"empty comment element is none", withCF(`<ColumnFamily Name="CF"><Comment></Comment></ColumnFamily>`),
			func(c *Config) any { return c.Keyspaces[0].ColumnFamilies[0].HasComment }, false},
		{"super defaults", withCF(`<ColumnFamily Name="CF" ColumnType="Super"/>`),
			func(c *Config) any {
				cf := c.Keyspaces[0].ColumnFamilies[0]
				return [2]any{cf.CompareWith, cf.CompareSubcolumnsWith}
			},
			[2]any{"BytesType", "BytesType"}},
		{"comparators as written", withCF(`<ColumnFamily Name="CF" ColumnType="Super" CompareWith="org.apache.cassandra.db.marshal.LongType" CompareSubcolumnsWith="NoSuchType"/>`),
			func(c *Config) any {
				cf := c.Keyspaces[0].ColumnFamilies[0]
				return [2]any{cf.CompareWith, cf.CompareSubcolumnsWith}
			},
			[2]any{"org.apache.cassandra.db.marshal.LongType", "NoSuchType"}},
		{"KeysCachedFraction", withCF(`<ColumnFamily Name="CF" KeysCachedFraction="0.5"/>`),
			func(c *Config) any { return [2]any{c.Keyspaces[0].ColumnFamilies[0].KeysCached, len(c.Warnings)} }, [2]any{"0.5", 1}},
		{"cache save periods", withCF(`<ColumnFamily Name="CF" RowCacheSavePeriodInSeconds="7" KeyCacheSavePeriodInSeconds="9"/>`),
			func(c *Config) any {
				cf := c.Keyspaces[0].ColumnFamilies[0]
				return [2]int{cf.RowCacheSavePeriodInSeconds, cf.KeyCacheSavePeriodInSeconds}
			}, [2]int{7, 9}},
		{"unknown CF attribute warned", withCF(`<ColumnFamily Name="CF" ReadRepairChance="0.1"/>`),
			func(c *Config) any { return c.Warnings },
			[]string{"/Storage/Keyspaces/Keyspace[@Name='K']/ColumnFamily[@Name='CF']/@ReadRepairChance is not read; ignored"}},
		{"empty keyspace name is 0.6's business", strings.Replace(minimal, `Name="K"`, `Name=""`, 1),
			func(c *Config) any { return c.Keyspaces[0].Name }, ""},
		{"same CF name in two keyspaces", withTop(`<Keyspaces><Keyspace Name="K2"><ColumnFamily Name="CF"/>
			<ReplicaPlacementStrategy>s</ReplicaPlacementStrategy><ReplicationFactor>3</ReplicationFactor>
			<EndPointSnitch>e</EndPointSnitch></Keyspace></Keyspaces>`),
			func(c *Config) any {
				return [3]any{len(c.Keyspaces), c.Keyspaces[1].Name, c.Keyspaces[1].ReplicationFactor}
			},
			[3]any{2, "K2", 3}},
		{"xml declaration latin-1", `<?xml version="1.0" encoding="ISO-8859-1"?>` + strings.Replace(minimal, "<ClusterName>C", "<ClusterName>caf\xe9", 1),
			func(c *Config) any { return c.ClusterName }, "café"},
		{"byte order mark", "\xef\xbb\xbf" + minimal,
			func(c *Config) any { return c.ClusterName }, "C"},
		{"NaN memtable operations passes 0.6's <= 0 check", withTop("<MemtableOperationsInMillions>NaN</MemtableOperationsInMillions>"),
			func(c *Config) any { f := c.MemtableOperationsInMillions; return f != f }, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Parse([]byte(tc.xml), "storage-conf.xml")
			if err != nil {
				t.Fatal(err)
			}
			check(t, "value", tc.get(c), tc.want)
		})
	}
}

func TestStartupErrors(t *testing.T) {
	def := readFixture(t, "storage-conf-0.6-default.xml")
	rep := func(old, new string) string {
		if !strings.Contains(def, old) {
			t.Fatalf("fixture lacks %q", old)
		}
		return strings.Replace(def, old, new, 1)
	}
	const ks = "/Storage/Keyspaces/Keyspace[@Name='Keyspace1']"
	const cf1 = ks + "/ColumnFamily[@Name='Standard1']"
	periodic := "<CommitLogSyncPeriodInMS>10000</CommitLogSyncPeriodInMS>"
	start := strings.Index(def, "<Keyspaces>")
	end := strings.Index(def, "</Keyspaces>") + len("</Keyspaces>")
	noKeyspaces := def[:start] + "<Keyspaces><!-- none --></Keyspaces>" + def[end:]
	tests := []struct {
		name, xml, elem, msg string
	}{
		{"no partitioner", rep("<Partitioner>org.apache.cassandra.dht.RandomPartitioner</Partitioner>", ""),
			"/Storage/Partitioner", "Missing partitioner directive /Storage/Partitioner"},
		{"empty partitioner", rep("<Partitioner>org.apache.cassandra.dht.RandomPartitioner</Partitioner>", "<Partitioner></Partitioner>"),
			"/Storage/Partitioner", "Missing partitioner directive /Storage/Partitioner"},
		{"no seeds", rep("<Seed>127.0.0.1</Seed>", ""),
			"/Storage/Seeds", "A minimum of one seed is required."},
		{"empty seed", rep("<Seed>127.0.0.1</Seed>", "<Seed></Seed>"),
			"/Storage/Seeds/Seed[1]", "Seed must not be empty"},
		{"bad sync", rep("<CommitLogSync>periodic", "<CommitLogSync>Periodic"),
			"/Storage/CommitLogSync", "CommitLogSync must be either 'periodic' or 'batch'"},
		{"no sync", rep("<CommitLogSync>periodic</CommitLogSync>", ""),
			"/Storage/CommitLogSync", "Missing required directive CommitLogSync"},
		{"periodic without period", rep(periodic, ""),
			"/Storage/CommitLogSyncPeriodInMS", "Unrecognized value for CommitLogSyncPeriodInMS.  Integer expected."},
		{"periodic with bad period", rep(periodic, "<CommitLogSyncPeriodInMS>10s</CommitLogSyncPeriodInMS>"),
			"/Storage/CommitLogSyncPeriodInMS", "Unrecognized value for CommitLogSyncPeriodInMS.  Integer expected."},
		{"periodic with window", rep(periodic, periodic+"<CommitLogSyncBatchWindowInMS>1</CommitLogSyncBatchWindowInMS>"),
			"/Storage/CommitLogSyncBatchWindowInMS", "Periodic sync specified, but CommitLogSyncBatchWindowInMS found.  Only specify CommitLogSyncPeriodInMS when using periodic sync."},
		{"batch without window", rep("<CommitLogSync>periodic</CommitLogSync>", "<CommitLogSync>batch</CommitLogSync>"),
			"/Storage/CommitLogSyncBatchWindowInMS", "Unrecognized value for CommitLogSyncBatchWindowInMS.  Double expected."},
		{"batch with period", rep("<CommitLogSync>periodic</CommitLogSync>", "<CommitLogSync>batch</CommitLogSync><CommitLogSyncBatchWindowInMS>1.0</CommitLogSyncBatchWindowInMS>"),
			"/Storage/CommitLogSyncPeriodInMS", "Batch sync specified, but CommitLogSyncPeriodInMS found.  Only specify CommitLogSyncBatchWindowInMS when using batch sync."},
		{"no disk access mode", rep("<DiskAccessMode>auto</DiskAccessMode>", ""),
			"/Storage/DiskAccessMode", "Missing required directive DiskAccessMode"},
		{"bad disk access mode", rep("<DiskAccessMode>auto", "<DiskAccessMode>Auto"),
			"/Storage/DiskAccessMode", "DiskAccessMode must be either 'auto', 'mmap', 'mmap_index_only', or 'standard'"},
		{"no saved caches", rep("<SavedCachesDirectory>/var/lib/cassandra/saved_caches</SavedCachesDirectory>", ""),
			"/Storage/SavedCachesDirectory", "SavedCachesDirectory must be specified"},
		{"no commit log", rep("<CommitLogDirectory>/var/lib/cassandra/commitlog</CommitLogDirectory>", ""),
			"/Storage/CommitLogDirectory", "CommitLogDirectory must be specified"},
		{"no data directory", rep("<DataFileDirectory>/var/lib/cassandra/data</DataFileDirectory>", ""),
			"/Storage/DataFileDirectories", "At least one DataFileDirectory must be specified"},
		{"empty data directory", rep("<DataFileDirectory>/var/lib/cassandra/data</DataFileDirectory>", "<DataFileDirectory/>"),
			"/Storage/DataFileDirectories/DataFileDirectory[1]", "DataFileDirectory must not be empty"},
		{"commit log is a data directory", rep("<DataFileDirectory>/var/lib/cassandra/data</DataFileDirectory>",
			"<DataFileDirectory>/var/lib/cassandra/data</DataFileDirectory><DataFileDirectory>/var/lib/cassandra/commitlog</DataFileDirectory>"),
			"/Storage/CommitLogDirectory", "CommitLogDirectory must not be the same as any DataFileDirectory"},
		{"no cluster name", rep("<ClusterName>Test Cluster</ClusterName>", ""),
			"/Storage/ClusterName", "Missing required directive ClusterName"},
		{"bad auto bootstrap", rep("<AutoBootstrap>false", "<AutoBootstrap>no"),
			"/Storage/AutoBootstrap", "Unrecognized value for AutoBootstrap.  Use 'true' or 'false'."},
		{"bad framed", rep("<ThriftFramedTransport>false", "<ThriftFramedTransport>0"),
			"/Storage/ThriftFramedTransport", "Unrecognized value for ThriftFramedTransport.  Use 'true' or 'false'."},
		{"bad hinted handoff", rep("<HintedHandoffEnabled>true", "<HintedHandoffEnabled>yes"),
			"/Storage/HintedHandoffEnabled", "Unrecognized value for HintedHandoff.  Use 'true' or 'false'."},
		{"bad snapshot", rep("</Storage>", "<SnapshotBeforeCompaction>1</SnapshotBeforeCompaction></Storage>"),
			"/Storage/SnapshotBeforeCompaction", "Unrecognized value for SnapshotBeforeCompaction.  Use 'true' or 'false'."},
		{"phi too low", rep("</Storage>", "<PhiConvictThreshold>4</PhiConvictThreshold></Storage>"),
			"/Storage/PhiConvictThreshold", "PhiConvictThreshold must be between 5 and 16"},
		{"phi too high", rep("</Storage>", "<PhiConvictThreshold>17</PhiConvictThreshold></Storage>"),
			"/Storage/PhiConvictThreshold", "PhiConvictThreshold must be between 5 and 16"},
		{"one reader", rep("<ConcurrentReads>8", "<ConcurrentReads>1"),
			"/Storage/ConcurrentReads", "ConcurrentReads must be at least 2"},
		{"one writer", rep("<ConcurrentWrites>32", "<ConcurrentWrites>1"),
			"/Storage/ConcurrentWrites", "ConcurrentWrites must be at least 2"},
		{"index interval zero", rep("<IndexInterval>128", "<IndexInterval>0"),
			"/Storage/IndexInterval", "Index Interval must be a positive, non-zero integer."},
		{"memtable operations zero", rep("<MemtableOperationsInMillions>0.3", "<MemtableOperationsInMillions>0"),
			"/Storage/MemtableOperationsInMillions", "Memtable object count must be a positive double"},
		{"row warning zero", rep("<RowWarningThresholdInMB>64", "<RowWarningThresholdInMB>0"),
			"/Storage/RowWarningThresholdInMB", "Row warning threshold must be a positive integer"},
		// 2^44 MB is 2^64 bytes, which wraps to 0 in a Java long.
		{"row warning wraps", rep("<RowWarningThresholdInMB>64", "<RowWarningThresholdInMB>17592186044416"),
			"/Storage/RowWarningThresholdInMB", "Row warning threshold must be a positive integer"},
		{"listen on any", rep("<ListenAddress>localhost", "<ListenAddress>0.0.0.0"),
			"/Storage/ListenAddress", "ListenAddress must be a single interface.  See http://wiki.apache.org/cassandra/FAQ#cant_listen_on_ip_any"},
		{"bad port", rep("<ThriftPort>9160", "<ThriftPort> 9160"),
			"/Storage/ThriftPort", `For input string: " 9160"`},
		{"int overflow", rep("<StoragePort>7000", "<StoragePort>2147483648"),
			"/Storage/StoragePort", `For input string: "2147483648"`},
		{"bad double", rep("<FlushDataBufferSizeInMB>32", "<FlushDataBufferSizeInMB>32MB"),
			"/Storage/FlushDataBufferSizeInMB", `For input string: "32MB"`},
		{"blank double", rep("<FlushIndexBufferSizeInMB>8", "<FlushIndexBufferSizeInMB> "),
			"/Storage/FlushIndexBufferSizeInMB", "empty String"},
		{"bad gc grace", rep("<GCGraceSeconds>864000", "<GCGraceSeconds>10 days"),
			"/Storage/GCGraceSeconds", `For input string: "10 days"`},
		{"no keyspaces", noKeyspaces, "/Storage/Keyspaces", "No keyspaces configured"},
		{"no Keyspaces element", def[:start] + def[end:], "/Storage/Keyspaces", "No keyspaces configured"},
		{"keyspace without name", rep(`<Keyspace Name="Keyspace1">`, `<Keyspace>`),
			"/Storage/Keyspaces/Keyspace[1]", "Table name attribute is required"},
		{"system keyspace", rep(`<Keyspace Name="Keyspace1">`, `<Keyspace Name="SYSTEM">`),
			"/Storage/Keyspaces/Keyspace[@Name='SYSTEM']", "'system' is a reserved table name for Cassandra internals"},
		{"no strategy", rep("<ReplicaPlacementStrategy>org.apache.cassandra.locator.RackUnawareStrategy</ReplicaPlacementStrategy>", ""),
			ks + "/ReplicaPlacementStrategy", "Missing replicaplacementstrategy directive for Keyspace1"},
		{"no replication factor", rep("<ReplicationFactor>1</ReplicationFactor>", ""),
			ks + "/ReplicationFactor", "Missing replicationfactor directory for keyspace Keyspace1"},
		{"bad replication factor", rep("<ReplicationFactor>1</ReplicationFactor>", "<ReplicationFactor>one</ReplicationFactor>"),
			ks + "/ReplicationFactor", `For input string: "one"`},
		{"no snitch", rep("<EndPointSnitch>org.apache.cassandra.locator.EndPointSnitch</EndPointSnitch>", ""),
			ks + "/EndPointSnitch", "Missing endpointsnitch directive for keyspace Keyspace1"},
		{"hyphen", rep(`Name="Standard1"`, `Name="Standard-1"`),
			ks + "/ColumnFamily[@Name='Standard-1']", "ColumnFamily names cannot contain hyphens"},
		{"CF without name", rep(`<ColumnFamily Name="Standard1"`, `<ColumnFamily`),
			ks + "/ColumnFamily[1]", "ColumnFamily name attribute is required"},
		{"bad column type", rep(`ColumnType="Super"`, `ColumnType="super"`),
			ks + "/ColumnFamily[@Name='Super1']/@ColumnType", "ColumnFamily Super1 has invalid type super"},
		{"column sort", rep(`<ColumnFamily Name="Standard1"`, `<ColumnFamily Name="Standard1" ColumnSort="Name"`),
			cf1 + "/@ColumnSort", "ColumnSort is no longer an accepted attribute.  Use CompareWith instead."},
		{"subcolumns on standard", rep(`<ColumnFamily Name="Standard1"`, `<ColumnFamily Name="Standard1" CompareSubcolumnsWith="BytesType"`),
			cf1 + "/@CompareSubcolumnsWith", "CompareSubcolumnsWith is only a valid attribute on super columnfamilies (not regular columnfamily Standard1)"},
		{"bad keys cached", rep(`KeysCached="1000"`, `KeysCached="lots"`),
			cf1 + "/@KeysCached", `For input string: "lots"`},
		{"bad rows cached percent", rep(`RowsCached="100"`, `RowsCached="10%%"`),
			cf1 + "/@RowsCached", `For input string: "10%"`},
		{"bad save period", rep(`KeyCacheSavePeriodInSeconds="3600"`, `KeyCacheSavePeriodInSeconds="1h"`),
			cf1 + "/@KeyCacheSavePeriodInSeconds", `For input string: "1h"`},
		{"duplicate CF", rep(`<ColumnFamily Name="Standard2"`, `<ColumnFamily Name="Standard1"`),
			cf1, "ColumnFamily Standard1 is defined more than once in this keyspace"},
		{"duplicate keyspace", rep("</Keyspaces>", `<Keyspace Name="Keyspace1"/></Keyspaces>`),
			ks, "Keyspace Keyspace1 is defined more than once"},
		{"bad max message", rep("</Storage>", "<ThriftMaxMessageLengthInMB>0</ThriftMaxMessageLengthInMB></Storage>"),
			"/Storage/ThriftMaxMessageLengthInMB", "ThriftMaxMessageLengthInMB must be a positive integer"},
		{"negative max connections", rep("</Storage>", "<ThriftMaxConnections>-1</ThriftMaxConnections></Storage>"),
			"/Storage/ThriftMaxConnections", "ThriftMaxConnections must be 0 or more"},
		{"bad idle timeout", rep("</Storage>", "<ThriftIdleTimeoutInSeconds>1m</ThriftIdleTimeoutInSeconds></Storage>"),
			"/Storage/ThriftIdleTimeoutInSeconds", `For input string: "1m"`},
		{"negative request timeout", rep("</Storage>", "<ThriftRequestTimeoutInSeconds>-5</ThriftRequestTimeoutInSeconds></Storage>"),
			"/Storage/ThriftRequestTimeoutInSeconds", "ThriftRequestTimeoutInSeconds must be 0 or more"},
		{"wrong root", strings.Replace(strings.Replace(def, "<Storage>", "<storage>", 1), "</Storage>", "</storage>", 1),
			"/storage", "the document element must be <Storage>"},
		// 0.6 checks in its own order: CommitLogSync before the partitioner.
		{"first error in 0.6's order", rep("<CommitLogSync>periodic", "<CommitLogSync>x"),
			"/Storage/CommitLogSync", "CommitLogSync must be either 'periodic' or 'batch'"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.xml), "conf/storage-conf.xml")
			if err == nil {
				t.Fatal("Parse succeeded")
			}
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("error %T %v is not *Error", err, err)
			}
			check(t, "File", ce.File, "conf/storage-conf.xml")
			check(t, "Element", ce.Element, tc.elem)
			check(t, "Msg", ce.Msg, tc.msg)
			want := "conf/storage-conf.xml: " + tc.elem + ": " + tc.msg
			check(t, "Error()", err.Error(), want)
		})
	}
}

func TestMalformedXML(t *testing.T) {
	for _, doc := range []string{
		"",
		"not xml",
		"<Storage>",
		"<Storage></Storge>",
		"<Storage><ClusterName>x</Storage>",
		"<Storage></Storage><Storage></Storage>",
		"<Storage></Storage>trailing",
		`<Storage><Keyspaces><Keyspace Name="a" Name="b"/></Keyspaces></Storage>`,
		"<Storage>&nosuchentity;</Storage>",
		`<?xml version="1.0" encoding="EBCDIC"?><Storage/>`,
	} {
		_, err := Parse([]byte(doc), "f.xml")
		var ce *Error
		if !errors.As(err, &ce) || ce.File != "f.xml" || ce.Element != "" || !strings.HasPrefix(ce.Msg, "malformed XML: ") {
			t.Errorf("Parse(%q) = %v, want a malformed XML *Error naming f.xml", doc, err)
		}
	}
}

func TestLoadMissingFile(t *testing.T) {
	path := t.TempDir() + "/nope.xml"
	_, err := Load(path)
	var ce *Error
	if !errors.As(err, &ce) || ce.File != path || !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("Load = %v, want *Error naming %s wrapping ErrNotExist", err, path)
	}
	if !strings.HasPrefix(err.Error(), path+": ") {
		t.Errorf("error %q does not start with the path", err)
	}
}

func TestBuiltinHasNoKeyspace(t *testing.T) {
	c := Builtin()
	check(t, "Keyspaces", len(c.Keyspaces), 0)
	check(t, "ClusterName", c.ClusterName, "Test Cluster")
	check(t, "Partitioner", c.Partitioner, "org.apache.cassandra.dht.RandomPartitioner")
	if _, err := Parse([]byte(builtinText), "x"); err == nil {
		t.Error("0.6's Parse accepted a file without keyspaces")
	}
}
