// Package transfertest holds what the tests of export, import and copy
// share: a configuration with a column family for every comparator, data
// to fill them with, and a dump of everything a server holds.
package transfertest

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/thriftd/thriftd/gen-go/cassandra"
	"github.com/thriftd/thriftd/internal/testenv"
)

// Keyspace is the keyspace of Config.
const Keyspace = "Transfer"

// Family is a column family of Config.
type Family struct {
	Name          string
	Super         bool
	Compare, Sub  string
	name, subname func(*rand.Rand) []byte
}

func bytesName(r *rand.Rand) []byte {
	b := make([]byte, 1+r.IntN(8))
	for i := range b {
		b[i] = byte(r.UintN(256))
	}
	return b
}

func asciiName(r *rand.Rand) []byte {
	const letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 _-"
	b := make([]byte, 1+r.IntN(10))
	for i := range b {
		b[i] = letters[r.IntN(len(letters))]
	}
	return b
}

func utf8Name(r *rand.Rand) []byte {
	parts := []string{"a", "é", "日本", "z", "\"", "\\", " ", "ß", "🙂"}
	var s strings.Builder
	for range 1 + r.IntN(5) {
		s.WriteString(parts[r.IntN(len(parts))])
	}
	return []byte(s.String())
}

func longName(r *rand.Rand) []byte { return binary.BigEndian.AppendUint64(nil, r.Uint64()) }

func lexicalName(r *rand.Rand) []byte {
	return binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint64(nil, r.Uint64()), r.Uint64())
}

func timeName(r *rand.Rand) []byte {
	b := lexicalName(r)
	b[6] = 0x10 | b[6]&0x0f
	return b
}

// Families are the column families of Config: one standard family per
// comparator and super families with several pairs.
var Families = []Family{
	{Name: "Bytes", Compare: "BytesType", name: bytesName},
	{Name: "Ascii", Compare: "AsciiType", name: asciiName},
	{Name: "UTF8", Compare: "UTF8Type", name: utf8Name},
	{Name: "Long", Compare: "LongType", name: longName},
	{Name: "Lexical", Compare: "LexicalUUIDType", name: lexicalName},
	{Name: "TimeUUID", Compare: "TimeUUIDType", name: timeName},
	{Name: "SuperBytes", Super: true, Compare: "BytesType", Sub: "BytesType", name: bytesName, subname: bytesName},
	{Name: "SuperUTF8Long", Super: true, Compare: "UTF8Type", Sub: "LongType", name: utf8Name, subname: longName},
	{Name: "SuperTimeLexical", Super: true, Compare: "TimeUUIDType", Sub: "LexicalUUIDType", name: timeName, subname: lexicalName},
	{Name: "SuperLongAscii", Super: true, Compare: "LongType", Sub: "AsciiType", name: longName, subname: asciiName},
}

// Family returns the family named name.
func FamilyNamed(name string) Family {
	for _, f := range Families {
		if f.Name == name {
			return f
		}
	}
	panic("no family " + name)
}

// User and Password may use Keyspace under ConfigWithAuth.
const User, Password = "alice", "wonderland7"

// Config writes a storage-conf.xml with Keyspace (every family of
// Families) and partitioner into dir and returns its path.
func Config(t testing.TB, dir, partitioner string) string {
	return config(t, dir, partitioner, false)
}

// ConfigWithAuth is Config with SimpleAuthenticator, its property files
// beside the configuration letting User in to Keyspace.
func ConfigWithAuth(t testing.TB, dir, partitioner string) string {
	return config(t, dir, partitioner, true)
}

