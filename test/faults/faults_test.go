package faults

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/thriftd/thriftd/gen-go/cassandra19"
	"github.com/thriftd/thriftd/internal/testenv"
)

// maxOps bounds every worker, even if a phase never ends.
const maxOps = 200_000

// TestCASOnLevelDB is the baseline: the register workload on one thriftd on
// its embedded store, without faults, must be linearizable.
func TestCASOnLevelDB(t *testing.T) {
	d := &thriftd{name: "leveldb", node: testenv.NewNode(t, thriftdBin, ring3Config(t), "-api", "19.x")}
	d.start(t)
	c := d.dial(nil, "")
	defer c.Close()
	if _, err := c.SystemAddKeyspace(ctx, keyspaceDef("1")); err != nil {
		t.Fatal(err)
	}
	if err := c.SetKeyspace(ctx, ks); err != nil {
		t.Fatal(err)
	}
	w := &registers{keys: 3}
	w.create(t, c.CassandraClient)
	duration := 20 * time.Second
	if s := os.Getenv("THRIFTD_FAULTS_BASELINE"); s != "" {
		var err error
		if duration, err = time.ParseDuration(s); err != nil {
			t.Fatal(err)
		}
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	start := time.Now()
	for i := 0; i < 4; i++ {
		wg.Add(1)
		// Bounded so that porcupine checks the history in seconds.
		go func() { defer wg.Done(); w.worker(d, i, stop, 1500, start) }()
	}
	time.Sleep(duration)
	close(stop)
	wg.Wait()
	res, summary := w.check(t, 5*time.Minute)
	t.Logf("LevelDB, %v, 4 clients: registers %v; %s", duration, &w.calls, summary)
	if res == porcupine.Illegal {
		t.Errorf("the register history on LevelDB is not linearizable: %s", summary)
	}
}

// kindsToRun is THRIFTD_FAULTS_KINDS, a comma-separated subset of
// faultKinds (kill, pause, partition, thriftd), or all of them.
func kindsToRun(t *testing.T) []string {
	s := os.Getenv("THRIFTD_FAULTS_KINDS")
	if s == "" {
		return faultKinds
	}
	short := map[string]string{"kill": faultKinds[0], "pause": faultKinds[1], "partition": faultKinds[2], "thriftd": faultKinds[3]}
	var out []string
	for _, k := range strings.Split(s, ",") {
		kind, ok := short[strings.TrimSpace(k)]
		if !ok {
			t.Fatalf("THRIFTD_FAULTS_KINDS=%q: %q is not kill, pause, partition or thriftd", s, k)
		}
		out = append(out, kind)
	}
	return out
}

// faultKinds in the order the nemesis injects them in each round.
var faultKinds = []string{"node kill+restart", "node pause", "partition", "thriftd kill"}

// TestFaults runs every workload through two thriftd processes on ring3
// while the nemesis injects THRIFTD_FAULTS_ROUNDS faults of each kind, one
// at a time, then heals the ring and checks what each workload must show.
func TestFaults(t *testing.T) {
	if _, err := exec.LookPath("nft"); err != nil {
		t.Fatal("the partitions need nftables' nft (Debian's nftables; test/run-all installs it) and root")
	}
	cleanNft()
	points := testenv.CassandraCluster(t, "ring3")
	prefix := testenv.CassandraPrefix(t)
	// Cleanups run last first: thriftd processes stop, the ring heals,
	// then the prefix's keyspaces are dropped.
	t.Cleanup(func() {
		if t.Failed() && os.Getenv("THRIFTD_FAULTS_KEEP") == "1" {
			t.Logf("keyspaces of prefix %s kept on ring3 for a look at what was lost", prefix)
			return
		}
		// No hint the faults left may land during the drop: one landing
		// on a node while it drops the keyspace leaves that node unable
		// to change its schema ("Unknown CF <id>"; see
		// testenv.AwaitHintsDelivered). A drop that fails for a node
		// still catching up after a pause is tried again.
		resume := testenv.SettleHints(t, "ring3", 2*time.Minute)
		defer resume()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		var err error
		for attempt := 0; attempt < 4; attempt++ {
			if _, err = testenv.DropPrefix(ctx, points, prefix); err == nil || ctx.Err() != nil {
				break
			}
			t.Logf("dropping prefix %s: %v; trying again in 15 s", prefix, err)
			time.Sleep(15 * time.Second)
		}
		if err != nil {
			t.Errorf("dropping prefix %s: %v", prefix, err)
		}
	})
	r := newRing(t)
	conf := ring3Config(t)
	var ds []*thriftd
	for _, name := range []string{"A", "B"} {
		ds = append(ds, &thriftd{name: name, node: testenv.NewNode(t, thriftdBin, conf,
			"-api", "19.x", "-cassandra", points, "-cassandra-prefix", prefix)})
	}
	ds[0].start(t)
	setup := ds[0].dial(nil, "")
	if _, err := setup.SystemAddKeyspace(ctx, keyspaceDef("3")); err != nil {
		t.Fatal(err)
	}
	if err := setup.SetKeyspace(ctx, ks); err != nil {
		t.Fatal(err)
	}
	// Without durable writes a killed node forgets what it acknowledged,
	// and the suite would measure that instead of the cluster's promises.
	if def, err := setup.DescribeKeyspace(ctx, ks); err != nil {
		t.Fatal(err)
	} else if !def.DurableWrites {
		t.Fatalf("keyspace %s was created without durable_writes", ks)
	}
	ds[1].start(t)
	waitListed(t, ds[1], regCF, 2*time.Minute)

	regs := &registers{keys: 3}
	regs.create(t, setup.CassandraClient)
	setup.Close()
	bat := &batches{}
	cnt := &counters{keys: 2, acked: make([]int64, 2), maybe: make([]int64, 2)}
	idx := &indexes{rows: 40}

	stop := make(chan struct{})
	var wg sync.WaitGroup
	start := time.Now()
	for i, d := range ds {
		run := func(f func()) {
			wg.Add(1)
			go func() { defer wg.Done(); f() }()
		}
		run(func() { regs.worker(d, 2*i, stop, maxOps, start) })
		run(func() { regs.worker(d, 2*i+1, stop, maxOps, start) })
		run(func() { bat.worker(d, i, stop, maxOps) })
		run(func() { cnt.worker(d, i, stop, maxOps) })
		run(func() { idx.worker(d, i, stop, maxOps) })
	}
	// Whatever happens to the test, the workers stop.
	stopOnce := sync.OnceFunc(func() { close(stop) })
	t.Cleanup(stopOnce)

	n := rounds(t)
	injected := map[string]int{}
	var changes []*schemaChange
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 7))
	time.Sleep(10 * time.Second) // traffic before the first fault
	kinds := kindsToRun(t)
	for round := 0; round < n; round++ {
		for _, kind := range kinds {
			node := 1 + rng.IntN(3)
			began := time.Now()
			switch kind {
			case "node kill+restart":
				r.kill(node)
				time.Sleep(10 * time.Second)
				r.restart(node)
			case "node pause":
				r.pause(node)
				d := ds[round%2]
				done := make(chan *schemaChange, 1)
				name := fmt.Sprintf("Added%d", round)
				go func() { done <- addFamily(d, name, fmt.Sprintf("node %d paused", node)) }()
				time.Sleep(8 * time.Second)
				r.resume(node)
				sc := <-done
				if sc.err == nil {
					sc.visible = visibility(ds, name, 3*time.Minute)
				}
				changes = append(changes, sc)
			case "partition":
				r.partition(node)
				time.Sleep(15 * time.Second)
				r.unpartition()
			case "thriftd kill":
				d := ds[rng.IntN(2)]
				time.Sleep(time.Duration(rng.IntN(1000)) * time.Millisecond)
				d.kill()
				time.Sleep(2 * time.Second)
				d.start(t)
				node = 0
			}
			injected[kind]++
			what := fmt.Sprintf("node %d", node)
			if node == 0 {
				what = "a thriftd"
			}
			t.Logf("%v: %s of %s, %v", time.Since(start).Round(time.Second), kind, what, time.Since(began).Round(time.Second))
			time.Sleep(5 * time.Second)
		}
	}
	time.Sleep(5 * time.Second) // traffic after the last fault
	stopOnce()
	wg.Wait()
	r.heal()
	elapsed := time.Since(start)

	// The checks, through thriftd A, once every node is back.
	check := ds[0].dial(nil, ks)
	defer check.Close()
	anomalies := 0

	res, summary := regs.check(t, 10*time.Minute)
	t.Logf("registers (cas at SERIAL, commit QUORUM; 4 clients, 3 keys): %v; %s", &regs.calls, summary)
	for i, name := range []string{"read", "write", "cas"} {
		t.Logf("  %s: %v", name, &regs.byOp[i])
	}
	if res == porcupine.Illegal {
		anomalies++
		t.Errorf("registers: the history is not linearizable: %s", summary)
	}

	missing, err := retry(func() ([]string, error) { return bat.check(check.CassandraClient) })
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("batches (batch_mutate of %d rows at QUORUM; 2 clients): %v; %d rows acknowledged, %d rows of unknown outcome, %d acknowledged rows missing",
		rowsPerBatch, &bat.calls, len(bat.acked), bat.unsure, len(missing))
	if len(missing) > 0 {
		anomalies++
		t.Errorf("batches: %d acknowledged rows missing, e.g. %v", len(missing), missing[:min(5, len(missing))])
	}

	t.Logf("counters (add at QUORUM; 2 clients, %d keys): %v", cnt.keys, &cnt.calls)
	for k := 0; k < cnt.keys; k++ {
		got, err := stableCounter(cnt, check, k)
		if err != nil {
			t.Fatal(err)
		}
		lo, hi := cnt.acked[k], cnt.acked[k]+cnt.maybe[k]
		// Read at ALL too: a difference from QUORUM means replicas disagree.
		atAll := "?"
		if col, err := check.Get(ctx, counterKey(k), &cassandra19.ColumnPath{ColumnFamily: counterCF, Column: []byte("n")}, cassandra19.ConsistencyLevel_ALL); err == nil {
			atAll = fmt.Sprint(col.CounterColumn.Value)
		}
		t.Logf("  counter %d: %d at QUORUM, %s at ALL, bounds [%d, %d]", k, got, atAll, lo, hi)
		if got < lo || got > hi {
			anomalies++
			t.Errorf("counter %d is %d, outside [acknowledged %d, acknowledged + unknown %d]", k, got, lo, hi)
		}
	}

	t.Logf("indexes (insert and remove of a KEYS-indexed column at QUORUM; 2 clients, %d rows): %v", idx.rows, &idx.calls)
	for _, d := range ds {
		c := d.dial(nil, ks)
		diffs, err := retry(func() ([]string, error) { return idx.check(c.CassandraClient) })
		c.Close()
		if err != nil {
			t.Fatal(err)
		}
		if len(diffs) > 0 {
			anomalies++
			t.Errorf("indexes through thriftd %s: get_indexed_slices differs from a filtered get_range_slices: %v", d.name, diffs)
		}
	}

	for _, sc := range changes {
		switch {
		case sc.err != nil:
			// Failed: once healed, both processes must agree on whether it exists.
			v := visibility(ds, sc.name, 30*time.Second)
			t.Logf("schema: system_add_column_family %s with %s failed after %v: %v; listed after healing by A %v, B %v",
				sc.name, sc.fault, sc.took.Round(time.Millisecond), sc.err, v[0], v[1])
			if (v[0] < 0) != (v[1] < 0) {
				anomalies++
				t.Errorf("schema: %s failed, and only one thriftd lists it", sc.name)
			}
		default:
			t.Logf("schema: system_add_column_family %s with %s took %v; listed by A after %v, by B after %v",
				sc.name, sc.fault, sc.took.Round(time.Millisecond), sc.visible[0], sc.visible[1])
			if sc.visible[0] < 0 || sc.visible[1] < 0 {
				anomalies++
				t.Errorf("schema: %s succeeded but a thriftd did not list it within 3 minutes", sc.name)
			}
		}
	}
	t.Logf("faults injected in %v: %d node kill+restart, %d node pause, %d partition, %d thriftd kill; %d anomalies",
		elapsed.Round(time.Second), injected["node kill+restart"], injected["node pause"], injected["partition"], injected["thriftd kill"], anomalies)
}

