package transfer_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/thriftd/thriftd/gen-go/cassandra"
	"github.com/thriftd/thriftd/internal/testenv"
	"github.com/thriftd/thriftd/internal/transfertest"
	"github.com/thriftd/thriftd/sstablejson"
	"github.com/thriftd/thriftd/transfer"
)

var thriftdBin string

func TestMain(m *testing.M) { testenv.Main(m, false, &thriftdBin) }

const ks = transfertest.Keyspace

// node starts a thriftd serving the test configuration.
func node(t *testing.T, partitioner string) *testenv.Node {
	t.Helper()
	n := testenv.NewNode(t, thriftdBin, transfertest.Config(t, t.TempDir(), partitioner))
	n.Start()
	return n
}

func ep(n *testenv.Node) transfer.Endpoint { return transfer.Endpoint{Addr: n.Addr} }

// small pages and batches, so that every paging path runs on little data.
func small() transfer.Options {
	return transfer.Options{Keyspace: ks, PageSize: 3, PageRows: 4, BatchSize: 7, Workers: 3}
}

func fillAll(t *testing.T, n *testenv.Node) map[string][]string {
	t.Helper()
	c := n.Client(false)
	want := map[string][]string{}
	for i, f := range transfertest.Families {
		transfertest.Fill(t, c, f, 30, 9, uint64(i))
		want[f.Name] = transfertest.Dump(t, c, f.Name)
		if len(want[f.Name]) == 0 {
			t.Fatalf("%s: nothing written", f.Name)
		}
	}
	return want
}

func checkAll(t *testing.T, n *testenv.Node, want map[string][]string) {
	t.Helper()
	c := n.Client(false)
	for _, f := range transfertest.Families {
		transfertest.Same(t, f.Name, transfertest.Dump(t, c, f.Name), want[f.Name])
	}
}

func TestExportImportEveryComparator(t *testing.T) {
	for _, p := range []string{"RandomPartitioner", "OrderPreservingPartitioner"} {
		t.Run(p, func(t *testing.T) {
			src, dst := node(t, p), node(t, p)
			want := fillAll(t, src)
			dir := t.TempDir()
			o := small()
			o.Checkpoint = filepath.Join(dir, "cp.json")
			sum, err := transfer.Export(context.Background(), ep(src), o, dir)
			if err != nil {
				t.Fatal(err)
			}
			if len(sum.Families) != len(transfertest.Families) || sum.Rows != int64(30*len(transfertest.Families)) {
				t.Fatalf("summary %+v", sum)
			}
			if _, err := os.Stat(o.Checkpoint); !os.IsNotExist(err) {
				t.Fatalf("checkpoint left after a complete export: %v", err)
			}
			for _, f := range transfertest.Families {
				file := transfer.FileName(dir, ks, f.Name)
				b, err := os.ReadFile(file)
				if err != nil {
					t.Fatal(err)
				}
				if !json.Valid(b) {
					t.Fatalf("%s is not valid JSON", file)
				}
				io := small()
				io.ColumnFamilies = []string{f.Name}
				if _, err := transfer.Import(context.Background(), ep(dst), io, file, transfer.ImportOptions{}); err != nil {
					t.Fatal(err)
				}
			}
			checkAll(t, dst, want)
		})
	}
}

func TestCopyEveryComparator(t *testing.T) {
	src, dst := node(t, "RandomPartitioner"), node(t, "RandomPartitioner")
	want := fillAll(t, src)
	sum, err := transfer.Copy(context.Background(), ep(src), ep(dst), small())
	if err != nil {
		t.Fatal(err)
	}
	if sum.Rows != int64(30*len(transfertest.Families)) {
		t.Fatalf("copied %d rows", sum.Rows)
	}
	checkAll(t, dst, want)
}

