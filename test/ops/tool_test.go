package ops

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/thriftd/thriftd/admin"
	"github.com/thriftd/thriftd/engine"
	"github.com/thriftd/thriftd/gen-go/cassandra"
)

// decode runs thriftd-tool --json and decodes its output into v.
func (n *node) decode(t *testing.T, v any, args ...string) {
	t.Helper()
	out := n.mustTool(t, append([]string{"--json"}, args...)...)
	if err := json.Unmarshal([]byte(out), v); err != nil {
		t.Fatalf("thriftd-tool --json %v: %v\n%s", args, err, out)
	}
}

func TestToolInfoRing(t *testing.T) {
	n := start(t)
	c := n.Client(true)
	for i := range 50 {
		insert(t, c, fmt.Sprint("row", i), "c", strings.Repeat("x", 100), 1)
	}
	n.mustTool(t, "flush")

	var info admin.Info
	n.decode(t, &info, "info")
	if info.Token == "" || info.LoadBytes <= 0 || info.HeapUsedMB <= 0 || info.HeapMaxMB < info.HeapUsedMB || info.GenerationNo < time.Now().Add(-time.Hour).Unix() {
		t.Errorf("info: %+v", info)
	}
	ring, err := c.DescribeRing(ctx, ks)
	if err != nil {
		t.Fatal(err)
	}
	if info.Token != ring[0].EndToken {
		t.Errorf("info token %s, describe_ring's %s", info.Token, ring[0].EndToken)
	}
	out := n.mustTool(t, "info")
	want := regexp.MustCompile(`^` + info.Token + `\n` +
		`Load             : [0-9.]+ (bytes|KB|MB)\n` +
		fmt.Sprintf(`Generation No    : %d\n`, info.GenerationNo) +
		`Uptime \(seconds\) : \d+\n` +
		`Heap Memory \(MB\) : \d+\.\d\d / \d+\.\d\d\n$`)
	if !want.MatchString(out) {
		t.Errorf("info:\n%s", out)
	}

	var entries []admin.RingEntry
	n.decode(t, &entries, "ring")
	if len(entries) != 1 || entries[0].Token != info.Token || entries[0].Status != "Up" || entries[0].Owns != 100 || entries[0].Address != "127.0.0.1" {
		t.Errorf("ring: %+v", entries)
	}
	out = n.mustTool(t, "ring")
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	header := fmt.Sprintf("%-14s%-11s%-14s%-8s%-43s%s", "Address", "Status", "Load", "Owns", "Range", "Ring")
	row := fmt.Sprintf("%-14s%-11s%-14s%-8s%-43s%s", "127.0.0.1", "Up", entries[0].Load, "100.00%", info.Token, "|<--|")
	if len(lines) != 2 || lines[0] != header || lines[1] != row {
		t.Errorf("ring:\n%s\nwant:\n%s\n%s", out, header, row)
	}
	// nodetool's -h and -p name the same endpoint.
	host, port, _ := strings.Cut(n.admin, ":")
	cmdOut, errOut, code := n.tool(t, "-h", host, "-p", port, "ring")
	if code != 0 || cmdOut != out {
		t.Errorf("ring with -h -p: exit %d %s\n%s", code, errOut, cmdOut)
	}
}

