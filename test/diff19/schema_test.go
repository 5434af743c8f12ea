package diff19

import (
	"bytes"
	"sort"
	"strings"
	"testing"

	"github.com/apache/thrift/lib/go/thrift"

	c19 "github.com/thriftd/thriftd/gen-go/cassandra19"
)

func normRing(v any) any {
	ranges := v.([]*c19.TokenRange)
	for _, r := range ranges {
		r.StartToken, r.EndToken = "TOKEN", "TOKEN"
		for i := range r.Endpoints {
			r.Endpoints[i] = "ADDRESS"
		}
		for i := range r.RPCEndpoints {
			r.RPCEndpoints[i] = "ADDRESS"
		}
		for _, e := range r.EndpointDetails {
			e.Host = "ADDRESS"
		}
	}
	return ranges
}

func normTokenMap(v any) any {
	m := v.(map[string]string)
	return len(m)
}

func normSchemaVersions(v any) any {
	m := v.(map[string][]string)
	var out []int
	for _, hosts := range m {
		out = append(out, len(hosts))
	}
	sort.Ints(out)
	return out
}

// normKsDef leaves out what the two servers may number differently, the
// column families' ids, and puts the families and their column
// definitions in name order: 1.2.19 lists both in the order of its hash
// maps.
func normKsDef(v any) any {
	ks := v.(*c19.KsDef)
	if ks == nil {
		return ks
	}
	sort.Slice(ks.CfDefs, func(i, j int) bool { return ks.CfDefs[i].Name < ks.CfDefs[j].Name })
	for _, cf := range ks.CfDefs {
		cf.ID = nil
		sort.Slice(cf.ColumnMetadata, func(i, j int) bool {
			return bytes.Compare(cf.ColumnMetadata[i].Name, cf.ColumnMetadata[j].Name) < 0
		})
	}
	return ks
}

func (d *diff) describe(t *testing.T) {
	d.call("describe_keyspace", normKsDef, func(c *client) (any, error) { return c.DescribeKeyspace(ctx, d.ks) })
	d.call("describe_keyspace of an unknown keyspace", nil, func(c *client) (any, error) {
		return c.DescribeKeyspace(ctx, "NoSuchKeyspace")
	})
	d.call("describe_keyspaces (the test keyspace)", normKsDef, func(c *client) (any, error) {
		kss, err := c.DescribeKeyspaces(ctx)
		for _, ks := range kss {
			if ks.Name == d.ks {
				return ks, err
			}
		}
		return nil, err
	})
	d.call("describe_ring", normRing, func(c *client) (any, error) { return c.DescribeRing(ctx, d.ks) })
	d.call("describe_ring of an unknown keyspace", nil, func(c *client) (any, error) { return c.DescribeRing(ctx, "NoSuchKeyspace") })
	d.call("describe_local_ring", normRing, func(c *client) (any, error) { return c.DescribeLocalRing(ctx, d.ks) })
	d.call("describe_token_map", normTokenMap, func(c *client) (any, error) { return c.DescribeTokenMap(ctx) })
	d.call("describe_partitioner", nil, func(c *client) (any, error) { return c.DescribePartitioner(ctx) })
	d.call("describe_snitch", nil, func(c *client) (any, error) { return c.DescribeSnitch(ctx) })
	d.call("describe_schema_versions", normSchemaVersions, func(c *client) (any, error) { return c.DescribeSchemaVersions(ctx) })
	d.call("describe_cluster_name", func(v any) any { return v.(string) != "" }, func(c *client) (any, error) {
		return c.DescribeClusterName(ctx)
	})
	d.call("describe_splits of the whole ring", nil, func(c *client) (any, error) {
		return c.DescribeSplits(ctx, "Ranges", "0", "0", 128)
	})
	d.call("describe_splits_ex of the whole ring", nil, func(c *client) (any, error) {
		return c.DescribeSplitsEx(ctx, "Ranges", "0", "0", 128)
	})
	d.call("describe_splits_ex of a part of the ring", nil, func(c *client) (any, error) {
		return c.DescribeSplitsEx(ctx, "Ranges", "0", "85070591730234615865843651857942052864", 5)
	})
	d.call("describe_splits with keys_per_split 0", nil, func(c *client) (any, error) {
		return c.DescribeSplits(ctx, "Ranges", "0", "0", 0)
	})
	d.call("describe_splits of an unknown family", nil, func(c *client) (any, error) {
		return c.DescribeSplits(ctx, "Nope", "0", "0", 128)
	})
	d.call("describe_splits_ex of an unknown family", nil, func(c *client) (any, error) {
		return c.DescribeSplitsEx(ctx, "Nope", "0", "0", 128)
	})
}

