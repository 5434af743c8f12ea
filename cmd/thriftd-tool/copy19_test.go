package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/thriftd/thriftd/gen-go/cassandra19"
	"github.com/thriftd/thriftd/internal/testenv"
	"github.com/thriftd/thriftd/internal/transfertest"
	"github.com/thriftd/thriftd/transfer"
)

// reference19 loads a fresh keyspace of the real Cassandra 1.2.19 node
// with every family of transfertest.Families19 and returns the node's
// address, the keyspace and its families. The keyspace is dropped when
// the test ends.
func reference19(t *testing.T, rows, width int) (string, string, []transfertest.Family19) {
	t.Helper()
	return loadReference(t, "1.2", rows, width)
}

// loadReference is reference19 on the real node of version.
func loadReference(t *testing.T, version string, rows, width int) (string, string, []transfertest.Family19) {
	t.Helper()
	ref, ks, fams, c := emptyReference(t, version, nil)
	for i, f := range fams {
		if f.IsCounter() {
			transfertest.LoadCounters(t, c, f, 5)
			continue
		}
		transfertest.Load19(t, c, f, rows, width, uint64(i))
	}
	return ref, ks, fams
}

// emptyReference19 creates a fresh keyspace on the real Cassandra 1.2.19
// node with the families of transfertest.Families19 that keep accepts
// (all when nil), dropped when the test ends, and returns the node's
// address, the keyspace, the families and a connection in it.
func emptyReference19(t *testing.T, keep func(transfertest.Family19) bool) (string, string, []transfertest.Family19, *transfertest.Client19) {
	t.Helper()
	return emptyReference(t, "1.2", keep)
}

// emptyReference is emptyReference19 on the real node of version.
func emptyReference(t *testing.T, version string, keep func(transfertest.Family19) bool) (string, string, []transfertest.Family19, *transfertest.Client19) {
	t.Helper()
	ref := testenv.Reference(t, version, "random")
	ks := fmt.Sprintf("Copy%s_%d", strings.ReplaceAll(version, ".", ""), time.Now().UnixNano()%1e12)
	var fams []transfertest.Family19
	for _, f := range transfertest.Families19(ks) {
		if keep == nil || keep(f) {
			fams = append(fams, f)
		}
	}
	c := transfertest.Dial19(t, ref)
	transfertest.CreateKeyspace19(t, c, ks, fams)
	t.Cleanup(func() {
		c := transfertest.Dial19(t, ref)
		if _, err := c.SystemDropKeyspace(context.Background(), ks); err != nil {
			t.Logf("dropping %s on %s: %v", ks, ref, err)
		}
	})
	return ref, ks, fams, c
}

// A keyspace of the real Cassandra 1.2.19 node, with every type of 1.2
// as comparator and validator, composites, super families, expiring
// columns and deletions, is copied into thriftd on LevelDB: the keyspace
// and families are created from the source's definitions, every live
// column arrives with its value and timestamp, expiring ones with what
// remains of their TTL (the whole TTL for those written with 2017
// timestamps, which the source serves for hours yet), and the standard
// and super counter families with the source's totals. The copy run a
// second time leaves the counters at the source's totals (not doubled).
func TestCopyFromCassandra12(t *testing.T) { testCopyFromReference(t, "1.2") }

// The same copy from the real Cassandra 2.1.21 node.
func TestCopyFromCassandra21(t *testing.T) { testCopyFromReference(t, "2.1") }

// The same copy from the real Cassandra 3.11.19 node (the 20.x API).
func TestCopyFromCassandra311(t *testing.T) { testCopyFromReference(t, "3.11") }

