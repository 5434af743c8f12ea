// Command record12 loads a keyspace into a real Cassandra 1.2 node for
// sstablejson/testdata/1.2/record.sh, which dumps its sstables with 1.2's
// own sstable2json (SSTableExport): the keyspace Dump12 with families of
// several types, composites, a super family, expiring columns, deleted
// columns, a deleted super column and a deleted row; with -counters the
// keyspace Counters12 of counter families. It writes into -out
// schema.json (the KsDef) and expected.json (every live column as the
// node answers it through Thrift), and with -drop drops the keyspace.
package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"math"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/apache/thrift/lib/go/thrift"

	"github.com/thriftd/thriftd/gen-go/cassandra19"
	"github.com/thriftd/thriftd/internal/transfertest"
)

// Keyspace is the keyspace record12 loads.
const Keyspace = "Dump12"

// CounterKeyspace is the keyspace record12 -counters loads: counter
// families, standard and super.
const CounterKeyspace = "Counters12"

// Cell is one live column of expected.json.
type Cell struct {
	Key       string `json:"key"`
	Super     string `json:"super,omitempty"`
	Name      string `json:"name"`
	Value     string `json:"value"`
	Timestamp int64  `json:"timestamp"`
	TTL       int32  `json:"ttl,omitempty"`
}

