package transfertest

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/apache/thrift/lib/go/thrift"

	"github.com/thriftd/thriftd/gen-go/cassandra19"
)

// Client19 is a connection of the 19.x API (TFramedTransport), which a
// Cassandra 1.2 node and thriftd both take.
type Client19 struct {
	*cassandra19.CassandraClient
	trans thrift.TTransport
}

// Dial19 connects to addr, closing the connection when the test ends.
func Dial19(t testing.TB, addr string) *Client19 {
	t.Helper()
	cfg := &thrift.TConfiguration{ConnectTimeout: 10 * time.Second, SocketTimeout: 2 * time.Minute, MaxMessageSize: 256 << 20, MaxFrameSize: 256 << 20}
	trans := thrift.NewTFramedTransportConf(thrift.NewTSocketConf(addr, cfg), cfg)
	if err := trans.Open(); err != nil {
		t.Fatalf("connecting to %s: %v", addr, err)
	}
	t.Cleanup(func() { trans.Close() })
	proto := thrift.NewTBinaryProtocolConf(trans, cfg)
	return &Client19{cassandra19.NewCassandraClientProtocol(trans, proto, proto), trans}
}

// Type19 is one of Cassandra 1.2's types with a generator of valid
// values.
type Type19 struct {
	Class string
	Gen   func(*rand.Rand) []byte
}

func u64(r *rand.Rand) []byte { return binary.BigEndian.AppendUint64(nil, r.Uint64()) }

func uuid4(r *rand.Rand) []byte {
	b := lexicalName(r)
	b[6] = 0x40 | b[6]&0x0f
	b[8] = 0x80 | b[8]&0x3f
	return b
}

func uuid1(r *rand.Rand) []byte {
	b := timeName(r)
	b[8] = 0x80 | b[8]&0x3f
	return b
}

// Types19 are every type of Cassandra 1.2 that a column name or value of
// a Thrift column family can have (counters apart).
var Types19 = []Type19{
	{"BytesType", bytesName},
	{"AsciiType", asciiName},
	{"UTF8Type", utf8Name},
	{"LongType", u64},
	{"Int32Type", func(r *rand.Rand) []byte { return binary.BigEndian.AppendUint32(nil, r.Uint32()) }},
	{"IntegerType", func(r *rand.Rand) []byte {
		b := make([]byte, 1+r.IntN(12))
		for i := range b {
			b[i] = byte(r.UintN(256))
		}
		return b
	}},
	{"DecimalType", func(r *rand.Rand) []byte {
		return append(binary.BigEndian.AppendUint32(nil, uint32(r.IntN(20))), byte(r.UintN(256)), byte(r.UintN(256)))
	}},
	{"DoubleType", func(r *rand.Rand) []byte {
		return binary.BigEndian.AppendUint64(nil, math.Float64bits(r.NormFloat64()*1e6))
	}},
	{"FloatType", func(r *rand.Rand) []byte {
		return binary.BigEndian.AppendUint32(nil, math.Float32bits(float32(r.NormFloat64()*1e3)))
	}},
	{"BooleanType", func(r *rand.Rand) []byte { return []byte{byte(r.IntN(2))} }},
	{"DateType", func(r *rand.Rand) []byte { return binary.BigEndian.AppendUint64(nil, uint64(r.Int64N(4e12))) }},
	{"UUIDType", func(r *rand.Rand) []byte {
		if r.IntN(2) == 0 {
			return uuid1(r)
		}
		return uuid4(r)
	}},
	{"LexicalUUIDType", uuid4},
	{"TimeUUIDType", uuid1},
	{"InetAddressType", func(r *rand.Rand) []byte {
		if r.IntN(2) == 0 {
			return binary.BigEndian.AppendUint32(nil, r.Uint32())
		}
		return append(u64(r), u64(r)...)
	}},
	{"CompositeType(UTF8Type,LongType,ReversedType(TimeUUIDType))", func(r *rand.Rand) []byte {
		var b []byte
		for _, c := range [][]byte{utf8Name(r), u64(r), uuid1(r)} {
			b = binary.BigEndian.AppendUint16(b, uint16(len(c)))
			b = append(append(b, c...), 0)
		}
		return b
	}},
	{"DynamicCompositeType(a=>AsciiType,l=>LongType)", func(r *rand.Rand) []byte {
		var b []byte
		for _, c := range []struct {
			alias byte
			v     []byte
		}{{'a', asciiName(r)}, {'l', u64(r)}} {
			b = binary.BigEndian.AppendUint16(b, 0x8000|uint16(c.alias))
			b = binary.BigEndian.AppendUint16(b, uint16(len(c.v)))
			b = append(append(b, c.v...), 0)
		}
		return b
	}},
	{"ReversedType(LongType)", u64},
}

