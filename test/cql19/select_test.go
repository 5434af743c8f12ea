package cql19

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"

	c19 "github.com/thriftd/thriftd/gen-go/cassandra19"
	"github.com/thriftd/thriftd/internal/testenv"
)

func strp(s string) *string   { return &s }
func f64p(f float64) *float64 { return &f }
func i32p(n int32) *int32     { return &n }

// schemaKeyspace is the keyspace both servers get through
// system_add_keyspace: families of each kind and with most properties set.
func schemaKeyspace(ks string) *c19.KsDef {
	keys := c19.IndexType_KEYS
	return &c19.KsDef{
		Name: ks, StrategyClass: "org.apache.cassandra.locator.SimpleStrategy",
		StrategyOptions: map[string]string{"replication_factor": "1"},
		CfDefs: []*c19.CfDef{
			{Keyspace: ks, Name: "Std", ColumnType: "Standard", SpeculativeRetry: "NONE", CellsPerRowToCache: "100", Caching: "KEYS_ONLY", ComparatorType: "UTF8Type", Comment: strp(`a "comment" <with> & more`),
				ColumnMetadata: []*c19.ColumnDef{{Name: []byte("name"), ValidationClass: "UTF8Type", IndexType: &keys, IndexName: strp(ks + "_by_name")}}},
			{Keyspace: ks, Name: "Sup", ColumnType: "Super", SpeculativeRetry: "NONE", CellsPerRowToCache: "100", Caching: "KEYS_ONLY", ComparatorType: "LongType", SubcomparatorType: strp("UTF8Type"),
				DefaultValidationClass: strp("UTF8Type"), KeyValidationClass: strp("LongType"),
				ColumnMetadata: []*c19.ColumnDef{{Name: []byte("age"), ValidationClass: "LongType"}}},
			{Keyspace: ks, Name: "Typed", ColumnType: "Standard", SpeculativeRetry: "NONE", CellsPerRowToCache: "100", ComparatorType: "CompositeType(UTF8Type,IntegerType)", ReadRepairChance: f64p(0.5),
				DclocalReadRepairChance: 0.25, GcGraceSeconds: i32p(3600), MinCompactionThreshold: i32p(2), MaxCompactionThreshold: i32p(20),
				BloomFilterFpChance: f64p(0.05), Caching: "ALL", CompactionStrategy: strp("LeveledCompactionStrategy"),
				CompactionStrategyOptions: map[string]string{"sstable_size_in_mb": "10"},
				CompressionOptions:        map[string]string{"sstable_compression": "org.apache.cassandra.io.compress.DeflateCompressor", "chunk_length_kb": "128"}},
			{Keyspace: ks, Name: "Bytes", ColumnType: "Standard", SpeculativeRetry: "NONE", CellsPerRowToCache: "100", Caching: "KEYS_ONLY", ComparatorType: "BytesType", CompressionOptions: map[string]string{},
				ColumnMetadata: []*c19.ColumnDef{{Name: []byte{0xca, 0xfe}, ValidationClass: "Int32Type"}}},
			{Keyspace: ks, Name: "Counts", ColumnType: "Standard", SpeculativeRetry: "NONE", CellsPerRowToCache: "100", Caching: "KEYS_ONLY", DefaultValidationClass: strp("CounterColumnType")},
		},
	}
}

// selectResult is a CqlResult made comparable: rows of the test's
// keyspace only (the system keyspaces of each server differ), and JSON
// values parsed (1.2.19 wrote maps in a Java HashMap's order).
type selectResult struct {
	Type   c19.CqlResultType
	Schema *c19.CqlMetadata
	Rows   []string
}