func main() {
	addr := flag.String("addr", "127.0.0.1:19160", "Thrift address of the Cassandra 1.2 node")
	out := flag.String("out", "", "directory for schema.json and expected.json")
	drop := flag.Bool("drop", false, "drop the keyspace and exit")
	counters := flag.Bool("counters", false, "load the counter keyspace "+CounterKeyspace+" instead, and write into -out schema.json and expected.json (every counter's total)")
	flag.Parse()
	ctx := context.Background()
	cfg := &thrift.TConfiguration{ConnectTimeout: 10 * time.Second, SocketTimeout: time.Minute}
	trans := thrift.NewTFramedTransportConf(thrift.NewTSocketConf(*addr, cfg), cfg)
	if err := trans.Open(); err != nil {
		log.Fatal(err)
	}
	proto := thrift.NewTBinaryProtocolConf(trans, cfg)
	c := cassandra19.NewCassandraClientProtocol(trans, proto, proto)
	if *counters {
		c.SystemDropKeyspace(ctx, CounterKeyspace)
		if !*drop {
			loadCounters(ctx, c, *out)
		}
		return
	}
	c.SystemDropKeyspace(ctx, Keyspace)
	if *drop {
		return
	}
	str := func(s string) *string { return &s }
	def := func(name, typ, cmp string, sub *string, val string) *cassandra19.CfDef {
		return &cassandra19.CfDef{Keyspace: Keyspace, Name: name, ColumnType: typ, ComparatorType: cmp, SubcomparatorType: sub,
			DefaultValidationClass: str(val), Caching: "KEYS_ONLY"}
	}
	users := def("Users", "Standard", "UTF8Type", nil, "UTF8Type")
	users.KeyValidationClass = str("UTF8Type")
	users.ColumnMetadata = []*cassandra19.ColumnDef{{Name: []byte("age"), ValidationClass: "LongType"}, {Name: []byte("score"), ValidationClass: "DoubleType"}}
	ks := &cassandra19.KsDef{Name: Keyspace, StrategyClass: "org.apache.cassandra.locator.SimpleStrategy", StrategyOptions: map[string]string{"replication_factor": "1"},
		CfDefs: []*cassandra19.CfDef{
			users,
			def("Events", "Standard", "CompositeType(UTF8Type,LongType)", nil, "BytesType"),
			def("Stamps", "Standard", "TimeUUIDType", nil, "Int32Type"),
			def("Numbers", "Standard", "LongType", nil, "IntegerType"),
			def("Groups", "Super", "UTF8Type", str("LongType"), "AsciiType"),
		}}
	if _, err := c.SystemAddKeyspace(ctx, ks); err != nil {
		log.Fatal(err)
	}
	if err := c.SetKeyspace(ctx, Keyspace); err != nil {
		log.Fatal(err)
	}
	cl := cassandra19.ConsistencyLevel_ONE
	base := int64(1700000000000000)
	// About 9.5 years: 1.2 keeps the expiration time in 32-bit seconds,
	// so a longer TTL from 2026 on would overflow it.
	ttl := int32(300000000)
	now := time.Now().UnixMicro()
	ins := func(key, cf string, super []byte, name, value []byte, ts int64, ttl int32) {
		col := &cassandra19.Column{Name: name, Value: value, Timestamp: &ts}
		if ttl > 0 {
			col.TTL = &ttl
		}
		if err := c.Insert(ctx, []byte(key), &cassandra19.ColumnParent{ColumnFamily: cf, SuperColumn: super}, col, cl); err != nil {
			log.Fatalf("insert %s %s: %v", cf, key, err)
		}
	}
	rm := func(key, cf string, super, name []byte, ts int64) {
		if err := c.Remove(ctx, []byte(key), &cassandra19.ColumnPath{ColumnFamily: cf, SuperColumn: super, Column: name}, ts, cl); err != nil {
			log.Fatalf("remove %s %s: %v", cf, key, err)
		}
	}
	u64 := func(n int64) []byte { return binary.BigEndian.AppendUint64(nil, uint64(n)) }
	for i, who := range []string{"alice", "bob", "carol", "dave", "eve: \"quoted\""} {
		ts := base + int64(i)
		ins(who, "Users", nil, []byte("name"), []byte("Name é "+who), ts, 0)
		ins(who, "Users", nil, []byte("age"), u64(int64(20+i)), ts, 0)
		ins(who, "Users", nil, []byte("score"), binary.BigEndian.AppendUint64(nil, math.Float64bits(float64(i)*1.5)), ts, 0)
		ins(who, "Users", nil, []byte("old"), []byte("gone"), ts, 0)
		rm(who, "Users", nil, []byte("old"), ts+1)
		ins(who, "Users", nil, []byte("session:"+who), []byte("token"), now, ttl)
	}
	// A deleted row that lives on with a later column.
	ins("frank", "Users", nil, []byte("name"), []byte("Frank"), base, 0)
	rm("frank", "Users", nil, nil, base+10)
	ins("frank", "Users", nil, []byte("name"), []byte("Frank again"), base+20, 0)
	comp := func(s string, n int64) []byte {
		var b []byte
		b = binary.BigEndian.AppendUint16(b, uint16(len(s)))
		b = append(append(b, s...), 0)
		b = binary.BigEndian.AppendUint16(b, 8)
		return append(append(b, u64(n)...), 0)
	}
	for r := range 3 {
		key := fmt.Sprintf("stream%d", r)
		for j := range 4 {
			ins(key, "Events", nil, comp([]string{"click", "view", "a:b\\"}[j%3], int64(j*1000-1500)), []byte{byte(r), byte(j), 0xff}, base+int64(j), 0)
		}
	}
	for r := range 2 {
		key := fmt.Sprintf("clock%d", r)
		for j := range 3 {
			u := []byte{0x10, 0x00, byte(r), byte(j), 0x12, 0x34, 0x11, 0xe0, 0x80, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, byte(j)}
			ins(key, "Stamps", nil, u, binary.BigEndian.AppendUint32(nil, uint32(int32(j-1)*100000)), base+int64(j), 0)
		}
	}
	for r, n := range []int64{-5, 0, 1 << 40} {
		key := fmt.Sprintf("n%d", r)
		ins(key, "Numbers", nil, u64(n), []byte{0x80, 0x00, byte(r)}, base, 0)
		ins(key, "Numbers", nil, u64(n+1), []byte{0x7f}, base, ttl)
	}
	for r := range 2 {
		key := fmt.Sprintf("group%d", r)
		for j, sc := range []string{"admins", "users", "gone"} {
			for k := range 2 {
				ins(key, "Groups", []byte(sc), u64(int64(k-j)), []byte(fmt.Sprintf("member %d.%d", j, k)), base+int64(k), 0)
			}
		}
		rm(key, "Groups", []byte("gone"), nil, base+5)
		ins(key, "Groups", []byte("gone"), u64(7), []byte("back"), base+6, 0)
		rm(key, "Groups", []byte("users"), u64(0), base+7)
	}
	if *out == "" {
		return
	}
	schema, err := c.DescribeKeyspace(ctx, Keyspace)
	if err != nil {
		log.Fatal(err)
	}
	for _, d := range schema.CfDefs {
		d.ID = nil
	}
	sort.Slice(schema.CfDefs, func(i, j int) bool { return schema.CfDefs[i].Name < schema.CfDefs[j].Name })
	write(filepath.Join(*out, "schema.json"), schema)
	expected := map[string][]Cell{}
	for _, d := range schema.CfDefs {
		expected[d.Name] = dump(c, d.Name)
	}
	write(filepath.Join(*out, "expected.json"), expected)
}

func write(path string, v any) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		log.Fatal(err)
	}
}