// TypeNamed returns the type of Types19 whose class is class.
func TypeNamed(class string) Type19 {
	for _, t := range Types19 {
		if t.Class == class {
			return t
		}
	}
	panic("no type " + class)
}

// Family19 is a column family of a keyspace for the 19.x tests, with the
// types of its names (and subcolumn names) and values.
type Family19 struct {
	Def       *cassandra19.CfDef
	Name, Sub Type19
	Value     Type19
}

func cfName(class string) string {
	r := strings.NewReplacer("(", "_", ")", "", ",", "_", "=>", "", " ", "")
	n := strings.TrimRight(r.Replace(class), "_")
	return n[:min(len(n), 40)]
}

// Families19 returns the column families of a keyspace ks that cover
// every type as comparator and validator, composites, super families,
// a typed row key, a column with its own validator, and a counter family.
func Families19(ks string) []Family19 {
	var out []Family19
	str := func(s string) *string { return &s }
	for _, t := range Types19 {
		out = append(out, Family19{
			Def:  &cassandra19.CfDef{Keyspace: ks, Name: "N" + cfName(t.Class), ColumnType: "Standard", ComparatorType: t.Class, DefaultValidationClass: str(t.Class)},
			Name: t, Value: t,
		})
	}
	gc := int32(3600)
	comment := "typed key, a column of its own type"
	out = append(out,
		Family19{
			Def: &cassandra19.CfDef{Keyspace: ks, Name: "Typed", ColumnType: "Standard", ComparatorType: "UTF8Type", DefaultValidationClass: str("BytesType"),
				KeyValidationClass: str("UTF8Type"), GcGraceSeconds: &gc, Comment: &comment,
				ColumnMetadata: []*cassandra19.ColumnDef{{Name: []byte("age"), ValidationClass: "LongType"}}},
			Name: TypeNamed("UTF8Type"), Value: TypeNamed("BytesType"),
		},
		Family19{
			Def:  &cassandra19.CfDef{Keyspace: ks, Name: "SuperUTF8Long", ColumnType: "Super", ComparatorType: "UTF8Type", SubcomparatorType: str("LongType"), DefaultValidationClass: str("AsciiType")},
			Name: TypeNamed("UTF8Type"), Sub: TypeNamed("LongType"), Value: TypeNamed("AsciiType"),
		},
		Family19{
			Def:  &cassandra19.CfDef{Keyspace: ks, Name: "SuperTimeComposite", ColumnType: "Super", ComparatorType: "TimeUUIDType", SubcomparatorType: str("CompositeType(UTF8Type,LongType,ReversedType(TimeUUIDType))")},
			Name: TypeNamed("TimeUUIDType"), Sub: TypeNamed("CompositeType(UTF8Type,LongType,ReversedType(TimeUUIDType))"), Value: TypeNamed("BytesType"),
		},
		Family19{
			Def:  &cassandra19.CfDef{Keyspace: ks, Name: "Counts", ColumnType: "Standard", ComparatorType: "UTF8Type", DefaultValidationClass: str("CounterColumnType")},
			Name: TypeNamed("UTF8Type"),
		},
		Family19{
			Def:  &cassandra19.CfDef{Keyspace: ks, Name: "SuperCounts", ColumnType: "Super", ComparatorType: "UTF8Type", SubcomparatorType: str("UTF8Type"), DefaultValidationClass: str("CounterColumnType")},
			Name: TypeNamed("UTF8Type"), Sub: TypeNamed("UTF8Type"),
		},
	)
	for _, f := range out {
		f.Def.Caching = "KEYS_ONLY"
		// Left at the bindings' defaults, these fields are not sent: 2.0
		// and later refuse an empty speculative_retry.
		f.Def.SpeculativeRetry = cassandra19.CfDef_SpeculativeRetry_DEFAULT
		f.Def.CellsPerRowToCache = cassandra19.CfDef_CellsPerRowToCache_DEFAULT
	}
	return out
}