func TestToolStats(t *testing.T) {
	n := start(t)
	c := n.Client(true)
	for i := range 4 {
		insert(t, c, fmt.Sprint("row", i), "c", "v", 1)
	}
	parent := &cassandra.ColumnParent{ColumnFamily: "Standard1"}
	pred := &cassandra.SlicePredicate{SliceRange: &cassandra.SliceRange{Start: []byte{}, Finish: []byte{}, Count: 10}}
	if _, err := c.MultigetSlice(ctx, ks, []string{"row0", "row1"}, parent, pred, cassandra.ConsistencyLevel_ONE); err != nil {
		t.Fatal(err)
	}
	if _, err := c.GetSlice(ctx, ks, "", parent, pred, cassandra.ConsistencyLevel_ONE); err == nil {
		t.Fatal("get_slice of an empty key succeeded")
	}

	var pools []admin.Pool
	n.decode(t, &pools, "tpstats")
	byName := map[string]admin.Pool{}
	for _, p := range pools {
		byName[p.Name] = p
	}
	if p := byName["insert"]; p.Completed != 4 || p.Errors != 0 || p.LatencyMs <= 0 {
		t.Errorf("tpstats insert: %+v", p)
	}
	if p := byName["get_slice"]; p.Completed != 1 || p.Errors != 1 {
		t.Errorf("tpstats get_slice: %+v", p)
	}
	if p := byName["ROW-MUTATION-STAGE"]; p.Completed != 4 || p.LatencyMs <= 0 {
		t.Errorf("tpstats ROW-MUTATION-STAGE: %+v", p)
	}
	if p := byName["ROW-READ-STAGE"]; p.Completed != 2 || p.Errors != 1 {
		t.Errorf("tpstats ROW-READ-STAGE (multiget_slice and get_slice): %+v", p)
	}
	if p, ok := byName["batch_mutate"]; !ok || p.Completed != 0 {
		t.Errorf("tpstats batch_mutate: %+v (listed %v)", p, ok)
	}
	out := n.mustTool(t, "tpstats")
	if !strings.HasPrefix(out, fmt.Sprintf("%-25s%10s%10s%15s", "Pool Name", "Active", "Pending", "Completed")) {
		t.Errorf("tpstats header:\n%s", out)
	}
	if !regexp.MustCompile(`(?m)^insert {19}\s{9}0\s{9}0\s{14}4\s{9}0\s+\d+\.\d{3}$`).MatchString(out) {
		t.Errorf("tpstats has no line for 4 inserts in 0.6's widths:\n%s", out)
	}

	var stats []admin.KeyspaceStats
	n.decode(t, &stats, "cfstats", ks+".Standard1")
	if len(stats) != 1 || len(stats[0].ColumnFamilies) != 1 {
		t.Fatalf("cfstats Keyspace1.Standard1: %+v", stats)
	}
	cf := stats[0].ColumnFamilies[0]
	if cf.Name != "Standard1" || cf.WriteCount != 4 || cf.ReadCount != 2 || cf.WriteLatencyMs <= 0 {
		t.Errorf("cfstats Standard1: %+v", cf)
	}
	out = n.mustTool(t, "cfstats", ks)
	for _, want := range []string{
		"Keyspace: Keyspace1\n\tRead Count: 2\n\tRead Latency: ",
		"\tWrite Count: 4\n\tWrite Latency: ",
		"\t\tColumn Family: Standard1\n\t\tSSTable count: ",
		"\t\tRead Count: 2\n\t\tRead Latency: ",
		"\t\tColumn Family: Standard2\n",
		"\t\tRead Count: 0\n\t\tRead Latency: NaN ms.\n",
		"----------------\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("cfstats Keyspace1 lacks %q:\n%s", want, out)
		}
	}
	if !regexp.MustCompile(`\t\tWrite Count: 4\n\t\tWrite Latency: \d+\.\d{3} ms\.\n`).MatchString(out) {
		t.Errorf("cfstats Standard1's write latency is not %%01.3f ms.:\n%s", out)
	}
	if strings.Contains(out, "Keyspace: system") {
		t.Errorf("cfstats Keyspace1 printed another keyspace:\n%s", out)
	}
	if _, errOut, code := n.tool(t, "cfstats", "Nope"); code != 1 || !strings.Contains(errOut, "unknown keyspace Nope") {
		t.Errorf("cfstats Nope: exit %d, %s", code, errOut)
	}
}