func normSelect(r *c19.CqlResult_, ks string) selectResult {
	out := selectResult{Type: r.Type, Schema: r.Schema}
	for _, row := range r.Rows {
		var cells []string
		mine := true
		for _, c := range row.Columns {
			name := string(c.Name)
			if name == "keyspace_name" && string(c.Value) != ks {
				mine = false
			}
			v := fmt.Sprintf("%q", c.Value)
			if c.Value == nil {
				v = "null"
			} else if j := c.Value; len(j) > 0 && (j[0] == '{' || j[0] == '[') {
				var parsed any
				if err := json.Unmarshal(j, &parsed); err == nil {
					b, _ := json.Marshal(parsed) // sorted keys
					v = "json:" + string(b)
				}
			}
			ts := "no timestamp"
			if c.Timestamp != nil || c.TTL != nil {
				ts = "timestamp or ttl"
			}
			cells = append(cells, fmt.Sprintf("%s=%s (%s)", name, strings.ReplaceAll(v, ks, "KS"), ts))
		}
		if mine {
			out.Rows = append(out.Rows, fmt.Sprintf("key %q: %s", row.Key, strings.Join(cells, ", ")))
		}
	}
	return out
}

// The SELECTs Thrift clients of 1.2 send to learn the schema, answered by
// thriftd and by the real 1.2.19 from the same schema: the result's type,
// metadata and rows compared field by field.
func TestSchemaSelectsAsCassandra12(t *testing.T) {
	refAddr := testenv.Reference(t, "1.2", "random")
	thrAddr := startThriftd(t).Addr
	ks := uniqueName(t, "Cql_")
	dropLater(t, refAddr, ks)
	ref, thr := dial(t, refAddr), dial(t, thrAddr)
	for _, side := range []*testenv.Client19{ref, thr} {
		if _, err := side.SystemAddKeyspace(ctx, schemaKeyspace(ks)); err != nil {
			t.Fatalf("system_add_keyspace: %v", err)
		}
	}
	where := "WHERE keyspace_name = '" + ks + "'"
	queries := []string{
		"SELECT columnfamily_name, comparator, default_validator, key_validator FROM system.schema_columnfamilies WHERE keyspace_name='" + ks + "'",
		"SELECT * FROM system.schema_keyspaces",
		"SELECT * FROM system.schema_keyspaces " + where,
		"select keyspace_name, strategy_class, strategy_options, durable_writes from System.Schema_Keyspaces " + where + ";",
		"SELECT * FROM system.schema_columnfamilies",
		"SELECT * FROM system.schema_columnfamilies " + where,
		"SELECT * FROM system.schema_columnfamilies " + where + " AND columnfamily_name = 'Typed'",
		"SELECT * FROM system.schema_columnfamilies " + where + " AND columnfamily_name = 'NoSuchFamily'",
		"SELECT * FROM system.schema_columnfamilies WHERE keyspace_name = 'NoSuchKeyspace'",
		"SELECT * FROM system.schema_columns",
		"SELECT * FROM system.schema_columns " + where,
		"SELECT column_name, validator, index_type, index_name, index_options, component_index FROM system.schema_columns " + where + " AND columnfamily_name = 'Sup'",
		`SELECT "keyspace_name", "columnfamily_name" FROM "system"."schema_columns" ` + where + " AND columnfamily_name = 'Std' AND column_name = 'name'",
		"SELECT no_such_column FROM system.schema_keyspaces",
		"SELECT * FROM system.schema_columnfamilies " + where + " LIMIT 2",
		"SELECT * FROM system.schema_columnfamilies " + where + " LIMIT 0",
	}
	for _, q := range queries {
		refR, refErr := ref.ExecuteCql3Query(ctx, []byte(q), c19.Compression_NONE, c19.ConsistencyLevel_ONE)
		thrR, thrErr := thr.ExecuteCql3Query(ctx, []byte(q), c19.Compression_NONE, c19.ConsistencyLevel_ONE)
		if refErr != nil || thrErr != nil {
			r, _ := render(refR, refErr)
			h, _ := render(thrR, thrErr)
			if r != h {
				t.Errorf("%s:\n  1.2.19:  %s\n  thriftd: %s", q, r, h)
			}
			continue
		}
		r, h := normSelect(refR, ks), normSelect(thrR, ks)
		if len(r.Rows) == 0 && !strings.Contains(q, "NoSuch") {
			t.Errorf("%s: 1.2.19 answered no row of the test keyspace", q)
		}
		if !reflect.DeepEqual(r, h) {
			t.Errorf("%s differs", q)
			if !reflect.DeepEqual(r.Schema, h.Schema) || r.Type != h.Type || len(r.Rows) != len(h.Rows) {
				t.Errorf("  1.2.19:  %v %d rows %+v\n  thriftd: %v %d rows %+v", r.Type, len(r.Rows), r.Schema, h.Type, len(h.Rows), h.Schema)
			}
			for i := 0; i < len(r.Rows) && i < len(h.Rows); i++ {
				if r.Rows[i] != h.Rows[i] {
					t.Errorf("first differing row %d:\n  1.2.19:  %s\n  thriftd: %s", i, r.Rows[i], h.Rows[i])
					break
				}
			}
		}
	}
}