// ---- the system_* calls -----------------------------------------------------

func (d *diff) schema(t *testing.T) {
	cf := func(ks, name, cmp string) *c19.CfDef {
		def := c19.NewCfDef()
		def.Keyspace, def.Name, def.ComparatorType = ks, name, cmp
		return def
	}
	ks := func(name string, cfs ...*c19.CfDef) *c19.KsDef {
		def := c19.NewKsDef()
		def.Name, def.StrategyClass, def.StrategyOptions = name, "SimpleStrategy", map[string]string{"replication_factor": "1"}
		def.CfDefs = append([]*c19.CfDef{}, cfs...)
		return def
	}
	add := func(label string, def *c19.KsDef) {
		d.call("system_add_keyspace "+label, nil, func(c *client) (any, error) { return c.SystemAddKeyspace(ctx, def) })
	}
	add("named system", ks("system"))
	add("whose name exists in another case", ks(strings.ToLower(d.ks)))
	add("with a bad name", ks("bad-name"))
	add("with a 49-character name", ks(strings.Repeat("k", 49)))
	add("with an empty name", ks(""))
	add("whose family names another keyspace", ks("DiffOther", cf("Elsewhere", "F", "BytesType")))
	bad := ks("DiffBadStrategy")
	bad.StrategyClass = "NoSuchStrategy"
	add("with an unknown strategy", bad)
	add("with a family of an unknown comparator", ks("DiffBadCmp", cf("DiffBadCmp", "F", "NoSuchType")))
	add("with a family of a bad name", ks("DiffBadCf", cf("DiffBadCf", "bad name", "BytesType")))
	d.call("system_add_column_family with an unknown comparator", nil, func(c *client) (any, error) {
		return c.SystemAddColumnFamily(ctx, cf(d.ks, "F", "NoSuchType"))
	})
	d.call("system_add_column_family of an existing family", nil, func(c *client) (any, error) {
		return c.SystemAddColumnFamily(ctx, cf(d.ks, "Std", "BytesType"))
	})
	d.call("system_add_column_family to an unknown keyspace", nil, func(c *client) (any, error) {
		return c.SystemAddColumnFamily(ctx, cf("NoSuchKeyspace", "F", "BytesType"))
	})
	d.call("system_add_column_family with a bad name", nil, func(c *client) (any, error) {
		return c.SystemAddColumnFamily(ctx, cf(d.ks, "a-b", "BytesType"))
	})
	d.call("system_add_column_family with a subcomparator on a standard family", nil, func(c *client) (any, error) {
		def := cf(d.ks, "F", "BytesType")
		def.SubcomparatorType = thrift.StringPtr("BytesType")
		return c.SystemAddColumnFamily(ctx, def)
	})
	d.call("system_drop_keyspace of an unknown keyspace", nil, func(c *client) (any, error) {
		return c.SystemDropKeyspace(ctx, "NoSuchKeyspace")
	})
	d.call("system_drop_keyspace system", nil, func(c *client) (any, error) { return c.SystemDropKeyspace(ctx, "system") })
	d.call("system_drop_column_family of an unknown family", nil, func(c *client) (any, error) {
		return c.SystemDropColumnFamily(ctx, "Nope")
	})
	d.call("system_update_column_family of an unknown family", nil, func(c *client) (any, error) {
		return c.SystemUpdateColumnFamily(ctx, cf(d.ks, "Nope", "BytesType"))
	})
	d.call("system_update_column_family changing the comparator", nil, func(c *client) (any, error) {
		return c.SystemUpdateColumnFamily(ctx, cf(d.ks, "Std", "UTF8Type"))
	})
	d.call("system_update_keyspace with families", nil, func(c *client) (any, error) {
		return c.SystemUpdateKeyspace(ctx, ks(d.ks, cf(d.ks, "Std", "BytesType")))
	})
	d.call("system_update_keyspace of an unknown keyspace", nil, func(c *client) (any, error) {
		return c.SystemUpdateKeyspace(ctx, ks("NoSuchKeyspace"))
	})
	version := func(v any) any { return len(v.(string)) == 36 }
	d.call("system_add_column_family", version, func(c *client) (any, error) {
		def := cf(d.ks, "Added", "UTF8Type")
		def.Comment = thrift.StringPtr("added at run time")
		return c.SystemAddColumnFamily(ctx, def)
	})
	d.call("insert into an added family", nil, func(c *client) (any, error) {
		return void(c.Insert(ctx, []byte("k"), parent("Added"), col("a", "v"), one))
	})
	d.call("get_slice of an added family", nil, func(c *client) (any, error) {
		return c.GetSlice(ctx, []byte("k"), parent("Added"), slice("", "", false, 10), one)
	})
	d.call("system_update_column_family", version, func(c *client) (any, error) {
		def := cf(d.ks, "Added", "UTF8Type")
		def.Comment = thrift.StringPtr("changed")
		def.GcGraceSeconds = thrift.Int32Ptr(3600)
		return c.SystemUpdateColumnFamily(ctx, def)
	})
	d.call("describe_keyspace after changes", normKsDef, func(c *client) (any, error) { return c.DescribeKeyspace(ctx, d.ks) })
	d.call("system_drop_column_family", version, func(c *client) (any, error) { return c.SystemDropColumnFamily(ctx, "Added") })
	d.call("get_slice of a dropped family", nil, func(c *client) (any, error) {
		return c.GetSlice(ctx, []byte("k"), parent("Added"), slice("", "", false, 10), one)
	})
	other := d.ks + "_b"
	d.call("system_add_keyspace", version, func(c *client) (any, error) {
		return c.SystemAddKeyspace(ctx, ks(other, cf(other, "F", "LongType")))
	})
	d.call("describe_keyspace of an added keyspace", normKsDef, func(c *client) (any, error) { return c.DescribeKeyspace(ctx, other) })
	d.call("system_update_keyspace", version, func(c *client) (any, error) {
		def := ks(other)
		def.DurableWrites = false
		return c.SystemUpdateKeyspace(ctx, def)
	})
	d.call("describe_keyspace of an updated keyspace", normKsDef, func(c *client) (any, error) { return c.DescribeKeyspace(ctx, other) })
	d.call("system_drop_keyspace", version, func(c *client) (any, error) { return c.SystemDropKeyspace(ctx, other) })
	d.call("describe_keyspace of a dropped keyspace", nil, func(c *client) (any, error) { return c.DescribeKeyspace(ctx, other) })
	// Every property a 1.2 client could set, described back.
	full := cf(d.ks, "Full", "CompositeType(UTF8Type,LongType)")
	full.Comment = thrift.StringPtr("every property")
	full.ReadRepairChance = thrift.Float64Ptr(0.5)
	full.DclocalReadRepairChance = 0.25
	full.GcGraceSeconds = thrift.Int32Ptr(100)
	full.DefaultValidationClass = thrift.StringPtr("UTF8Type")
	full.KeyValidationClass = thrift.StringPtr("Int32Type")
	full.MinCompactionThreshold = thrift.Int32Ptr(2)
	full.MaxCompactionThreshold = thrift.Int32Ptr(10)
	full.CompactionStrategy = thrift.StringPtr("LeveledCompactionStrategy")
	full.CompactionStrategyOptions = map[string]string{"sstable_size_in_mb": "10"}
	full.CompressionOptions = map[string]string{"sstable_compression": "DeflateCompressor", "chunk_length_kb": "32"}
	full.BloomFilterFpChance = thrift.Float64Ptr(0.05)
	full.Caching = "ALL"
	full.PopulateIoCacheOnFlush = thrift.BoolPtr(true)
	full.MemtableFlushPeriodInMs = thrift.Int32Ptr(60000)
	full.ReplicateOnWrite = thrift.BoolPtr(false)
	full.ColumnMetadata = []*c19.ColumnDef{{Name: composite([]byte("a"), long(1)), ValidationClass: "LongType"}}
	d.call("system_add_column_family with every property", version, func(c *client) (any, error) {
		return c.SystemAddColumnFamily(ctx, full)
	})
	d.call("describe_keyspace with every property", normKsDef, func(c *client) (any, error) { return c.DescribeKeyspace(ctx, d.ks) })
	d.call("system_update_column_family adding a column definition", version, func(c *client) (any, error) {
		full.ColumnMetadata = append(full.ColumnMetadata, &c19.ColumnDef{Name: composite([]byte("b"), long(2)), ValidationClass: "UTF8Type"})
		full.Comment = thrift.StringPtr("updated")
		return c.SystemUpdateColumnFamily(ctx, full)
	})
	d.call("describe_keyspace after an update", normKsDef, func(c *client) (any, error) { return c.DescribeKeyspace(ctx, d.ks) })
	d.call("system_add_column_family with an index on a bad name", nil, func(c *client) (any, error) {
		def := cf(d.ks, "Indexed", "LongType")
		def.ColumnMetadata = []*c19.ColumnDef{{Name: []byte("x"), ValidationClass: "BytesType"}}
		return c.SystemAddColumnFamily(ctx, def)
	})
	d.call("system_add_column_family with an index name but no type", nil, func(c *client) (any, error) {
		def := cf(d.ks, "Indexed", "UTF8Type")
		def.ColumnMetadata = []*c19.ColumnDef{{Name: []byte("x"), ValidationClass: "BytesType", IndexName: thrift.StringPtr("ix")}}
		return c.SystemAddColumnFamily(ctx, def)
	})
	d.call("system_add_column_family with a bad compaction strategy", nil, func(c *client) (any, error) {
		def := cf(d.ks, "BadCompaction", "UTF8Type")
		def.CompactionStrategy = thrift.StringPtr("NoSuchStrategy")
		return c.SystemAddColumnFamily(ctx, def)
	})
	d.call("system_add_column_family with min threshold above max", nil, func(c *client) (any, error) {
		def := cf(d.ks, "BadThresholds", "UTF8Type")
		def.MinCompactionThreshold = thrift.Int32Ptr(40)
		def.MaxCompactionThreshold = thrift.Int32Ptr(10)
		return c.SystemAddColumnFamily(ctx, def)
	})
	counters := cf(d.ks, "Counters", "UTF8Type")
	counters.DefaultValidationClass = thrift.StringPtr("CounterColumnType")
	d.call("system_add_column_family of counters", version, func(c *client) (any, error) {
		return c.SystemAddColumnFamily(ctx, counters)
	})
	d.call("insert into a counter family", nil, func(c *client) (any, error) {
		return void(c.Insert(ctx, []byte("k"), parent("Counters"), col("a", "v"), one))
	})
	d.call("batch_mutate of a column into a counter family", nil, func(c *client) (any, error) {
		return void(c.BatchMutate(ctx, map[string]map[string][]*c19.Mutation{"k": {"Counters": {ins(col("a", "v"))}}}, one))
	})
	d.call("remove from a counter family", nil, func(c *client) (any, error) {
		return void(c.Remove(ctx, []byte("k"), path("Counters", "a"), *ts(), one))
	})
	d.call("get_slice of a counter family", nil, func(c *client) (any, error) {
		return c.GetSlice(ctx, []byte("k"), parent("Counters"), slice("", "", false, 10), one)
	})
	d.call("add to a standard family", nil, func(c *client) (any, error) {
		return void(c.Add(ctx, []byte("k"), parent("Std"), &c19.CounterColumn{Name: []byte("c"), Value: 1}, one))
	})
	d.call("remove_counter of a standard family", nil, func(c *client) (any, error) {
		return void(c.RemoveCounter(ctx, []byte("k"), path("Std", "c"), one))
	})
	d.call("add to a counter family", nil, func(c *client) (any, error) {
		return void(c.Add(ctx, []byte("k"), parent("Counters"), &c19.CounterColumn{Name: []byte("c"), Value: 1}, one))
	})
	d.call("add to an unknown family", nil, func(c *client) (any, error) {
		return void(c.Add(ctx, []byte("k"), parent("Nope"), &c19.CounterColumn{Name: []byte("c"), Value: 1}, one))
	})
	nts := d.ks + "_n"
	d.call("system_add_keyspace with NetworkTopologyStrategy", version, func(c *client) (any, error) {
		def := ks(nts, cf(nts, "F", "UTF8Type"))
		def.StrategyClass = "NetworkTopologyStrategy"
		def.StrategyOptions = map[string]string{"datacenter1": "1"}
		return c.SystemAddKeyspace(ctx, def)
	})
	d.call("describe_keyspace of a NetworkTopologyStrategy keyspace", normKsDef, func(c *client) (any, error) {
		return c.DescribeKeyspace(ctx, nts)
	})
	d.call("system_drop_keyspace with NetworkTopologyStrategy", version, func(c *client) (any, error) {
		return c.SystemDropKeyspace(ctx, nts)
	})
	d.fresh()
	d.call("add before set_keyspace", nil, func(c *client) (any, error) {
		return void(c.Add(ctx, []byte("k"), parent("Std"), &c19.CounterColumn{Name: []byte("c"), Value: 1}, one))
	})
	d.call("system_add_column_family before set_keyspace", nil, func(c *client) (any, error) {
		return c.SystemAddColumnFamily(ctx, cf(d.ks, "F", "BytesType"))
	})
	d.call("system_drop_column_family before set_keyspace", nil, func(c *client) (any, error) {
		return c.SystemDropColumnFamily(ctx, "Std")
	})
	d.setKeyspace(d.ks)
}
