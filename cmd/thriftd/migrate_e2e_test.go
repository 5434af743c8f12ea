package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/thriftd/thriftd/gen-go/cassandra19"
	"github.com/thriftd/thriftd/internal/testenv"
	"github.com/thriftd/thriftd/internal/transfertest"
	"github.com/thriftd/thriftd/transfer"
)

// The move off a real Cassandra 3.11.19 onto a Cassandra 5 cluster through
// thriftd as the migration proxy, under a client's continuous writes and
// reads: the proxy starts before the target has the keyspace (its writes
// wait in the durable log), the backfill is interrupted and resumed, a
// newer proxied write wins over an older copied cell and a proxied
// deletion is not undone by it, the read setting goes to the target and
// back (admin endpoint, SIGHUP) before the cutover, verify finds 0
// differences, and after the cutover the origin gets no more writes.
func TestMigrationProxyFrom311ToCassandra5(t *testing.T) {
	points := testenv.CassandraCluster(t, "random")
	testMigrationProxy(t, func(string) []string {
		return []string{"-cassandra", points, "-cassandra-prefix", testenv.CassandraPrefix(t)}
	})
}

// The same onto the LevelDB store, whose one process serves the proxy
// and, on its target port, the copy and verify.
func TestMigrationProxyFrom311ToLevelDB(t *testing.T) {
	testMigrationProxy(t, func(dir string) []string { return []string{"-data", filepath.Join(dir, "data")} })
}