func testCopyFromReference(t *testing.T, version string) {
	t0 := time.Now()
	ref, ks, fams := loadReference(t, version, 40, 12)
	dst := node19(t)
	dir := t.TempDir()
	args := []string{"copy", "--from", ref, "--to", dst.Addr, "--keyspace", ks, "--progress", "off", "--page-size", "7", "--page-rows", "9", "--batch-size", "20"}
	_, errOut, code := tool(t, dir, args...)
	if code != 0 {
		t.Fatalf("copy: exit %d: %s", code, errOut)
	}
	slack := int32(time.Since(t0)/time.Second) + 2
	src, tgt := transfertest.Dial19(t, ref), transfertest.Dial19(t, dst.Addr)
	compareSchema(t, src, tgt, ks, version)
	for _, c := range []*transfertest.Client19{src, tgt} {
		if err := c.SetKeyspace(context.Background(), ks); err != nil {
			t.Fatal(err)
		}
	}
	sameCounters(t, src, tgt, fams)
	expiring, backfilled := 0, 0
	for _, f := range fams {
		if f.IsCounter() {
			continue
		}
		want := transfertest.Dump19(t, src, f.Def.Name)
		if len(want) == 0 {
			t.Fatalf("%s: nothing was loaded into the source", f.Def.Name)
		}
		for _, c := range want {
			if c.TTL > 0 {
				expiring++
				if c.Timestamp < t0.AddDate(-1, 0, 0).UnixMicro() {
					backfilled++
				}
			}
		}
		transfertest.Same19(t, f.Def.Name, transfertest.Dump19(t, tgt, f.Def.Name), want, slack)
	}
	if expiring == 0 || backfilled == 0 {
		t.Fatalf("%d expiring columns were loaded, %d of them with old timestamps", expiring, backfilled)
	}
	t.Logf("copied from Cassandra %s: %d expiring columns, %d of them with 2017 timestamps", version, expiring, backfilled)
	if _, errOut, code := tool(t, dir, args...); code != 0 {
		t.Fatalf("second copy: exit %d: %s", code, errOut)
	}
	sameCounters(t, src, tgt, fams)
}

// sameCounters fails t unless every counter family of fams holds the
// same counters with the same totals on tgt as on src (both in the
// keyspace).
func sameCounters(t *testing.T, src, tgt *transfertest.Client19, fams []transfertest.Family19) {
	t.Helper()
	n := 0
	for _, f := range fams {
		if !f.IsCounter() {
			continue
		}
		n++
		want := transfertest.DumpCounters19(t, src, f.Def.Name)
		if len(want) == 0 {
			t.Fatalf("%s: no counter was loaded into the source", f.Def.Name)
		}
		if got := transfertest.DumpCounters19(t, tgt, f.Def.Name); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: the target holds %d counters %v, the source %d %v", f.Def.Name, len(got), got, len(want), want)
		}
	}
	if n == 0 {
		t.Fatal("no counter family")
	}
}

// node19 starts a thriftd on LevelDB that answers fresh framed
// connections in the 19.x API.
func node19(t *testing.T) *testenv.Node {
	t.Helper()
	n := testenv.NewNode(t, thriftdBin, transfertest.Config(t, t.TempDir(), "RandomPartitioner"), "-api", "auto")
	n.Start()
	return n
}

// compareSchema fails t unless the target has the source's keyspace
// with the same definitions of its families (every field but the id).
// From a source newer than 1.2 (version), whose CfDef has fields thriftd
// does not keep, the fields compared are 1.2's, and the source must hold
// 1.2's defaults in the others (sameAs12).
func compareSchema(t *testing.T, src, tgt *transfertest.Client19, ks, version string) {
	t.Helper()
	ctx := context.Background()
	a, err := src.DescribeKeyspace(ctx, ks)
	if err != nil {
		t.Fatal(err)
	}
	b, err := tgt.DescribeKeyspace(ctx, ks)
	if err != nil {
		t.Fatalf("describe_keyspace %s on the target: %v", ks, err)
	}
	if a.StrategyClass != b.StrategyClass || !reflect.DeepEqual(a.StrategyOptions, b.StrategyOptions) {
		t.Errorf("keyspace %s: strategy %s %v on the target, %s %v on the source", ks, b.StrategyClass, b.StrategyOptions, a.StrategyClass, a.StrategyOptions)
	}
	got := map[string]*cassandra19.CfDef{}
	for _, d := range b.CfDefs {
		got[d.Name] = d
	}
	for _, d := range a.CfDefs {
		g, ok := got[d.Name]
		if !ok {
			t.Errorf("family %s is missing on the target", d.Name)
			continue
		}
		w, h := *d, *g
		w.ID, h.ID = nil, nil
		if version != "1.2" {
			sameAs12(t, &w, &h)
		}
		if !reflect.DeepEqual(w, h) {
			wv, hv := reflect.ValueOf(w), reflect.ValueOf(h)
			for i := range wv.NumField() {
				if !reflect.DeepEqual(wv.Field(i).Interface(), hv.Field(i).Interface()) {
					t.Errorf("family %s: %s is %s on the target, %s on the source", d.Name, wv.Type().Field(i).Name, show(hv.Field(i)), show(wv.Field(i)))
				}
			}
		}
	}
}