func TestToolMaintenance(t *testing.T) {
	n := start(t)
	c := n.Client(true)
	for i := range 20 {
		insert(t, c, fmt.Sprint("row", i), "c", "v", 1)
	}
	var done admin.Done
	n.decode(t, &done, "flush")
	if done.Command != "flush" {
		t.Errorf("flush: %+v", done)
	}
	// A keyspace, and column families, may be named as nodetool required;
	// they share the one memtable, which is written out.
	flushes := func() float64 {
		t.Helper()
		_, body := get(t, n.admin, "/metrics", "")
		return sample(body, `thriftd_leveldb_compactions_total{kind="memtable"}`)
	}
	for i, args := range [][]string{{ks, "Standard1"}, {ks}, {ks, "Standard1", "Standard2"}} {
		before := flushes()
		for j := range 20 {
			insert(t, c, fmt.Sprint("row", j), "c", "v", int64(2+i))
		}
		if out := n.mustTool(t, append([]string{"flush"}, args...)...); !strings.HasPrefix(out, "Flushed the memtable in ") {
			t.Errorf("flush %v: %s", args, out)
		}
		if after := flushes(); after != before+1 {
			t.Errorf("flush %v: %v memtable flushes, %v before: the memtable was not written out", args, after, before)
		}
	}
	// A name the schema lacks is refused before anything is flushed.
	for j := range 20 {
		insert(t, c, fmt.Sprint("row", j), "c", "v", 9)
	}
	before := flushes()
	for _, bad := range []struct {
		args []string
		want string
	}{
		{[]string{"Nope"}, "unknown keyspace Nope"},
		{[]string{"Nope", "Standard1"}, "unknown keyspace Nope"},
		{[]string{ks, "Nope"}, "unknown column family Keyspace1.Nope"},
		{[]string{ks, "Standard1", "Nope"}, "unknown column family Keyspace1.Nope"},
	} {
		out, errOut, code := n.tool(t, append([]string{"flush"}, bad.args...)...)
		if code != 1 || !strings.Contains(errOut, bad.want) || out != "" {
			t.Errorf("flush %v: exit %d, stdout %q, stderr %q; want exit 1 and %q", bad.args, code, out, errOut, bad.want)
		}
	}
	if after := flushes(); after != before {
		t.Errorf("flush with unknown names: %v memtable flushes, %v before", after, before)
	}
	if out := n.mustTool(t, "compact", ks, "Standard1"); !strings.HasPrefix(out, "Compacted column family Keyspace1.Standard1 in ") {
		t.Errorf("compact Keyspace1 Standard1: %s", out)
	}
	if out := n.mustTool(t, "compact", ks); !strings.HasPrefix(out, "Compacted keyspace Keyspace1 in ") {
		t.Errorf("compact Keyspace1: %s", out)
	}
	n.decode(t, &done, "compact")
	if done.Command != "compact" || done.Keyspace != "" {
		t.Errorf("compact: %+v", done)
	}
	if _, errOut, code := n.tool(t, "compact", ks, "Nope"); code != 1 || !strings.Contains(errOut, "unknown column family Keyspace1.Nope") {
		t.Errorf("compact of an unknown column family: exit %d, %s", code, errOut)
	}

	out := n.mustTool(t, "snapshot", "first")
	dir := filepath.Join(n.Data, "snapshots", "first")
	if !strings.HasPrefix(out, "Snapshot first taken in "+dir+": ") {
		t.Errorf("snapshot first: %s", out)
	}
	n.decode(t, &done, "snapshot")
	if done.Snapshot == nil || !regexp.MustCompile(`^\d{13}$`).MatchString(done.Snapshot.Name) || done.Snapshot.Files < 3 {
		t.Errorf("snapshot with no name: %+v", done.Snapshot)
	}
	if _, errOut, code := n.tool(t, "snapshot", "first"); code != 1 || !strings.Contains(errOut, "already exists") {
		t.Errorf("a second snapshot first: exit %d, %s", code, errOut)
	}
	if _, errOut, code := n.tool(t, "snapshot", "../x"); code != 1 || !strings.Contains(errOut, "not a path") {
		t.Errorf("snapshot ../x: exit %d, %s", code, errOut)
	}
	for _, f := range []string{"CURRENT"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("snapshot first: %v", err)
		}
	}
	if out := n.mustTool(t, "clearsnapshot", "first"); out != "Removed snapshots: first\n" {
		t.Errorf("clearsnapshot first: %q", out)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("snapshot first is still there: %v", err)
	}
	if _, errOut, code := n.tool(t, "clearsnapshot", "first"); code != 1 || !strings.Contains(errOut, "no snapshot first") {
		t.Errorf("clearsnapshot of a removed snapshot: exit %d, %s", code, errOut)
	}
	n.mustTool(t, "snapshot", "second")
	n.decode(t, &done, "clearsnapshot")
	if len(done.Removed) != 2 {
		t.Errorf("clearsnapshot removed %v, want the unnamed one and second", done.Removed)
	}
	var left []engine.SnapshotInfo
	if _, body := get(t, n.admin, "/v1/snapshots", ""); json.Unmarshal([]byte(body), &left) != nil || len(left) != 0 {
		t.Errorf("snapshots after clearsnapshot: %s", body)
	}

	// drain: the Thrift port closes, the admin endpoint stays, SIGTERM stops.
	if out := n.mustTool(t, "drain"); !strings.HasPrefix(out, "Drained in ") {
		t.Errorf("drain: %s", out)
	}
	if _, err := c.DescribeVersion(ctx); err == nil {
		t.Error("a connection survived drain")
	}
	if _, err := testenvDial(n.Addr); err == nil {
		t.Error("the Thrift port accepts connections after drain")
	}
	if out := n.mustTool(t, "ring"); !strings.Contains(out, " Down ") {
		t.Errorf("ring after drain:\n%s", out)
	}
	n.Stop()
	n.WaitLog(t, time.Second, map[string]string{"msg": "thriftd stopped"})
	n.start(t)
	if got := rows(t, n.Client(true)); len(got) != 20 {
		t.Errorf("%d rows after drain and restart, want 20", len(got))
	}
}

// TestToolErrors checks usage errors and an unreachable node.
func TestToolErrors(t *testing.T) {
	n := &node{admin: "127.0.0.1:1"}
	if _, errOut, code := n.tool(t, "info"); code != 1 || !strings.Contains(errOut, "cannot reach thriftd's admin endpoint at 127.0.0.1:1") || strings.Count(errOut, "\n") != 1 {
		t.Errorf("info against nothing: exit %d, %q", code, errOut)
	}
	if _, errOut, code := n.tool(t, "nosuch"); code != 2 || !strings.Contains(errOut, `unknown command "nosuch"`) {
		t.Errorf("an unknown command: exit %d, %q", code, errOut)
	}
	if _, errOut, code := n.tool(t, "info", "extra"); code != 2 {
		t.Errorf("info with an argument: exit %d, %q", code, errOut)
	}
	for _, cmd := range []string{"info", "ring", "cfstats", "tpstats", "flush", "compact", "snapshot", "clearsnapshot", "drain", "export", "import", "copy"} {
		out, _, code := n.tool(t, cmd, "--help")
		if code != 0 || !strings.Contains(out, "Usage:\n  thriftd-tool "+cmd) || !strings.Contains(out, "--json") {
			t.Errorf("%s --help: exit %d\n%s", cmd, code, out)
		}
	}
}