func testMigrationProxy(t *testing.T, store func(dir string) []string) {
	t0 := time.Now()
	ref := testenv.Reference(t, "3.11", "random")
	ctx := context.Background()
	ks := fmt.Sprintf("mig_%d", time.Now().UnixNano()%1e12)
	cf := "Events"

	// The origin: a Thrift-created keyspace with rows written long ago.
	origin := transfertest.Dial19(t, ref)
	def := &cassandra19.KsDef{Name: ks, StrategyClass: "org.apache.cassandra.locator.SimpleStrategy",
		StrategyOptions: map[string]string{"replication_factor": "1"},
		CfDefs:          []*cassandra19.CfDef{cfDef(ks, cf)}}
	if _, err := origin.SystemAddKeyspace(ctx, def); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { origin.SystemDropKeyspace(context.Background(), ks) })
	if err := origin.SetKeyspace(ctx, ks); err != nil {
		t.Fatal(err)
	}
	old := transfertest.Backfill2017
	const oldRows = 150
	parent := &cassandra19.ColumnParent{ColumnFamily: cf}
	for i := range oldRows {
		m := map[string]map[string][]*cassandra19.Mutation{}
		var ms []*cassandra19.Mutation
		for _, c := range []string{"c1", "c2", "c3"} {
			ms = append(ms, &cassandra19.Mutation{ColumnOrSupercolumn: &cassandra19.ColumnOrSuperColumn{Column: &cassandra19.Column{
				Name: []byte(c), Value: []byte(fmt.Sprintf("old %d %s", i, c)), Timestamp: ptr(old + int64(i))}}})
		}
		m[fmt.Sprintf("old-%d", i)] = map[string][]*cassandra19.Mutation{cf: ms}
		if err := origin.BatchMutate(ctx, m, cassandra19.ConsistencyLevel_ONE); err != nil {
			t.Fatal(err)
		}
	}

	// thriftd in between, reads both, its store on the Cassandra 5
	// cluster, which lacks the keyspace.
	dir := t.TempDir()
	yaml := filepath.Join(dir, "thriftd.yaml")
	writeYAML := func(reads string) {
		body := fmt.Sprintf("storage_conf: %s\nmigration:\n  reads: %s\n", filepath.Join(testenv.RepoRoot(), "storage-conf.xml"), reads)
		if err := os.WriteFile(yaml, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	writeYAML("both")
	n := testenv.NewNodeArgs(t, thriftdBin, append([]string{"-config", yaml, "-listen", "127.0.0.1:0", "-admin", "127.0.0.1:0",
		"-log-format", "json", "-log-level", "info", "-api", "19.x",
		"-origin", ref, "-migration-target-listen", "127.0.0.1:0",
		"-migration-pending-log", filepath.Join(dir, "pending.log")}, store(dir)...)...)
	n.Start()
	adminAddr := testenv.LogValue(n.WaitLog(t, time.Minute, map[string]string{"msg": "admin endpoint is serving"})["addr"])
	targetAddr := testenv.LogValue(n.WaitLog(t, time.Minute, map[string]string{"msg": "migration target port is serving thriftd's store alone, for copy and verify"})["target_listen"])
	t.Logf("origin %s, thriftd %s (target port %s, admin %s, store %v); set up in %v", ref, n.Addr, targetAddr, adminAddr, store(dir), time.Since(t0).Round(time.Millisecond))

	// The client: writes and reads through thriftd until told to stop,
	// remembering what was acknowledged: new rows, newer values of old
	// cells, deletions of old cells.
	type cell struct{ key, col string }
	acked := map[cell]string{} // value, or "" for deleted
	var mu sync.Mutex
	var writes, reads, failed int
	stop := make(chan struct{})
	clientDone := make(chan error, 1)
	proxied := transfertest.Dial19(t, n.Addr)
	if err := proxied.SetKeyspace(ctx, ks); err != nil {
		t.Fatal(err)
	}
	wrote := make(chan struct{}, 1000)
	go func() {
		clientDone <- func() error {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return nil
				default:
				}
				now := time.Now().UnixMicro()
				var c cell
				var err error
				val := ""
				switch i % 3 {
				case 0:
					c, val = cell{fmt.Sprintf("live-%d", i), "v"}, fmt.Sprint("live ", i)
					err = proxied.Insert(ctx, []byte(c.key), parent, &cassandra19.Column{Name: []byte(c.col), Value: []byte(val), Timestamp: &now}, cassandra19.ConsistencyLevel_ONE)
				case 1:
					c, val = cell{fmt.Sprintf("old-%d", i%oldRows), "c1"}, fmt.Sprint("new ", i)
					err = proxied.Insert(ctx, []byte(c.key), parent, &cassandra19.Column{Name: []byte(c.col), Value: []byte(val), Timestamp: &now}, cassandra19.ConsistencyLevel_ONE)
				case 2:
					c = cell{fmt.Sprintf("old-%d", i%oldRows), "c2"}
					err = proxied.Remove(ctx, []byte(c.key), &cassandra19.ColumnPath{ColumnFamily: cf, Column: []byte(c.col)}, now, cassandra19.ConsistencyLevel_ONE)
				}
				mu.Lock()
				if err != nil {
					failed++
				} else {
					writes++
					acked[c] = val
				}
				mu.Unlock()
				if err != nil {
					return fmt.Errorf("write %d: %w", i, err)
				}
				select {
				case wrote <- struct{}{}:
				default:
				}
				if _, err := proxied.GetSlice(ctx, []byte(fmt.Sprintf("old-%d", i%oldRows)), parent,
					&cassandra19.SlicePredicate{SliceRange: &cassandra19.SliceRange{Start: []byte{}, Finish: []byte{}, Count: 10}}, cassandra19.ConsistencyLevel_ONE); err != nil {
					return fmt.Errorf("read %d: %w", i, err)
				}
				mu.Lock()
				reads++
				mu.Unlock()
			}
		}()
	}()
	for range 30 {
		<-wrote
	}
	// The target has no keyspace yet: those writes are in the durable log.
	if got := metric(t, adminAddr, `thriftd_migration_pending_writes`); got == 0 {
		t.Fatalf("the target lacks the keyspace, but no write waits in the durable log")
	}

	// The backfill, interrupted once and resumed.
	step := time.Now()
	src, dst := transfer.Endpoint{Addr: ref, Framed: true}, transfer.Endpoint{Addr: targetAddr, Framed: true}
	stats := &transfer.Stats{}
	o := transfer.Options{Keyspace: ks, PageRows: 10, BatchSize: 20, Workers: 2, Checkpoint: filepath.Join(dir, "copy.json"),
		SourceAPI: "19", Stats: stats, Logger: slog.New(slog.DiscardHandler)}
	interrupt, cancel := context.WithCancel(ctx)
	go func() {
		for stats.Rows.Load() < 40 && interrupt.Err() == nil {
			time.Sleep(time.Millisecond)
		}
		cancel()
	}()
	if _, err := transfer.Copy(interrupt, src, dst, o); !errors.Is(err, transfer.ErrInterrupted) {
		t.Fatalf("the first copy: %v, want it interrupted", err)
	}
	o.Resume, o.Stats = true, &transfer.Stats{}
	if _, err := transfer.Copy(ctx, src, dst, o); err != nil {
		t.Fatalf("the resumed copy: %v", err)
	}
	copyTime := time.Since(step)
	waitFor(t, "the durable log to empty", func() bool { return metric(t, adminAddr, `thriftd_migration_pending_writes`) == 0 })
	if metric(t, adminAddr, `thriftd_migration_replayed_writes_total`) == 0 {
		t.Fatal("no write was replayed from the durable log")
	}

	// A way back before the cutover: reads to the target, then back to
	// the origin at SIGHUP. A cell only the origin holds tells them apart.
	mark := []byte("marker")
	mts := time.Now().UnixMicro()
	if err := origin.Insert(ctx, mark, parent, &cassandra19.Column{Name: []byte("m"), Value: []byte("x"), Timestamp: &mts}, cassandra19.ConsistencyLevel_ONE); err != nil {
		t.Fatal(err)
	}
	probe := transfertest.Dial19(t, n.Addr)
	if err := probe.SetKeyspace(ctx, ks); err != nil {
		t.Fatal(err)
	}
	path := &cassandra19.ColumnPath{ColumnFamily: cf, Column: []byte("m")}
	setModes(t, adminAddr, "reads=target")
	if _, err := probe.Get(ctx, mark, path, cassandra19.ConsistencyLevel_ONE); !isNotFound(err) {
		t.Fatalf("reads from the target: get of a cell only the origin holds: %v, want NotFoundException", err)
	}
	writeYAML("origin")
	if err := syscall.Kill(n.Pid(), syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	n.WaitLog(t, time.Minute, map[string]string{"msg": "SIGHUP: migration settings applied", "reads": "origin"})
	if _, err := probe.Get(ctx, mark, path, cassandra19.ConsistencyLevel_ONE); err != nil {
		t.Fatalf("back to reads from the origin: %v", err)
	}
	mts++
	if err := origin.Remove(ctx, mark, path, mts, cassandra19.ConsistencyLevel_ONE); err != nil {
		t.Fatal(err)
	}

	// The validation, with the writes stopped so that none is in flight.
	for range 30 {
		<-wrote
	}
	close(stop)
	if err := <-clientDone; err != nil {
		t.Fatalf("the client: %v", err)
	}
	waitFor(t, "the durable log to empty", func() bool { return metric(t, adminAddr, `thriftd_migration_pending_writes`) == 0 })
	step = time.Now()
	sum, err := transfer.Verify(ctx, src, dst, transfer.Options{Keyspace: ks, Logger: slog.New(slog.DiscardHandler)}, 1)
	if err != nil {
		t.Fatal(err)
	}
	verifyTime := time.Since(step)
	if sum.Differences != 0 || len(sum.Families) != 1 || sum.Families[0].Rows < oldRows {
		b, _ := json.MarshalIndent(sum, "", "  ")
		t.Fatalf("verify: %s", b)
	}
	target := transfertest.Dial19(t, targetAddr)
	if err := target.SetKeyspace(ctx, ks); err != nil {
		t.Fatal(err)
	}
	for c, want := range acked {
		got, err := target.Get(ctx, []byte(c.key), &cassandra19.ColumnPath{ColumnFamily: cf, Column: []byte(c.col)}, cassandra19.ConsistencyLevel_ONE)
		switch {
		case want == "" && !isNotFound(err):
			t.Errorf("%s/%s: deleted through the proxy, but the target has %v (err %v): the copy undid the deletion", c.key, c.col, got, err)
		case want != "" && err != nil:
			t.Errorf("%s/%s: acknowledged %q, target: %v", c.key, c.col, want, err)
		case want != "" && string(got.Column.Value) != want:
			t.Errorf("%s/%s: acknowledged %q, target has %q", c.key, c.col, want, got.Column.Value)
		}
	}

	// A schema change through the proxy reaches both.
	if _, err := probe.SystemAddColumnFamily(ctx, cfDef(ks, "Added")); err != nil {
		t.Fatalf("system_add_column_family through the proxy: %v", err)
	}
	for name, c := range map[string]*transfertest.Client19{"origin": origin, "target": target} {
		waitFor(t, "the new column family on the "+name, func() bool {
			d, err := c.DescribeKeyspace(ctx, ks)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range d.CfDefs {
				if f.Name == "Added" {
					return true
				}
			}
			return false
		})
	}

	// The cutover: reads to the target, then the origin's writes off.
	setModes(t, adminAddr, "reads=target")
	setModes(t, adminAddr, "writes=target")
	after := time.Now().UnixMicro()
	if err := probe.Insert(ctx, []byte("after-cutover"), parent, &cassandra19.Column{Name: []byte("v"), Value: []byte("t"), Timestamp: &after}, cassandra19.ConsistencyLevel_ONE); err != nil {
		t.Fatal(err)
	}
	if _, err := probe.Get(ctx, []byte("after-cutover"), &cassandra19.ColumnPath{ColumnFamily: cf, Column: []byte("v")}, cassandra19.ConsistencyLevel_ONE); err != nil {
		t.Fatalf("read after the cutover: %v", err)
	}
	if _, err := origin.Get(ctx, []byte("after-cutover"), &cassandra19.ColumnPath{ColumnFamily: cf, Column: []byte("v")}, cassandra19.ConsistencyLevel_ONE); !isNotFound(err) {
		t.Fatalf("the origin got a write after its writes were turned off: %v", err)
	}
	diffs := metric(t, adminAddr, `thriftd_migration_read_differences_total`)
	if diffs == 0 {
		t.Error("reads both compared the answers before the backfill and found no difference")
	}
	t.Logf("%d writes acknowledged (%d failed), %d reads; %v read differences counted before and during the backfill; "+
		"%d target writes went to the durable log and were replayed; copy %v, verify %v (%d rows, 0 differences); whole test %v",
		writes, failed, reads, diffs, int(metric(t, adminAddr, `thriftd_migration_replayed_writes_total`)),
		copyTime.Round(time.Millisecond), verifyTime.Round(time.Millisecond), sum.Families[0].Rows, time.Since(t0).Round(time.Millisecond))
}

func ptr(v int64) *int64 { return &v }

func cfDef(ks, name string) *cassandra19.CfDef {
	d := cassandra19.NewCfDef()
	d.Keyspace, d.Name, d.ComparatorType = ks, name, "UTF8Type"
	return d
}

func isNotFound(err error) bool {
	var nf *cassandra19.NotFoundException
	return errors.As(err, &nf)
}

// metric is the sum of a metric's samples on the admin endpoint.
func metric(t *testing.T, admin, name string) float64 {
	t.Helper()
	resp, err := http.Get("http://" + admin + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	sum := 0.0
	for _, m := range regexp.MustCompile(`(?m)^`+name+`(?:\{[^}]*\})? (\S+)$`).FindAllStringSubmatch(string(b), -1) {
		v, _ := strconv.ParseFloat(m[1], 64)
		sum += v
	}
	return sum
}

func setModes(t *testing.T, admin, query string) {
	t.Helper()
	resp, err := http.Post("http://"+admin+"/v1/migration?"+query, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("POST /v1/migration?%s: %s %s", query, resp.Status, b)
	}
}

// waitFor polls cond until it holds, for at most two minutes.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited two minutes for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