// IsCounter reports whether f holds counters.
func (f Family19) IsCounter() bool {
	return f.Def.DefaultValidationClass != nil && strings.HasSuffix(*f.Def.DefaultValidationClass, "CounterColumnType")
}

// CreateKeyspace19 creates keyspace ks with fams through c.
func CreateKeyspace19(t testing.TB, c *Client19, ks string, fams []Family19) {
	t.Helper()
	def := &cassandra19.KsDef{Name: ks, StrategyClass: "org.apache.cassandra.locator.SimpleStrategy", StrategyOptions: map[string]string{"replication_factor": "1"}}
	for _, f := range fams {
		def.CfDefs = append(def.CfDefs, f.Def)
	}
	if _, err := c.SystemAddKeyspace(context.Background(), def); err != nil {
		t.Fatalf("system_add_keyspace %s: %v", ks, err)
	}
	if err := c.SetKeyspace(context.Background(), ks); err != nil {
		t.Fatal(err)
	}
}

// Backfill2017 is 2017-01-01 in microseconds: Load19 gives half of its
// expiring columns timestamps of that year.
var Backfill2017 = time.Date(2017, 1, 1, 0, 0, 0, 0, time.UTC).UnixMicro()

// Load19 writes rows rows into f through c (in its keyspace), up to width
// columns a row (super families: super columns of up to 4 subcolumns).
// One column in five expires (TTL of one to three hours), half of those
// with the time of the write as timestamp (now, in microseconds) and half
// with a timestamp of 2017, as a backfill that keeps its data's own times
// writes them: the source serves both for hours. Other timestamps are
// random, half of them not times at all. Then one column (or super
// column) in ten is deleted and one row in ten.
func Load19(t testing.TB, c *Client19, f Family19, rows, width int, seed uint64) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, uint64(len(f.Def.Name))))
	ctx := context.Background()
	cl := cassandra19.ConsistencyLevel_ONE
	key := func(i int) []byte {
		if f.Def.KeyValidationClass != nil {
			return []byte(Key(i))
		}
		return append([]byte(Key(i)), byte(i), 0xff)
	}
	now := time.Now().UnixMicro()
	column := func(name []byte) *cassandra19.Column {
		ts := now - r.Int64N(1e6)
		if r.IntN(2) == 0 {
			ts = r.Int64N(1 << 40)
		}
		col := &cassandra19.Column{Name: name, Value: f.Value.Gen(r), Timestamp: &ts}
		if string(name) == "age" && f.Def.Name == "Typed" {
			col.Value = u64(r)
		}
		if r.IntN(5) == 0 {
			ttl := int32(3600 + r.IntN(7200))
			ts := now
			if r.IntN(2) == 0 {
				ts = Backfill2017 + r.Int64N(365*24*3600*1e6)
			}
			col.TTL, col.Timestamp = &ttl, &ts
		}
		return col
	}
	var deletions []func()
	for i := range rows {
		k := key(i)
		var muts []*cassandra19.Mutation
		n := 1 + r.IntN(width)
		for j := range n {
			if f.Def.ColumnType == "Super" {
				sc := &cassandra19.SuperColumn{Name: f.Name.Gen(r)}
				for range 1 + r.IntN(4) {
					sc.Columns = append(sc.Columns, column(f.Sub.Gen(r)))
				}
				muts = append(muts, &cassandra19.Mutation{ColumnOrSupercolumn: &cassandra19.ColumnOrSuperColumn{SuperColumn: sc}})
				if r.IntN(10) == 0 {
					name := sc.Name
					deletions = append(deletions, func() {
						ts := time.Now().UnixMicro() + 1<<50
						if err := c.Remove(ctx, k, &cassandra19.ColumnPath{ColumnFamily: f.Def.Name, SuperColumn: name}, ts, cl); err != nil {
							t.Fatalf("remove %s: %v", f.Def.Name, err)
						}
					})
				}
				continue
			}
			name := f.Name.Gen(r)
			if f.Def.Name == "Typed" && j == 0 {
				name = []byte("age")
			}
			muts = append(muts, &cassandra19.Mutation{ColumnOrSupercolumn: &cassandra19.ColumnOrSuperColumn{Column: column(name)}})
			if r.IntN(10) == 0 {
				deletions = append(deletions, func() {
					ts := int64(1) << 50
					if err := c.Remove(ctx, k, &cassandra19.ColumnPath{ColumnFamily: f.Def.Name, Column: name}, ts, cl); err != nil {
						t.Fatalf("remove %s: %v", f.Def.Name, err)
					}
				})
			}
		}
		if err := c.BatchMutate(ctx, map[string]map[string][]*cassandra19.Mutation{string(k): {f.Def.Name: muts}}, cl); err != nil {
			t.Fatalf("loading %s row %d: %v", f.Def.Name, i, err)
		}
		if i%10 == 9 {
			deletions = append(deletions, func() {
				if err := c.Remove(ctx, k, &cassandra19.ColumnPath{ColumnFamily: f.Def.Name}, int64(1)<<60, cl); err != nil {
					t.Fatalf("remove row of %s: %v", f.Def.Name, err)
				}
			})
		}
	}
	for _, d := range deletions {
		d()
	}
}