// dump reads every live column of cf (small: one page of each).
func dump(c *cassandra19.CassandraClient, cf string) []Cell {
	pred := &cassandra19.SlicePredicate{SliceRange: &cassandra19.SliceRange{Start: []byte{}, Finish: []byte{}, Count: 1000}}
	rows, err := c.GetRangeSlices(context.Background(), &cassandra19.ColumnParent{ColumnFamily: cf}, pred,
		&cassandra19.KeyRange{StartKey: []byte{}, EndKey: []byte{}, Count: 1000}, cassandra19.ConsistencyLevel_ONE)
	if err != nil {
		log.Fatal(err)
	}
	var out []Cell
	for _, r := range rows {
		for _, it := range r.Columns {
			cols, super := []*cassandra19.Column{it.Column}, []byte(nil)
			if it.SuperColumn != nil {
				cols, super = it.SuperColumn.Columns, it.SuperColumn.Name
			}
			for _, col := range cols {
				out = append(out, Cell{Key: hex.EncodeToString(r.Key), Super: hex.EncodeToString(super), Name: hex.EncodeToString(col.Name),
					Value: hex.EncodeToString(col.Value), Timestamp: col.GetTimestamp(), TTL: col.GetTTL()})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		return bytes.Compare([]byte(a.Key+"/"+a.Super+"/"+a.Name), []byte(b.Key+"/"+b.Super+"/"+b.Name)) < 0
	})
	return out
}

// loadCounters loads CounterKeyspace: counters added to several times,
// negative ones, a removed one, and super counters; with out set it
// writes schema.json and expected.json, each family's totals by
// "KEY/SUPER/NAME", each in hex (SUPER empty in a standard family).
func loadCounters(ctx context.Context, c *cassandra19.CassandraClient, out string) {
	str := func(s string) *string { return &s }
	ks := &cassandra19.KsDef{Name: CounterKeyspace, StrategyClass: "org.apache.cassandra.locator.SimpleStrategy", StrategyOptions: map[string]string{"replication_factor": "1"},
		CfDefs: []*cassandra19.CfDef{
			{Keyspace: CounterKeyspace, Name: "Counts", ColumnType: "Standard", ComparatorType: "UTF8Type", DefaultValidationClass: str("CounterColumnType"), Caching: "KEYS_ONLY"},
			{Keyspace: CounterKeyspace, Name: "SuperCounts", ColumnType: "Super", ComparatorType: "UTF8Type", SubcomparatorType: str("LongType"), DefaultValidationClass: str("CounterColumnType"), Caching: "KEYS_ONLY"},
		}}
	if _, err := c.SystemAddKeyspace(ctx, ks); err != nil {
		log.Fatal(err)
	}
	if err := c.SetKeyspace(ctx, CounterKeyspace); err != nil {
		log.Fatal(err)
	}
	cl := cassandra19.ConsistencyLevel_ONE
	add := func(key, cf string, super, name []byte, n int64) {
		if err := c.Add(ctx, []byte(key), &cassandra19.ColumnParent{ColumnFamily: cf, SuperColumn: super}, &cassandra19.CounterColumn{Name: name, Value: n}, cl); err != nil {
			log.Fatalf("add %s %s: %v", cf, key, err)
		}
	}
	for r := range 3 {
		key := fmt.Sprintf("page%d", r)
		for j, name := range []string{"views", "clicks", "errors: \"quoted\""} {
			for k := range 3 {
				add(key, "Counts", nil, []byte(name), int64((r+1)*(j+1)*(2*k-1)*7))
			}
		}
		add(key, "Counts", nil, []byte("gone"), 5)
		if err := c.RemoveCounter(ctx, []byte(key), &cassandra19.ColumnPath{ColumnFamily: "Counts", Column: []byte("gone")}, cl); err != nil {
			log.Fatal(err)
		}
	}
	for r := range 2 {
		key := fmt.Sprintf("day%d", r)
		for j, sc := range []string{"eu", "us"} {
			for k := range 3 {
				add(key, "SuperCounts", []byte(sc), binary.BigEndian.AppendUint64(nil, uint64(k-1)), int64(r*100+j*10+k))
				add(key, "SuperCounts", []byte(sc), binary.BigEndian.AppendUint64(nil, uint64(k-1)), -1)
			}
		}
	}
	if out == "" {
		return
	}
	schema, err := c.DescribeKeyspace(ctx, CounterKeyspace)
	if err != nil {
		log.Fatal(err)
	}
	for _, d := range schema.CfDefs {
		d.ID = nil
	}
	sort.Slice(schema.CfDefs, func(i, j int) bool { return schema.CfDefs[i].Name < schema.CfDefs[j].Name })
	write(filepath.Join(out, "schema.json"), schema)
	expected := map[string]map[string]int64{}
	pred := &cassandra19.SlicePredicate{SliceRange: &cassandra19.SliceRange{Start: []byte{}, Finish: []byte{}, Count: 1000}}
	for _, d := range schema.CfDefs {
		rows, err := c.GetRangeSlices(ctx, &cassandra19.ColumnParent{ColumnFamily: d.Name}, pred,
			&cassandra19.KeyRange{StartKey: []byte{}, EndKey: []byte{}, Count: 1000}, cl)
		if err != nil {
			log.Fatal(err)
		}
		expected[d.Name] = transfertest.CounterTotals19(rows)
	}
	write(filepath.Join(out, "expected.json"), expected)
}