func config(t testing.TB, dir, partitioner string, auth bool) string {
	t.Helper()
	var cfs strings.Builder
	for _, f := range Families {
		if f.Super {
			fmt.Fprintf(&cfs, "      <ColumnFamily Name=%q ColumnType=\"Super\" CompareWith=%q CompareSubcolumnsWith=%q/>\n", f.Name, f.Compare, f.Sub)
		} else {
			fmt.Fprintf(&cfs, "      <ColumnFamily Name=%q CompareWith=%q/>\n", f.Name, f.Compare)
		}
	}
	// Everything else as in stock 0.6's configuration.
	base, err := os.ReadFile(testenv.Fixture("storage-conf-0.6-default.xml"))
	if err != nil {
		t.Fatal(err)
	}
	conf := string(base)
	i, j := strings.Index(conf, "<Keyspaces>"), strings.Index(conf, "</Keyspaces>")
	keyspaces := fmt.Sprintf(`<Keyspaces>
    <Keyspace Name=%q>
%s      <ReplicaPlacementStrategy>org.apache.cassandra.locator.RackUnawareStrategy</ReplicaPlacementStrategy>
      <ReplicationFactor>1</ReplicationFactor>
      <EndPointSnitch>org.apache.cassandra.locator.EndPointSnitch</EndPointSnitch>
    </Keyspace>
  `, Keyspace, cfs.String())
	conf = conf[:i] + keyspaces + conf[j:]
	conf = strings.Replace(conf, "org.apache.cassandra.dht.RandomPartitioner", "org.apache.cassandra.dht."+partitioner, 1)
	if auth {
		conf = strings.Replace(conf, "org.apache.cassandra.auth.AllowAllAuthenticator", "org.apache.cassandra.auth.SimpleAuthenticator", 1)
		for name, text := range map[string]string{"passwd.properties": User + "=" + Password + "\n", "access.properties": Keyspace + "=" + User + "\n"} {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	path := filepath.Join(dir, "storage-conf.xml")
	if err := os.WriteFile(path, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// Key returns the i-th row key: printable, with quotes, backslashes and
// non-ASCII characters among them.
func Key(i int) string {
	extras := []string{"", "\"", "\\", "é", " x", "\"q\": [", "日"}
	return fmt.Sprintf("row%06d%s", i, extras[i%len(extras)])
}

// Fill writes rows rows into f of the node at c, rows having up to
// width columns (super families: up to width super columns of up to 4
// subcolumns), with random names, values and timestamps from seed.
func Fill(t testing.TB, c *testenv.Client, f Family, rows, width int, seed uint64) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, uint64(len(f.Name))))
	ctx := context.Background()
	m := map[string]map[string][]*cassandra.Mutation{}
	flush := func() {
		if len(m) == 0 {
			return
		}
		if err := c.BatchMutate(ctx, Keyspace, m, cassandra.ConsistencyLevel_ONE); err != nil {
			t.Fatalf("filling %s: %v", f.Name, err)
		}
		m = map[string]map[string][]*cassandra.Mutation{}
	}
	value := func() []byte {
		v := make([]byte, r.IntN(20))
		for i := range v {
			v[i] = byte(r.UintN(256))
		}
		return v
	}
	ts := func() int64 { return r.Int64N(1<<62) - 1<<61 }
	n := 0
	for i := range rows {
		key := Key(i)
		var muts []*cassandra.Mutation
		for range 1 + r.IntN(width) {
			if f.Super {
				sc := &cassandra.SuperColumn{Name: f.name(r)}
				for range 1 + r.IntN(4) {
					sc.Columns = append(sc.Columns, &cassandra.Column{Name: f.subname(r), Value: value(), Timestamp: ts()})
				}
				muts = append(muts, &cassandra.Mutation{ColumnOrSupercolumn: &cassandra.ColumnOrSuperColumn{SuperColumn: sc}})
				n += len(sc.Columns)
			} else {
				muts = append(muts, &cassandra.Mutation{ColumnOrSupercolumn: &cassandra.ColumnOrSuperColumn{Column: &cassandra.Column{Name: f.name(r), Value: value(), Timestamp: ts()}}})
				n++
			}
		}
		m[key] = map[string][]*cassandra.Mutation{f.Name: muts}
		if n >= 2000 {
			flush()
			n = 0
		}
	}
	flush()
}

// Dump is everything a server holds in one column family: one line per
// column, "key / super / name = value @ timestamp", in hex, sorted.
func Dump(t testing.TB, c *testenv.Client, cf string) []string {
	t.Helper()
	ctx := context.Background()
	var out []string
	start, end := "", ""
	for {
		pred := &cassandra.SlicePredicate{SliceRange: &cassandra.SliceRange{Start: []byte{}, Finish: []byte{}, Count: 1 << 30}}
		page, err := c.GetRangeSlices(ctx, Keyspace, &cassandra.ColumnParent{ColumnFamily: cf}, pred,
			&cassandra.KeyRange{StartKey: &start, EndKey: &end, Count: 1000}, cassandra.ConsistencyLevel_ONE)
		if err != nil {
			t.Fatalf("dumping %s: %v", cf, err)
		}
		for _, ks := range page {
			if ks.Key == start && start != "" {
				continue
			}
			for _, it := range ks.Columns {
				if col := it.Column; col != nil {
					out = append(out, fmt.Sprintf("%q / %x = %x @ %d", ks.Key, col.Name, col.Value, col.Timestamp))
				}
				if sc := it.SuperColumn; sc != nil {
					for _, col := range sc.Columns {
						out = append(out, fmt.Sprintf("%q / %x / %x = %x @ %d", ks.Key, sc.Name, col.Name, col.Value, col.Timestamp))
					}
				}
			}
		}
		if len(page) < 1000 {
			break
		}
		start = page[len(page)-1].Key
	}
	sort.Strings(out)
	return out
}

// Same fails the test if two dumps differ, showing the first difference.
func Same(t testing.TB, what string, got, want []string) {
	t.Helper()
	if reflect.DeepEqual(got, want) {
		return
	}
	for i := 0; i < min(len(got), len(want)); i++ {
		if got[i] != want[i] {
			t.Fatalf("%s: %d columns, want %d; first difference at %d:\n got  %s\n want %s", what, len(got), len(want), i, got[i], want[i])
		}
	}
	t.Fatalf("%s: %d columns, want %d", what, len(got), len(want))
}