// LoadCounters adds to counters of f through c: rows rows of 3
// counters (in 2 super columns of a super family), some negative, each
// added to twice.
func LoadCounters(t testing.TB, c *Client19, f Family19, rows int) {
	t.Helper()
	for i := range rows {
		for j := range 3 {
			for _, v := range []int64{int64(i*10 + j), int64(1 - 4*j)} {
				col := &cassandra19.CounterColumn{Name: fmt.Appendf(nil, "c%d", j), Value: v}
				parent := &cassandra19.ColumnParent{ColumnFamily: f.Def.Name}
				if f.Def.ColumnType == "Super" {
					parent.SuperColumn = fmt.Appendf(nil, "s%d", j%2)
				}
				if err := c.Add(context.Background(), []byte(Key(i)), parent, col, cassandra19.ConsistencyLevel_ONE); err != nil {
					t.Fatalf("add to %s: %v", f.Def.Name, err)
				}
			}
		}
	}
}

// DumpCounters19 reads every counter of family cf through c (in its
// keyspace) as "row/super/name" (hex row key) to total.
func DumpCounters19(t testing.TB, c *Client19, cf string) map[string]int64 {
	t.Helper()
	ctx := context.Background()
	pred := &cassandra19.SlicePredicate{SliceRange: &cassandra19.SliceRange{Start: []byte{}, Finish: []byte{}, Count: 1 << 20}}
	page, err := c.GetRangeSlices(ctx, &cassandra19.ColumnParent{ColumnFamily: cf}, pred, &cassandra19.KeyRange{StartKey: []byte{}, EndKey: []byte{}, Count: 1 << 20}, cassandra19.ConsistencyLevel_ONE)
	if err != nil {
		t.Fatalf("get_range_slices %s: %v", cf, err)
	}
	out := map[string]int64{}
	for _, ks := range page {
		for _, it := range ks.Columns {
			switch {
			case it.CounterColumn != nil:
				out[fmt.Sprintf("%x//%s", ks.Key, it.CounterColumn.Name)] = it.CounterColumn.Value
			case it.CounterSuperColumn != nil:
				for _, cc := range it.CounterSuperColumn.Columns {
					out[fmt.Sprintf("%x/%s/%s", ks.Key, it.CounterSuperColumn.Name, cc.Name)] = cc.Value
				}
			default:
				t.Fatalf("%s row %x holds a column that is no counter", cf, ks.Key)
			}
		}
	}
	return out
}

// CounterTotals19 is every counter of rows with its total, keyed
// "KEY/SUPER/NAME" each in hex (SUPER empty in a standard family): the
// form of sstablejson/testdata/1.2/counters/expected.json.
func CounterTotals19(rows []*cassandra19.KeySlice) map[string]int64 {
	out := map[string]int64{}
	for _, r := range rows {
		for _, it := range r.Columns {
			if cc := it.CounterColumn; cc != nil {
				out[fmt.Sprintf("%x//%x", r.Key, cc.Name)] = cc.Value
			}
			if sc := it.CounterSuperColumn; sc != nil {
				for _, cc := range sc.Columns {
					out[fmt.Sprintf("%x/%x/%x", r.Key, sc.Name, cc.Name)] = cc.Value
				}
			}
		}
	}
	return out
}

// Cell19 is one column as read back: its row, super column (if any),
// name, value, timestamp and TTL.
type Cell19 struct {
	Key, Super, Name, Value []byte
	Timestamp               int64
	TTL                     int32
}