// show prints a field of a CfDef, through its pointer.
func show(v reflect.Value) string {
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return "unset"
		}
		v = v.Elem()
	}
	return fmt.Sprintf("%v", v.Interface())
}

// sameAs12 brings the CfDef w that a source newer than 1.2 described and
// the target's h to the fields 1.2 has, which thriftd answers: the
// fields 2.0 and later removed (replicate_on_write,
// populate_io_cache_on_flush) are not compared, and those they added
// (default_time_to_live) must hold what 1.2 did without them. The
// columns that 3.x lists in a super family's column_metadata for its own
// layout (a map named "" and "value"), which copy leaves out, are set
// aside.
func sameAs12(t *testing.T, w, h *cassandra19.CfDef) {
	t.Helper()
	h.ReplicateOnWrite, h.PopulateIoCacheOnFlush = nil, nil
	if len(w.Triggers) == 0 && len(h.Triggers) == 0 {
		w.Triggers, h.Triggers = nil, nil
	}
	if ttl := w.GetDefaultTimeToLive(); ttl != 0 {
		t.Errorf("family %s: default_time_to_live %d on the source", w.Name, ttl)
	}
	w.DefaultTimeToLive = nil
	if w.ColumnType == "Super" {
		var keep []*cassandra19.ColumnDef
		for _, cd := range w.ColumnMetadata {
			layout := len(cd.Name) == 0 && strings.Contains(cd.ValidationClass, "MapType(") || string(cd.Name) == "value"
			if !layout {
				keep = append(keep, cd)
			}
		}
		if keep == nil {
			keep = []*cassandra19.ColumnDef{}
		}
		w.ColumnMetadata = keep
	}
}

// A copy from the real Cassandra 1.2.19 node stopped by SIGINT leaves a
// checkpoint at a row boundary (every row on the target whole) and
// --resume completes it.
func TestCopyFromCassandra12InterruptedResumes(t *testing.T) {
	testCopyFromReferenceInterruptedResumes(t, "1.2")
}

// The same from the real Cassandra 2.1.21 node.
func TestCopyFromCassandra21InterruptedResumes(t *testing.T) {
	testCopyFromReferenceInterruptedResumes(t, "2.1")
}

// The same from the real Cassandra 3.11.19 node.
func TestCopyFromCassandra311InterruptedResumes(t *testing.T) {
	testCopyFromReferenceInterruptedResumes(t, "3.11")
}