// step is one call of a sequence run on both servers.
type step struct {
	label string
	call  func(c *testenv.Client19) (any, error)
}

// set_cql_version and the CQL version checks of the execute calls, as
// 1.2.19 answers them.
func TestCQLVersionsAsCassandra12(t *testing.T) {
	refAddr := testenv.Reference(t, "1.2", "random")
	thrAddr := startThriftd(t).Addr
	ref, thr := dial(t, refAddr), dial(t, thrAddr)
	sel := []byte("SELECT keyspace_name FROM system.schema_keyspaces WHERE keyspace_name = 'NoSuchKeyspace'")
	var steps []step
	for _, v := range []string{"", "3", "3.0", "x.y.z", "1.0.0", "4.0.0", "3.0.6", "3.0.0-beta1", "3.0.0-beta2", "3.0.5+b", "2.0.1", "2.0.0", "3.0.0-rc1", "3.0.5"} {
		steps = append(steps, step{"set_cql_version " + v, func(c *testenv.Client19) (any, error) { return nil, c.SetCqlVersion(ctx, v) }})
	}
	steps = append(steps,
		step{"execute_cql3_query after 3.0.5", func(c *testenv.Client19) (any, error) {
			return c.ExecuteCql3Query(ctx, sel, c19.Compression_NONE, c19.ConsistencyLevel_ONE)
		}},
		step{"execute_cql_query after 3.0.5", func(c *testenv.Client19) (any, error) {
			return c.ExecuteCqlQuery(ctx, []byte("SELECT * FROM x"), c19.Compression_NONE)
		}},
		step{"prepare_cql_query after 3.0.5", func(c *testenv.Client19) (any, error) {
			return c.PrepareCqlQuery(ctx, []byte("SELECT * FROM x"), c19.Compression_NONE)
		}},
		step{"execute_prepared_cql_query after 3.0.5", func(c *testenv.Client19) (any, error) {
			return c.ExecutePreparedCqlQuery(ctx, 1, nil)
		}},
		step{"set_cql_version 2.0.0 again", func(c *testenv.Client19) (any, error) { return nil, c.SetCqlVersion(ctx, "2.0.0") }},
		step{"execute_cql3_query after 2.0.0", func(c *testenv.Client19) (any, error) {
			return c.ExecuteCql3Query(ctx, sel, c19.Compression_NONE, c19.ConsistencyLevel_ONE)
		}},
		step{"prepare_cql3_query after 2.0.0", func(c *testenv.Client19) (any, error) {
			return c.PrepareCql3Query(ctx, sel, c19.Compression_NONE)
		}},
		step{"execute_prepared_cql3_query after 2.0.0", func(c *testenv.Client19) (any, error) {
			return c.ExecutePreparedCql3Query(ctx, 1, nil, c19.ConsistencyLevel_ONE)
		}},
	)
	for _, s := range steps {
		r, _ := render(s.call(ref))
		h, _ := render(s.call(thr))
		if r != h {
			t.Errorf("%s:\n  1.2.19:  %s\n  thriftd: %s", s.label, r, h)
		}
	}
}