func (c Cell19) String() string {
	return fmt.Sprintf("row %x super %x name %x value %x ts %d ttl %d", c.Key, c.Super, c.Name, c.Value, c.Timestamp, c.TTL)
}

// Dump19 reads every column of family cf through c (in its keyspace),
// paging rows by 7 and columns by 5, sorted by key, super column and name
// bytes.
func Dump19(t testing.TB, c *Client19, cf string) []Cell19 {
	t.Helper()
	first, finish := []byte{}, []byte{}
	if strings.HasPrefix(cf, "NInetAddress") {
		first, finish = []byte{0, 0, 0, 0}, bytes.Repeat([]byte{0xff}, 16)
	}
	ctx := context.Background()
	cl := cassandra19.ConsistencyLevel_ONE
	parent := &cassandra19.ColumnParent{ColumnFamily: cf}
	var out []Cell19
	add := func(key []byte, it *cassandra19.ColumnOrSuperColumn) {
		cols := []*cassandra19.Column{it.Column}
		var super []byte
		if it.SuperColumn != nil {
			cols, super = it.SuperColumn.Columns, it.SuperColumn.Name
		}
		for _, col := range cols {
			out = append(out, Cell19{Key: key, Super: super, Name: col.Name, Value: col.Value, Timestamp: col.GetTimestamp(), TTL: col.GetTTL()})
		}
	}
	name := func(it *cassandra19.ColumnOrSuperColumn) []byte {
		if it.SuperColumn != nil {
			return it.SuperColumn.Name
		}
		return it.Column.Name
	}
	start := []byte{}
	for {
		pred := &cassandra19.SlicePredicate{SliceRange: &cassandra19.SliceRange{Start: first, Finish: finish, Count: 5}}
		page, err := c.GetRangeSlices(ctx, parent, pred, &cassandra19.KeyRange{StartKey: start, EndKey: []byte{}, Count: 7}, cl)
		if err != nil {
			t.Fatalf("get_range_slices %s: %v", cf, err)
		}
		for _, ks := range page {
			if len(start) > 0 && bytes.Equal(ks.Key, start) {
				continue
			}
			items := ks.Columns
			for len(items) > 0 {
				for _, it := range items {
					add(ks.Key, it)
				}
				if len(items) < 5 {
					break
				}
				last := name(items[len(items)-1])
				next, err := c.GetSlice(ctx, ks.Key, parent, &cassandra19.SlicePredicate{SliceRange: &cassandra19.SliceRange{Start: last, Finish: finish, Count: 6}}, cl)
				if err != nil {
					t.Fatalf("get_slice %s: %v", cf, err)
				}
				if len(next) > 0 && bytes.Equal(name(next[0]), last) {
					next = next[1:]
				}
				items = next
				if len(next) < 5 {
					for _, it := range next {
						add(ks.Key, it)
					}
					break
				}
			}
		}
		if len(page) < 7 {
			break
		}
		start = page[len(page)-1].Key
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if c := bytes.Compare(a.Key, b.Key); c != 0 {
			return c < 0
		}
		if c := bytes.Compare(a.Super, b.Super); c != 0 {
			return c < 0
		}
		return bytes.Compare(a.Name, b.Name) < 0
	})
	return out
}

// Same19 fails t unless got holds the cells of want: the same keys,
// names, values and timestamps; a column without TTL in want has none in
// got, and an expiring one has a TTL in [want.TTL - slack, want.TTL]
// (slack in seconds: the time since the columns were written).
func Same19(t testing.TB, cf string, got, want []Cell19, slack int32) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d columns copied, the source has %d", cf, len(got), len(want))
	}
	for i := range min(len(got), len(want)) {
		g, w := got[i], want[i]
		gt, wt := g.TTL, w.TTL
		g.TTL, w.TTL = 0, 0
		if !reflect.DeepEqual(g, w) {
			t.Errorf("%s: column %d is\n  %v\nthe source has\n  %v", cf, i, g, w)
			return
		}
		if (wt == 0) != (gt == 0) || gt > wt || gt < wt-slack {
			t.Errorf("%s: %v has TTL %d on the target, the source wrote %d (%d seconds ago at most)", cf, g, gt, wt, slack)
			return
		}
	}
}