func TestCopyRefusesAnotherShape(t *testing.T) {
	src := node(t, "RandomPartitioner")
	other := testenv.NewNode(t, thriftdBin, testenv.Fixture("storage-conf-0.6-default.xml"))
	other.Start()
	o := small()
	o.Keyspace = "Keyspace1"
	_, err := transfer.Copy(context.Background(), ep(other), ep(src), o)
	if err == nil || !strings.Contains(err.Error(), "keyspace Keyspace1 does not exist on "+src.Addr) {
		t.Fatalf("error %v", err)
	}
}

func writeFile(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "f.json")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func importFile(t *testing.T, n *testenv.Node, cf, path string, opts transfer.ImportOptions) error {
	t.Helper()
	o := small()
	o.ColumnFamilies = []string{cf}
	_, err := transfer.Import(context.Background(), ep(n), o, path, opts)
	return err
}

func insert(t *testing.T, c *testenv.Client, key, cf string, super, name, value []byte, ts int64) {
	t.Helper()
	if err := c.Insert(context.Background(), ks, key, &cassandra.ColumnPath{ColumnFamily: cf, SuperColumn: super, Column: name}, value, ts, cassandra.ConsistencyLevel_ONE); err != nil {
		t.Fatal(err)
	}
}

// A file in 0.6's own layout, written by hand: hex names, deleted
// columns, a super column with deletedAt, and a key with a raw quote.
func TestImport06FileWithTombstones(t *testing.T) {
	n := node(t, "RandomPartitioner")
	c := n.Client(false)
	// Older data the file's tombstones must shadow, and newer data they
	// must not.
	insert(t, c, "k1", "Bytes", nil, []byte("gone"), []byte("old"), 5)
	insert(t, c, "k1", "Bytes", nil, []byte("kept"), []byte("newer"), 50)
	insert(t, c, "s1", "SuperBytes", []byte("sc"), []byte("a"), []byte("old"), 5)
	insert(t, c, "s1", "SuperBytes", []byte("sc"), []byte("b"), []byte("newer"), 50)
	insert(t, c, "s1", "SuperBytes", []byte("sd"), []byte("x"), []byte("old"), 5)

	std := writeFile(t, `{
  "k1": [["676f6e65", "4b2e8e1a", 10, true], ["6b657074", "00000001", 20, true], ["6e6577", "76616c7565", 30, false]],
  "say "hi"": [["61", "", 7, false]]
}
`)
	if err := importFile(t, n, "Bytes", std, transfer.ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	transfertest.Same(t, "Bytes", transfertest.Dump(t, c, "Bytes"), []string{
		`"k1" / 6b657074 = 6e65776572 @ 50`,
		`"k1" / 6e6577 = 76616c7565 @ 30`,
		`"say \"hi\"" / 61 =  @ 7`,
	})

	super := writeFile(t, `{
  "s1": { "7363": {"deletedAt": 10, "subColumns": [["63", "6e6577", 20, false], ["62", "", 60, true]]}, "7364": {"deletedAt": -9223372036854775808, "subColumns": [["78", "", 6, true]]}}
}
`)
	if err := importFile(t, n, "SuperBytes", super, transfer.ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	// sc: a (5) is shadowed by deletedAt 10, b (50) by its tombstone at
	// 60, c (20) is new; sd/x (5) is shadowed by its tombstone at 6.
	transfertest.Same(t, "SuperBytes", transfertest.Dump(t, c, "SuperBytes"), []string{
		`"s1" / 7363 / 63 = 6e6577 @ 20`,
	})
	// A column written after the tombstone with an older timestamp stays
	// shadowed: the tombstone itself was imported.
	insert(t, c, "k1", "Bytes", nil, []byte("gone"), []byte("again"), 9)
	if _, err := c.Get(context.Background(), ks, "k1", &cassandra.ColumnPath{ColumnFamily: "Bytes", Column: []byte("gone")}, cassandra.ConsistencyLevel_ONE); err == nil {
		t.Fatal("a column older than the imported tombstone is visible")
	}
}

func TestImportRefusesAmbiguousKey(t *testing.T) {
	n := node(t, "RandomPartitioner")
	path := writeFile(t, `{
  "fine": [["61", "62", 1, false]],
  "a": [b": [["61", "62", 1, false]]
}
`)
	err := importFile(t, n, "Bytes", path, transfer.ImportOptions{})
	var se *sstablejson.SyntaxError
	if !errors.As(err, &se) || se.Line != 3 || se.Col != 3 || !strings.Contains(err.Error(), "ambiguous row key") {
		t.Fatalf("error %v", err)
	}
	if d := transfertest.Dump(t, n.Client(false), "Bytes"); len(d) != 0 {
		t.Fatalf("written despite the refusal: %v", d)
	}
}

func TestRejectedBatchWritesNothing(t *testing.T) {
	n := node(t, "RandomPartitioner")
	// The second row's column name is 3 bytes: LongType refuses it. Both
	// rows fit in one batch.
	path := writeFile(t, `{
  "r1": [["0000000000000001", "61", 1, false]],
  "r2": [["0000000000000002", "61", 1, false], ["000001", "62", 2, false]]
}
`)
	for _, precheck := range []bool{true, false} {
		err := importFile(t, n, "Long", path, transfer.ImportOptions{NoPrecheck: !precheck})
		var ve *transfer.ValidationError
		if !errors.As(err, &ve) {
			t.Fatalf("precheck %v: error %v, want a ValidationError", precheck, err)
		}
		msg := err.Error()
		for _, want := range []string{path + ":3:48", `row "r2"`, "column 000001", "A long is exactly 8 bytes"} {
			if !strings.Contains(msg, want) {
				t.Fatalf("error %q lacks %q", msg, want)
			}
		}
		if d := transfertest.Dump(t, n.Client(false), "Long"); len(d) != 0 {
			t.Fatalf("precheck %v: written despite the refusal: %v", precheck, d)
		}
	}
}

func TestImportRefusesBeforeSending(t *testing.T) {
	n := node(t, "RandomPartitioner")
	// A Standard file imported into a super family is refused by the
	// reader; a key the server refuses (empty) is caught before sending.
	path := writeFile(t, `{
  "": [["61", "62", 1, false]]
}
`)
	err := importFile(t, n, "Bytes", path, transfer.ImportOptions{})
	if err == nil || !strings.Contains(err.Error(), "row key may not be empty") {
		t.Fatalf("error %v", err)
	}
	err = importFile(t, n, "SuperBytes", writeFile(t, "{\n  \"k\": [[\"61\", \"62\", 1, false]]\n}\n"), transfer.ImportOptions{})
	if err == nil || !strings.Contains(err.Error(), "the column family is super") {
		t.Fatalf("error %v", err)
	}
}

func TestExportInterruptedResumes(t *testing.T) {
	src, dst := node(t, "RandomPartitioner"), node(t, "RandomPartitioner")
	c := src.Client(false)
	f := transfertest.FamilyNamed("Bytes")
	transfertest.Fill(t, c, f, 200, 5, 42)
	want := transfertest.Dump(t, c, f.Name)
	dir := t.TempDir()
	o := small()
	o.ColumnFamilies = []string{f.Name}
	o.Checkpoint = filepath.Join(dir, "cp.json")
	o.Stats = &transfer.Stats{}
	sum, err := transfer.Export(stopAfter{context.Background(), o.Stats, 50}, ep(src), o, dir)
	if !errors.Is(err, transfer.ErrInterrupted) || !sum.Interrupted {
		t.Fatalf("error %v, summary %+v", err, sum)
	}
	if sum.Rows >= 200 || sum.Rows < 50 {
		t.Fatalf("interrupted after %d rows", sum.Rows)
	}
	o.Resume, o.Stats = true, nil
	sum, err = transfer.Export(context.Background(), ep(src), o, dir)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Rows != 200 || !sum.Families[0].Resumed {
		t.Fatalf("summary %+v", sum)
	}
	file := transfer.FileName(dir, ks, f.Name)
	b, _ := os.ReadFile(file)
	if !json.Valid(b) {
		t.Fatalf("resumed export is not valid JSON")
	}
	io := small()
	io.ColumnFamilies = []string{f.Name}
	if _, err := transfer.Import(context.Background(), ep(dst), io, file, transfer.ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	transfertest.Same(t, f.Name, transfertest.Dump(t, dst.Client(false), f.Name), want)
}

// stopAfter is a context that is done once stats count rows rows, which
// interrupts a transfer at a known point.
type stopAfter struct {
	context.Context
	stats *transfer.Stats
	rows  int64
}

func (s stopAfter) Err() error {
	if s.stats.Rows.Load() >= s.rows {
		return context.Canceled
	}
	return nil
}

func TestImportInterruptedResumes(t *testing.T) {
	src, dst := node(t, "RandomPartitioner"), node(t, "RandomPartitioner")
	f := transfertest.FamilyNamed("SuperUTF8Long")
	transfertest.Fill(t, src.Client(false), f, 200, 4, 9)
	want := transfertest.Dump(t, src.Client(false), f.Name)
	dir := t.TempDir()
	o := small()
	o.ColumnFamilies = []string{f.Name}
	if _, err := transfer.Export(context.Background(), ep(src), o, dir); err != nil {
		t.Fatal(err)
	}
	file := transfer.FileName(dir, ks, f.Name)
	o.Checkpoint = filepath.Join(dir, "import.cp")
	o.Stats = &transfer.Stats{}
	sum, err := transfer.Import(stopAfter{context.Background(), o.Stats, 60}, ep(dst), o, file, transfer.ImportOptions{})
	if !errors.Is(err, transfer.ErrInterrupted) || sum.Rows < 60 || sum.Rows >= 200 {
		t.Fatalf("error %v, %d rows", err, sum.Rows)
	}
	// A checkpoint of another file is refused.
	o.Resume, o.Stats = true, nil
	other := filepath.Join(dir, "other.json")
	b, _ := os.ReadFile(file)
	os.WriteFile(other, b, 0o644)
	if _, err := transfer.Import(context.Background(), ep(dst), o, other, transfer.ImportOptions{}); err == nil || !strings.Contains(err.Error(), "not of import") {
		t.Fatalf("resuming from another file's checkpoint: %v", err)
	}
	sum, err = transfer.Import(context.Background(), ep(dst), o, file, transfer.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Rows != 200 || !sum.Families[0].Resumed {
		t.Fatalf("summary %+v", sum)
	}
	transfertest.Same(t, f.Name, transfertest.Dump(t, dst.Client(false), f.Name), want)
}

// A batch the server refuses (thriftd refuses writes to the system
// keyspace, which the file's checks cannot know) fails the import with
// the server's reason and the batch's rows, and none of it is written.
func TestServerRefusalNamesTheBatch(t *testing.T) {
	n := node(t, "RandomPartitioner")
	path := writeFile(t, "{\n  \"a\": [[\"61\", \"62\", 1, false]],\n  \"b\": [[\"61\", \"62\", 1, false]]\n}\n")
	o := small()
	o.Keyspace, o.ColumnFamilies = "system", []string{"LocationInfo"}
	_, err := transfer.Import(context.Background(), ep(n), o, path, transfer.ImportOptions{})
	if err == nil || !strings.Contains(err.Error(), `batch_mutate of 2 columns of system.LocationInfo, rows "a" to "b", on `+n.Addr+": invalid request: ") {
		t.Fatalf("error %v", err)
	}
	c := n.Client(false)
	for _, key := range []string{"a", "b"} {
		got, err := c.GetSlice(context.Background(), "system", key, &cassandra.ColumnParent{ColumnFamily: "LocationInfo"},
			&cassandra.SlicePredicate{SliceRange: &cassandra.SliceRange{Start: []byte{}, Finish: []byte{}, Count: 10}}, cassandra.ConsistencyLevel_ONE)
		if err != nil || len(got) != 0 {
			t.Fatalf("row %s: %v, %v", key, got, err)
		}
	}
}
