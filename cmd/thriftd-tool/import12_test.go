package main

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/thriftd/thriftd/gen-go/cassandra19"
	"github.com/thriftd/thriftd/internal/testenv"
	"github.com/thriftd/thriftd/internal/transfertest"
	"github.com/thriftd/thriftd/sstablejson"
)

// expiration finds the latest write time of the expiring columns of the
// 1.x files (local expiration time less TTL).
type expiration struct{ written int64 }

func (e *expiration) Row(sstablejson.Row12) error                 { return nil }
func (e *expiration) Super(string, *sstablejson.Deletion12) error { return nil }
func (e *expiration) EndRow() error                               { return nil }
func (e *expiration) Column(c sstablejson.Column12) error {
	if c.Kind == "e" {
		e.written = max(e.written, int64(c.LocalExpiration)-int64(c.TTL))
	}
	return nil
}

// Dumps that Cassandra 1.2.19's own sstable2json wrote
// (sstablejson/testdata/1.2, recorded by its record.sh) import into
// thriftd: every column the 1.2 node answered through Thrift arrives with
// its value and timestamp, deleted columns, super columns and rows stay
// deleted, and expiring columns keep the TTL left until their expiration
// time.
func TestImportCassandra12Dump(t *testing.T) {
	dir := filepath.Join("..", "..", "sstablejson", "testdata", "1.2")
	var ks cassandra19.KsDef
	readJSON(t, filepath.Join(dir, "schema.json"), &ks)
	var expected map[string][]struct {
		Key, Super, Name, Value string
		Timestamp               int64
		TTL                     int32
	}
	readJSON(t, filepath.Join(dir, "expected.json"), &expected)
	dst := node19(t)
	c := transfertest.Dial19(t, dst.Addr)
	if _, err := c.SystemAddKeyspace(context.Background(), &ks); err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join(dir, "*-*.json"))
	if err != nil || len(files) < len(ks.CfDefs) {
		t.Fatalf("dumps %v (%v)", files, err)
	}
	exp := &expiration{}
	work := t.TempDir()
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := sstablejson.Read12(fh, exp); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		fh.Close()
		cf, _, _ := strings.Cut(filepath.Base(f), "-")
		// A copy, so that the checkpoint goes to a scratch directory.
		b, _ := os.ReadFile(f)
		file := filepath.Join(work, filepath.Base(f))
		os.WriteFile(file, b, 0o644)
		out, errOut, code := tool(t, work, "import", "--server", dst.Addr, "--keyspace", ks.Name, "--cf", cf, "--progress", "off", file)
		if code != 0 {
			t.Fatalf("import %s: exit %d\n%s\n%s", f, code, out, errOut)
		}
	}
	if exp.written == 0 {
		t.Fatal("the dumps hold no expiring column")
	}
	slack := int32(time.Now().Unix()-exp.written) + 120
	if err := c.SetKeyspace(context.Background(), ks.Name); err != nil {
		t.Fatal(err)
	}
	for _, d := range ks.CfDefs {
		var want []transfertest.Cell19
		for _, e := range expected[d.Name] {
			want = append(want, transfertest.Cell19{Key: unhex(t, e.Key), Super: unhex(t, e.Super), Name: unhex(t, e.Name), Value: unhex(t, e.Value), Timestamp: e.Timestamp, TTL: e.TTL})
		}
		if len(want) == 0 {
			t.Fatalf("%s: nothing expected", d.Name)
		}
		transfertest.Same19(t, d.Name, transfertest.Dump19(t, c, d.Name), want, slack)
	}
}