// retry runs f until it answers without error, at most 5 times, 5 seconds
// apart: right after the ring heals a request may still time out.
func retry[T any](f func() (T, error)) (T, error) {
	var v T
	var err error
	for i := 0; i < 5; i++ {
		if v, err = f(); err == nil {
			return v, nil
		}
		time.Sleep(5 * time.Second)
	}
	return v, err
}

// stableCounter reads counter k until two reads 3 seconds apart agree,
// within a minute: adds of unknown outcome may still be arriving as hints.
func stableCounter(w *counters, c *testenv.Client19, k int) (int64, error) {
	prev, err := retry(func() (int64, error) { return w.read(c.CassandraClient, k) })
	if err != nil {
		return 0, err
	}
	for i := 0; i < 20; i++ {
		time.Sleep(3 * time.Second)
		v, err := retry(func() (int64, error) { return w.read(c.CassandraClient, k) })
		if err != nil {
			return 0, err
		}
		if v == prev {
			return v, nil
		}
		prev = v
	}
	return prev, nil
}

// waitListed waits until d lists family name.
func waitListed(t *testing.T, d *thriftd, name string, bound time.Duration) {
	t.Helper()
	deadline := time.Now().Add(bound)
	for {
		ok, err := lists(d, name)
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("thriftd %s does not list %s after %v (%v)", d.name, name, bound, err)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// visibility polls every thriftd until each lists family name, up to
// bound, and returns when each first did (-1: not within bound).
func visibility(ds []*thriftd, name string, bound time.Duration) [2]time.Duration {
	began := time.Now()
	seen := [2]time.Duration{-1, -1}
	for time.Since(began) < bound {
		all := true
		for i, d := range ds {
			if seen[i] >= 0 {
				continue
			}
			if ok, _ := lists(d, name); ok {
				seen[i] = time.Since(began).Round(100 * time.Millisecond)
			} else {
				all = false
			}
		}
		if all {
			break
		}
		time.Sleep(500 * time.Millisecond)
	}
	return seen
}