// What thriftd does not serve is refused, each time with the message that
// says what is served and where to send the rest, and the connection
// carries on.
func TestOtherCQLRefused(t *testing.T) {
	c := dial(t, startThriftd(t).Addr)
	const want = "thriftd answers over Thrift only CQL 3 SELECTs of system.schema_keyspaces, system.schema_columnfamilies and system.schema_columns"
	check := func(label string, err error) {
		t.Helper()
		ire, ok := err.(*c19.InvalidRequestException)
		if !ok || !strings.HasPrefix(ire.Why, want) || !strings.Contains(ire.Why, "native protocol port") {
			t.Errorf("%s: %v, want InvalidRequestException(%s...)", label, err, want)
		}
	}
	for _, q := range []string{
		"SELECT * FROM system.local",
		"SELECT * FROM Ks.Std",
		"INSERT INTO system.schema_keyspaces (keyspace_name) VALUES ('x')",
		"CREATE KEYSPACE k WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"SELECT * FROM system.schema_columnfamilies WHERE columnfamily_name = 'Std'",
		"SELECT * FROM system.schema_columnfamilies WHERE comparator = 'x'",
		"SELECT * FROM system.schema_keyspaces ALLOW FILTERING",
		"USE system",
		"",
		"\x00\x01garbage",
		"SELECT * FROM system.schema_keyspaces WHERE keyspace_name = 'unterminated",
	} {
		_, err := c.ExecuteCql3Query(ctx, []byte(q), c19.Compression_NONE, c19.ConsistencyLevel_ONE)
		check("execute_cql3_query "+q, err)
	}
	_, err := c.ExecuteCqlQuery(ctx, []byte("SELECT * FROM Std"), c19.Compression_NONE)
	check("execute_cql_query", err)
	_, err = c.PrepareCql3Query(ctx, []byte("SELECT * FROM system.schema_keyspaces"), c19.Compression_NONE)
	check("prepare_cql3_query", err)
	_, err = c.PrepareCqlQuery(ctx, []byte("SELECT * FROM Std"), c19.Compression_NONE)
	check("prepare_cql_query", err)
	_, err = c.ExecutePreparedCql3Query(ctx, 7, [][]byte{[]byte("v")}, c19.ConsistencyLevel_ONE)
	check("execute_prepared_cql3_query", err)
	_, err = c.ExecutePreparedCqlQuery(ctx, 7, nil)
	check("execute_prepared_cql_query", err)
	// A query compressed as the IDL's GZIP (a zlib stream) is read; a
	// broken stream is refused with 1.2.19's message.
	_, err = c.ExecuteCql3Query(ctx, []byte("not zlib"), c19.Compression_GZIP, c19.ConsistencyLevel_ONE)
	if ire, ok := err.(*c19.InvalidRequestException); !ok || ire.Why != "Error deflating query string." {
		t.Errorf("a broken GZIP query: %v", err)
	}
	r, err := c.ExecuteCql3Query(ctx, zlibOf(t, "SELECT keyspace_name FROM system.schema_keyspaces"), c19.Compression_GZIP, c19.ConsistencyLevel_ONE)
	if err != nil || r.Type != c19.CqlResultType_ROWS {
		t.Errorf("a GZIP query: %v, %v", r, err)
	}
	// The connection still serves.
	names := []string{}
	kss, err := c.DescribeKeyspaces(ctx)
	if err != nil {
		t.Fatalf("describe_keyspaces after the refusals: %v", err)
	}
	for _, k := range kss {
		names = append(names, k.Name)
	}
	sort.Strings(names)
	got := []string{}
	for _, row := range r.Rows {
		got = append(got, string(row.Columns[0].Value))
	}
	sort.Strings(got)
	if !reflect.DeepEqual(got, names) {
		t.Errorf("schema_keyspaces lists %q, describe_keyspaces %q", got, names)
	}
}