func testCopyFromReferenceInterruptedResumes(t *testing.T, version string) {
	ref, ks, fams, c := emptyReference(t, version, func(f transfertest.Family19) bool { return f.Def.Name == "NBytesType" })
	transfertest.Load19(t, c, fams[0], 2000, 12, 3)
	dst := node19(t)
	dir := t.TempDir()
	args := []string{"copy", "--from", ref, "--to", dst.Addr, "--keyspace", ks,
		"--workers", "1", "--batch-size", "5", "--page-rows", "10", "--progress", "log", "--progress-interval", "50ms"}
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
	if !signalled {
		t.Fatalf("copy ended before any progress line:\n%s", log.String())
	}
	if code := cmd.ProcessState.ExitCode(); code != 130 {
		t.Fatalf("exit code %d after SIGINT, want 130:\n%s", code, log.String())
	}
	b, err := os.ReadFile(filepath.Join(dir, "thriftd-tool-copy-"+ks+".checkpoint.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cp transfer.Checkpoint
	if err := json.Unmarshal(b, &cp); err != nil {
		t.Fatal(err)
	}
	pos := cp.Families["NBytesType"]
	if pos == nil || pos.Done || pos.Rows == 0 || pos.Rows >= 1800 {
		t.Fatalf("checkpoint %s", b)
	}
	src, tgt := transfertest.Dial19(t, ref), transfertest.Dial19(t, dst.Addr)
	for _, c := range []*transfertest.Client19{src, tgt} {
		if err := c.SetKeyspace(context.Background(), ks); err != nil {
			t.Fatal(err)
		}
	}
	want := transfertest.Dump19(t, src, "NBytesType")
	// Every row the target holds is the source's row whole.
	byRow := func(cells []transfertest.Cell19) map[string][]string {
		m := map[string][]string{}
		for _, c := range cells {
			c.TTL = 0
			m[string(c.Key)] = append(m[string(c.Key)], c.String())
		}
		return m
	}
	got, wantRows := byRow(transfertest.Dump19(t, tgt, "NBytesType")), byRow(want)
	for key, cols := range got {
		if !slices.Equal(cols, wantRows[key]) {
			t.Fatalf("after the interruption the target holds row %x with %d columns, not the source's %d", key, len(cols), len(wantRows[key]))
		}
	}
	if int64(len(got)) < pos.Rows {
		t.Fatalf("the target holds %d rows, the checkpoint says %d were copied", len(got), pos.Rows)
	}
	out, errOut, code := tool(t, dir, append(args, "--resume")...)
	if code != 0 || !strings.Contains(out, "(resumed)") {
		t.Fatalf("resume: exit %d\n%s\n%s", code, out, errOut)
	}
	transfertest.Same19(t, "after resume", transfertest.Dump19(t, tgt, "NBytesType"), want, 600)
}

// One row of 60,000 columns of 1,000 bytes (60 MB) on the real Cassandra
// 1.2.19 node copies with the tool's memory bounded by its page and
// batch sizes, not by the row.
func TestCopyFromCassandra12WideRowInBoundedMemory(t *testing.T) {
	testCopyFromReferenceWideRow(t, "1.2")
}

// The same from the real Cassandra 2.1.21 node.
func TestCopyFromCassandra21WideRowInBoundedMemory(t *testing.T) {
	testCopyFromReferenceWideRow(t, "2.1")
}

// The same from the real Cassandra 3.11.19 node.
func TestCopyFromCassandra311WideRowInBoundedMemory(t *testing.T) {
	testCopyFromReferenceWideRow(t, "3.11")
}

func testCopyFromReferenceWideRow(t *testing.T, version string) {
	ref, ks, fams, c := emptyReference(t, version, func(f transfertest.Family19) bool { return f.Def.Name == "NBytesType" })
	value := bytes.Repeat([]byte("v"), 1000)
	ts := time.Now().UnixMicro()
	const n, per = 60000, 1000
	for i := 0; i < n; i += per {
		var muts []*cassandra19.Mutation
		for j := i; j < i+per; j++ {
			name := binary.BigEndian.AppendUint64(nil, uint64(j))
			muts = append(muts, &cassandra19.Mutation{ColumnOrSupercolumn: &cassandra19.ColumnOrSuperColumn{Column: &cassandra19.Column{Name: name, Value: value, Timestamp: &ts}}})
		}
		if err := c.BatchMutate(context.Background(), map[string]map[string][]*cassandra19.Mutation{"wide": {fams[0].Def.Name: muts}}, cassandra19.ConsistencyLevel_ONE); err != nil {
			t.Fatal(err)
		}
	}
	dst := node19(t)
	t0 := time.Now()
	peak, out := peakRSS(t, t.TempDir(), "copy", "--from", ref, "--to", dst.Addr, "--keyspace", ks, "--progress", "off")
	elapsed := time.Since(t0)
	t.Logf("copied one row of %d columns of %d bytes from Cassandra %s in %v (%.0f columns/s), peak RSS %d MB", n, len(value), version, elapsed, n/elapsed.Seconds(), peak>>20)
	if !strings.Contains(out, "60000 columns") {
		t.Fatalf("summary:\n%s", out)
	}
	if peak > 150<<20 {
		t.Fatalf("the tool peaked at %d MB copying a 60 MB row", peak>>20)
	}
	tgt := transfertest.Dial19(t, dst.Addr)
	if err := tgt.SetKeyspace(context.Background(), ks); err != nil {
		t.Fatal(err)
	}
	cnt, err := tgt.GetCount(context.Background(), []byte("wide"), &cassandra19.ColumnParent{ColumnFamily: fams[0].Def.Name}, &cassandra19.SlicePredicate{SliceRange: &cassandra19.SliceRange{Start: []byte{}, Finish: []byte{}, Count: 1 << 30}}, cassandra19.ConsistencyLevel_ONE)
	if err != nil || cnt != n {
		t.Fatalf("the target's row holds %d columns (%v), want %d", cnt, err, n)
	}
}

// The same copy as TestCopyFromCassandra12, into thriftd on a Cassandra 5
// cluster (the Cassandra store).
func TestCopyFromCassandra12OntoCassandraStore(t *testing.T) {
	testCopyFromReferenceOntoCassandraStore(t, "1.2")
}

// The same from the real Cassandra 3.11.19 node: a move off Cassandra
// 3.11 by copy, onto Cassandra 5 with thriftd in front.
func TestCopyFromCassandra311OntoCassandraStore(t *testing.T) {
	testCopyFromReferenceOntoCassandraStore(t, "3.11")
}

func testCopyFromReferenceOntoCassandraStore(t *testing.T, version string) {
	t0 := time.Now()
	ref, ks, fams := loadReference(t, version, 20, 8)
	conf := transfertest.Config(t, t.TempDir(), "RandomPartitioner")
	dst := testenv.NewNode(t, thriftdBin, conf, append(testenv.CassandraStoreFlags(t, conf), "-api", "auto")...)
	dst.Start()
	if len(dst.Records(map[string]string{"msg": "Cassandra schema ready"})) == 0 {
		t.Fatalf("the target does not store into Cassandra:\n%s", dst.Logs())
	}
	dir := t.TempDir()
	args := []string{"copy", "--from", ref, "--to", dst.Addr, "--keyspace", ks, "--progress", "off"}
	_, errOut, code := tool(t, dir, args...)
	if code != 0 {
		t.Fatalf("copy: exit %d: %s", code, errOut)
	}
	src, tgt := transfertest.Dial19(t, ref), transfertest.Dial19(t, dst.Addr)
	compareSchema(t, src, tgt, ks, version)
	for _, c := range []*transfertest.Client19{src, tgt} {
		if err := c.SetKeyspace(context.Background(), ks); err != nil {
			t.Fatal(err)
		}
	}
	sameCounters(t, src, tgt, fams)
	if _, errOut, code := tool(t, dir, args...); code != 0 {
		t.Fatalf("second copy: exit %d: %s", code, errOut)
	}
	sameCounters(t, src, tgt, fams)
	for _, f := range fams {
		if !f.IsCounter() {
			want := transfertest.Dump19(t, src, f.Def.Name)
			got := transfertest.Dump19(t, tgt, f.Def.Name)
			// The Cassandra store answers the TTL left at the read.
			slack := int32(time.Since(t0)/time.Second) + 2
			transfertest.Same19(t, f.Def.Name, got, want, slack)
		}
	}
}

// BenchmarkCopyFromCassandra12 loads the real Cassandra 1.2.19 node with
// rows of 100 columns of 32-byte values (THRIFTD_COPY_BENCH_ROWS rows,
// 2,000 by default) and times thriftd-tool copy from it into thriftd on
// LevelDB, reporting rows/s and columns/s (docs/migration.md#speed).
func BenchmarkCopyFromCassandra12(b *testing.B) {
	rows := 2000
	if v := os.Getenv("THRIFTD_COPY_BENCH_ROWS"); v != "" {
		fmt.Sscan(v, &rows)
	}
	ref := testenv.Reference(b, "1.2", "random")
	ks := fmt.Sprintf("CopyBench_%d", time.Now().UnixNano()%1e12)
	c := transfertest.Dial19(b, ref)
	str := func(s string) *string { return &s }
	def := &cassandra19.CfDef{Keyspace: ks, Name: "Data", ColumnType: "Standard", ComparatorType: "BytesType", DefaultValidationClass: str("BytesType"), Caching: "KEYS_ONLY"}
	if _, err := c.SystemAddKeyspace(context.Background(), &cassandra19.KsDef{Name: ks, StrategyClass: "SimpleStrategy", StrategyOptions: map[string]string{"replication_factor": "1"}, CfDefs: []*cassandra19.CfDef{def}}); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { transfertest.Dial19(b, ref).SystemDropKeyspace(context.Background(), ks) })
	if err := c.SetKeyspace(context.Background(), ks); err != nil {
		b.Fatal(err)
	}
	value := bytes.Repeat([]byte("x"), 32)
	ts := time.Now().UnixMicro()
	for i := 0; i < rows; i += 10 {
		m := map[string]map[string][]*cassandra19.Mutation{}
		for r := i; r < min(i+10, rows); r++ {
			var muts []*cassandra19.Mutation
			for j := range 100 {
				muts = append(muts, &cassandra19.Mutation{ColumnOrSupercolumn: &cassandra19.ColumnOrSuperColumn{Column: &cassandra19.Column{Name: fmt.Appendf(nil, "c%03d", j), Value: value, Timestamp: &ts}}})
			}
			m[fmt.Sprintf("row%08d", r)] = map[string][]*cassandra19.Mutation{"Data": muts}
		}
		if err := c.BatchMutate(context.Background(), m, cassandra19.ConsistencyLevel_ONE); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	var elapsed time.Duration
	for range b.N {
		b.StopTimer()
		dst := testenv.NewNode(b, thriftdBin, transfertest.Config(b, b.TempDir(), "RandomPartitioner"), "-api", "auto")
		dst.Start()
		b.StartTimer()
		t0 := time.Now()
		cmd := exec.Command(toolBin, "copy", "--from", ref, "--to", dst.Addr, "--keyspace", ks, "--progress", "off")
		cmd.Dir = b.TempDir()
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%v\n%s", err, out)
		}
		elapsed += time.Since(t0)
	}
	b.ReportMetric(float64(rows*b.N)/elapsed.Seconds(), "rows/s")
	b.ReportMetric(float64(rows*100*b.N)/elapsed.Seconds(), "columns/s")
}

// A thriftd that answers the 19.x API on fresh framed connections (its
// default) is copied through that API: the keyspace of its
// storage-conf.xml, every comparator and super family, arrives whole on
// another thriftd, as 0.6 clients read it.
func TestCopyThriftdThrough19(t *testing.T) {
	src, dst := node19(t), node19(t)
	var names []string
	for _, f := range transfertest.Families {
		transfertest.Fill(t, src.Client(false), f, 40, 10, 5)
		names = append(names, f.Name)
	}
	_, errOut, code := tool(t, t.TempDir(), "copy", "--from", src.Addr, "--to", dst.Addr, "--keyspace", transfertest.Keyspace, "--progress", "off")
	if code != 0 {
		t.Fatalf("copy: exit %d: %s", code, errOut)
	}
	if !strings.Contains(errOut, "the source serves the 19.x API") {
		t.Fatalf("the copy did not read through the 19.x API:\n%s", errOut)
	}
	for _, name := range names {
		want := transfertest.Dump(t, src.Client(false), name)
		if len(want) == 0 {
			t.Fatalf("%s: nothing was written to the source", name)
		}
		transfertest.Same(t, name, transfertest.Dump(t, dst.Client(false), name), want)
	}
}

// A copy of standard and super counter families from the real Cassandra
// 1.2.19 node stopped by SIGINT, then resumed, leaves every counter on
// the target at the source's total: the rows past the checkpoint that
// were already written are not added to twice.
func TestCopyFromCassandra12CountersInterruptedResumes(t *testing.T) {
	testCopyFromReferenceCountersInterruptedResumes(t, "1.2")
}

// The same from the real Cassandra 2.1.21 node.
func TestCopyFromCassandra21CountersInterruptedResumes(t *testing.T) {
	testCopyFromReferenceCountersInterruptedResumes(t, "2.1")
}

// The same from the real Cassandra 3.11.19 node.
func TestCopyFromCassandra311CountersInterruptedResumes(t *testing.T) {
	testCopyFromReferenceCountersInterruptedResumes(t, "3.11")
}

func testCopyFromReferenceCountersInterruptedResumes(t *testing.T, version string) {
	ref, ks, fams, c := emptyReference(t, version, func(f transfertest.Family19) bool { return f.IsCounter() })
	for _, f := range fams {
		loadCounterRows(t, c, f, 1500)
	}
	dst := node19(t)
	dir := t.TempDir()
	args := []string{"copy", "--from", ref, "--to", dst.Addr, "--keyspace", ks,
		"--workers", "2", "--batch-size", "5", "--page-rows", "10", "--progress", "log", "--progress-interval", "50ms"}
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
		t.Fatalf("copy was not interrupted (exit %d):\n%s", cmd.ProcessState.ExitCode(), log.String())
	}
	b, err := os.ReadFile(filepath.Join(dir, "thriftd-tool-copy-"+ks+".checkpoint.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cp transfer.Checkpoint
	if err := json.Unmarshal(b, &cp); err != nil {
		t.Fatal(err)
	}
	if pos := cp.Families[fams[0].Def.Name]; pos == nil || pos.Done || pos.Rows == 0 {
		t.Fatalf("checkpoint %s", b)
	}
	out, errOut, code := tool(t, dir, append(args, "--resume")...)
	if code != 0 || !strings.Contains(out, "(resumed)") {
		t.Fatalf("resume: exit %d\n%s\n%s", code, out, errOut)
	}
	src, tgt := transfertest.Dial19(t, ref), transfertest.Dial19(t, dst.Addr)
	for _, c := range []*transfertest.Client19{src, tgt} {
		if err := c.SetKeyspace(context.Background(), ks); err != nil {
			t.Fatal(err)
		}
	}
	sameCounters(t, src, tgt, fams)
}

// loadCounterRows writes rows rows of 3 counters (in 2 super columns of
// a super family) into counter family f through c, 50 rows a
// batch_mutate.
func loadCounterRows(t *testing.T, c *transfertest.Client19, f transfertest.Family19, rows int) {
	t.Helper()
	for i := 0; i < rows; i += 50 {
		m := map[string]map[string][]*cassandra19.Mutation{}
		for r := i; r < min(i+50, rows); r++ {
			var muts []*cassandra19.Mutation
			for j := range 3 {
				cc := &cassandra19.CounterColumn{Name: fmt.Appendf(nil, "c%d", j), Value: int64(r*7-j*1000) + 1}
				it := &cassandra19.ColumnOrSuperColumn{CounterColumn: cc}
				if f.Def.ColumnType == "Super" {
					it = &cassandra19.ColumnOrSuperColumn{CounterSuperColumn: &cassandra19.CounterSuperColumn{Name: fmt.Appendf(nil, "s%d", j%2), Columns: []*cassandra19.CounterColumn{cc}}}
				}
				muts = append(muts, &cassandra19.Mutation{ColumnOrSupercolumn: it})
			}
			m[transfertest.Key(r)] = map[string][]*cassandra19.Mutation{f.Def.Name: muts}
		}
		if err := c.BatchMutate(context.Background(), m, cassandra19.ConsistencyLevel_ONE); err != nil {
			t.Fatalf("batch_mutate into %s: %v", f.Def.Name, err)
		}
	}
}