func unhex(t *testing.T, s string) []byte {
	t.Helper()
	if s == "" {
		return nil
	}
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// Every family of a 1.2.19 keyspace whose values have one spelling
// exports in the 1.x format (read through the 19.x API) and imports into
// thriftd with every column, value, timestamp and TTL bound kept.
func TestExportImport12FromCassandra12(t *testing.T) {
	t0 := time.Now()
	ref, ks, fams := reference19(t, 15, 6)
	src := transfertest.Dial19(t, ref)
	def, err := src.DescribeKeyspace(context.Background(), ks)
	if err != nil {
		t.Fatal(err)
	}
	dst := node19(t)
	tgt := transfertest.Dial19(t, dst.Addr)
	// IntegerType and DecimalType print a number whatever its encoding,
	// so an encoding longer than needed does not come back byte for byte;
	// DynamicCompositeType is not read from text.
	lossy := map[string]bool{"NIntegerType": true, "NDecimalType": true, "NDynamicCompositeType_aAsciiType_lLongTyp": true, "Counts": true, "SuperCounts": true} // counters: TestExportImport12Counters
	var keep []*cassandra19.CfDef
	args := []string{"export", "--server", ref, "--keyspace", ks, "--format", "1.x", "--progress", "off", "--page-size", "4", "--page-rows", "5"}
	for _, d := range def.CfDefs {
		if !lossy[d.Name] {
			d.ID = nil
			keep = append(keep, d)
			args = append(args, "--cf", d.Name)
		}
	}
	def.CfDefs = keep
	if _, err := tgt.SystemAddKeyspace(context.Background(), def); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	out, errOut, code := tool(t, dir, append(args, "--out", dir)...)
	if code != 0 {
		t.Fatalf("export: exit %d\n%s\n%s", code, out, errOut)
	}
	for _, d := range keep {
		out, errOut, code := tool(t, dir, "import", "--server", dst.Addr, "--keyspace", ks, "--cf", d.Name, "--progress", "off", filepath.Join(dir, ks+"."+d.Name+".json"))
		if code != 0 {
			t.Fatalf("import %s: exit %d\n%s\n%s", d.Name, code, out, errOut)
		}
	}
	slack := int32(time.Since(t0)/time.Second) + 2
	for _, c := range []*transfertest.Client19{src, tgt} {
		if err := c.SetKeyspace(context.Background(), ks); err != nil {
			t.Fatal(err)
		}
	}
	n := 0
	for _, f := range fams {
		if !lossy[f.Def.Name] {
			transfertest.Same19(t, f.Def.Name, transfertest.Dump19(t, tgt, f.Def.Name), transfertest.Dump19(t, src, f.Def.Name), slack)
			n++
		}
	}
	if n < 15 {
		t.Fatalf("only %d families compared", n)
	}
}

// An import of a 1.x file stopped by SIGINT resumes where it stopped and
// ends with every column of the file.
func TestImport12InterruptedResumes(t *testing.T) {
	dst := node19(t)
	c := transfertest.Dial19(t, dst.Addr)
	str := func(s string) *string { return &s }
	ks := &cassandra19.KsDef{Name: "Imp12", StrategyClass: "SimpleStrategy", StrategyOptions: map[string]string{"replication_factor": "1"},
		CfDefs: []*cassandra19.CfDef{{Keyspace: "Imp12", Name: "Data", ColumnType: "Standard", ComparatorType: "LongType", DefaultValidationClass: str("UTF8Type"), Caching: "KEYS_ONLY"}}}
	if _, err := c.SystemAddKeyspace(context.Background(), ks); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "Data.json")
	fh, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	w := sstablejson.NewWriter12(fh, false)
	const rows, cols = 3000, 5
	for i := range rows {
		w.BeginRow([]byte(transfertest.Key(i)))
		for j := range cols {
			w.Column(strconv.Itoa(j-2), "é "+strconv.Itoa(i*j), int64(i), 0, 0)
		}
		w.EndRow()
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	fh.Close()
	args := []string{"import", "--server", dst.Addr, "--keyspace", "Imp12", "--cf", "Data", "--workers", "1", "--batch-size", "5",
		"--progress", "log", "--progress-interval", "50ms", file}
	cmd := exec.Command(toolBin, args...)
	cmd.Dir = dir
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	sc := bufio.NewScanner(stderr)
	signalled := false
	for sc.Scan() {
		line := sc.Text()
		log.WriteString(line + "\n")
		if !signalled && strings.Contains(line, "msg=progress") && !strings.Contains(line, " rows=0 ") {
			cmd.Process.Signal(syscall.SIGINT)
			signalled = true
		}
	}
	cmd.Wait()
	if !signalled || cmd.ProcessState.ExitCode() != 130 {
		t.Fatalf("exit %d, signalled %v:\n%s", cmd.ProcessState.ExitCode(), signalled, log.String())
	}
	out, errOut, code := tool(t, dir, append(args, "--resume")...)
	if code != 0 || !strings.Contains(out, "(resumed)") {
		t.Fatalf("resume: exit %d\n%s\n%s", code, out, errOut)
	}
	if err := c.SetKeyspace(context.Background(), "Imp12"); err != nil {
		t.Fatal(err)
	}
	got := transfertest.Dump19(t, c, "Data")
	if len(got) != rows*cols {
		t.Fatalf("%d columns after resuming, want %d", len(got), rows*cols)
	}
	for _, cell := range got {
		i := int(cell.Timestamp)
		j := int(int64(binary.BigEndian.Uint64(cell.Name))) + 2
		if string(cell.Key) != transfertest.Key(i) || string(cell.Value) != "é "+strconv.Itoa(i*j) {
			t.Fatalf("imported %v", cell)
		}
	}
}

// Counter families of the real Cassandra 1.2.19 node (standard and super)
// export to the 1.x JSON as counter cells and import into thriftd on
// LevelDB and on the Cassandra store with the source's totals; the
// import run again, as a resume rewrites what followed its checkpoint,
// leaves them at those totals, not doubled; and thriftd's own export of
// them imports into the other store with the same totals.
func TestExportImport12Counters(t *testing.T) {
	ref, ks, fams, src := emptyReference19(t, func(f transfertest.Family19) bool { return f.IsCounter() })
	for _, f := range fams {
		loadCounterRows(t, src, f, 40)
	}
	def, err := src.DescribeKeyspace(context.Background(), ks)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range def.CfDefs {
		d.ID = nil
	}
	ldb := node19(t)
	conf := transfertest.Config(t, t.TempDir(), "RandomPartitioner")
	cql := testenv.NewNode(t, thriftdBin, conf, append(testenv.CassandraStoreFlags(t, conf), "-api", "19.x")...)
	cql.Start()
	export := func(from, dir string) {
		t.Helper()
		args := []string{"export", "--server", from, "--keyspace", ks, "--format", "1.x", "--progress", "off", "--page-rows", "7", "--out", dir}
		if out, errOut, code := tool(t, dir, args...); code != 0 {
			t.Fatalf("export from %s: exit %d\n%s\n%s", from, code, out, errOut)
		}
	}
	load := func(to, dir string) {
		t.Helper()
		for _, f := range fams {
			file := filepath.Join(dir, ks+"."+f.Def.Name+".json")
			if out, errOut, code := tool(t, dir, "import", "--server", to, "--keyspace", ks, "--cf", f.Def.Name, "--progress", "off", "--batch-size", "9", file); code != 0 {
				t.Fatalf("import %s into %s: exit %d\n%s\n%s", f.Def.Name, to, code, out, errOut)
			}
		}
	}
	dir := t.TempDir()
	export(ref, dir)
	b, err := os.ReadFile(filepath.Join(dir, ks+"."+fams[0].Def.Name+".json"))
	if err != nil || !strings.Contains(string(b), `,"c",-9223372036854775808]`) {
		t.Fatalf("the export holds no counter cell as 1.2 writes one (%v):\n%.400s", err, b)
	}
	tgt := transfertest.Dial19(t, ldb.Addr)
	if _, err := tgt.SystemAddKeyspace(context.Background(), def); err != nil {
		t.Fatal(err)
	}
	load(ldb.Addr, dir)
	load(ldb.Addr, dir) // again: still the source's totals
	for _, c := range []*transfertest.Client19{src, tgt} {
		if err := c.SetKeyspace(context.Background(), ks); err != nil {
			t.Fatal(err)
		}
	}
	sameCounters(t, src, tgt, fams)

	// thriftd's export, from LevelDB into the Cassandra store.
	dir2 := t.TempDir()
	export(ldb.Addr, dir2)
	tgt2 := transfertest.Dial19(t, cql.Addr)
	if _, err := tgt2.SystemAddKeyspace(context.Background(), def); err != nil {
		t.Fatal(err)
	}
	load(cql.Addr, dir2)
	if err := tgt2.SetKeyspace(context.Background(), ks); err != nil {
		t.Fatal(err)
	}
	sameCounters(t, src, tgt2, fams)
}

// Counter families that Cassandra 1.2.19's own sstable2json dumped
// (sstablejson/testdata/1.2/counters, recorded by record.sh counters:
// contexts of the node's local shard, a counter removed, one removed in
// the same millisecond as its add, which 1.2 keeps, and super counters)
// import into thriftd on LevelDB and on the Cassandra store with the
// totals the 1.2 node answered; imported twice, they stay so.
func TestImportCassandra12CounterDump(t *testing.T) {
	dir := filepath.Join("..", "..", "sstablejson", "testdata", "1.2", "counters")
	var ks cassandra19.KsDef
	readJSON(t, filepath.Join(dir, "schema.json"), &ks)
	var expected map[string]map[string]int64
	readJSON(t, filepath.Join(dir, "expected.json"), &expected)
	files, err := filepath.Glob(filepath.Join(dir, "*-*.json"))
	if err != nil || len(files) != len(ks.CfDefs) {
		t.Fatalf("dumps %v (%v)", files, err)
	}
	conf := transfertest.Config(t, t.TempDir(), "RandomPartitioner")
	cql := testenv.NewNode(t, thriftdBin, conf, append(testenv.CassandraStoreFlags(t, conf), "-api", "19.x")...)
	cql.Start()
	for _, dst := range []*testenv.Node{node19(t), cql} {
		c := transfertest.Dial19(t, dst.Addr)
		if _, err := c.SystemAddKeyspace(context.Background(), &ks); err != nil {
			t.Fatal(err)
		}
		work := t.TempDir()
		for range 2 {
			for _, f := range files {
				cf, _, _ := strings.Cut(filepath.Base(f), "-")
				b, _ := os.ReadFile(f)
				file := filepath.Join(work, filepath.Base(f))
				os.WriteFile(file, b, 0o644)
				out, errOut, code := tool(t, work, "import", "--server", dst.Addr, "--keyspace", ks.Name, "--cf", cf, "--progress", "off", file)
				if code != 0 {
					t.Fatalf("import %s: exit %d\n%s\n%s", f, code, out, errOut)
				}
			}
		}
		if err := c.SetKeyspace(context.Background(), ks.Name); err != nil {
			t.Fatal(err)
		}
		for _, d := range ks.CfDefs {
			want := expected[d.Name]
			if len(want) == 0 {
				t.Fatalf("%s: nothing expected", d.Name)
			}
			pred := &cassandra19.SlicePredicate{SliceRange: &cassandra19.SliceRange{Start: []byte{}, Finish: []byte{}, Count: 1000}}
			rows, err := c.GetRangeSlices(context.Background(), &cassandra19.ColumnParent{ColumnFamily: d.Name}, pred,
				&cassandra19.KeyRange{StartKey: []byte{}, EndKey: []byte{}, Count: 1000}, cassandra19.ConsistencyLevel_ONE)
			if err != nil {
				t.Fatal(err)
			}
			if got := transfertest.CounterTotals19(rows); !reflect.DeepEqual(got, want) {
				t.Errorf("%s on %s: %v, want %v", d.Name, dst.Addr, got, want)
			}
		}
	}
}
