package journey

// The journey on three nodes (test/cassandra/journey ring): a 3.11.19 ring
// at RF 3, a Thrift client writing and reading back at QUORUM the whole
// time, first on 3.11's own Thrift server, then through thriftd; DROP
// COMPACT STORAGE, then each node rolled to 4.1.10 (drain, stop, start
// on its directories, upgradesstables), then to 5.0.9. Every acknowledged
// write is read back at the end; every failed request is counted by
// step and kind. It runs when THRIFTD_JOURNEY_RING=1 as well as
// THRIFTD_JOURNEY=1:
//
//	THRIFTD_JOURNEY=1 THRIFTD_JOURNEY_RING=1 go test -race -v -run TestRing -timeout 60m ./test/journey

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/thriftd/thriftd/engine/cqlstore"
	"github.com/thriftd/thriftd/gen-go/cassandra19"
	"github.com/thriftd/thriftd/internal/testenv"
)

// app is the Thrift application: it inserts a new row at QUORUM, and
// once acknowledged reads it back at QUORUM, one call at a time, on the
// server target names, until stopped.
type app struct {
	target atomic.Pointer[string]
	step   atomic.Pointer[string]
	first  string // 3.11's Thrift server

	mu       sync.Mutex
	acked    []string
	failures map[string]int // "step: op: kind"
	samples  map[string]string
	perStep  map[string]*[2]int // acknowledged writes, good reads

	stop, done chan struct{}
}

func newApp(addr, step string) *app {
	a := &app{failures: map[string]int{}, samples: map[string]string{}, perStep: map[string]*[2]int{},
		stop: make(chan struct{}), done: make(chan struct{})}
	a.target.Store(&addr)
	a.step.Store(&step)
	a.first = addr
	return a
}

func (a *app) setStep(s string) { a.step.Store(&s) }

// kind names a failed call's error: the Thrift exception, or transport.
func kind(err error) string {
	var ue *cassandra19.UnavailableException
	var te *cassandra19.TimedOutException
	var ie *cassandra19.InvalidRequestException
	var ne *cassandra19.NotFoundException
	switch {
	case errors.As(err, &ue):
		return "UnavailableException"
	case errors.As(err, &te):
		return "TimedOutException"
	case errors.As(err, &ie):
		return "InvalidRequestException"
	case errors.As(err, &ne):
		return "NotFoundException"
	}
	return "transport"
}

func (a *app) fail(on, op string, err error) {
	step := *a.step.Load()
	server := "thriftd"
	if on == a.first {
		server = "3.11's Thrift"
	}
	k := fmt.Sprintf("%s: %s on %s: %s", step, op, server, kind(err))
	a.mu.Lock()
	a.failures[k]++
	if _, ok := a.samples[k]; !ok {
		a.samples[k] = clip(err.Error())
	}
	a.mu.Unlock()
}

func (a *app) count(i int) {
	step := *a.step.Load()
	a.mu.Lock()
	p := a.perStep[step]
	if p == nil {
		p = &[2]int{}
		a.perStep[step] = p
	}
	p[i]++
	a.mu.Unlock()
}

func (a *app) run() {
	defer close(a.done)
	ctx := context.Background()
	quorum := cassandra19.ConsistencyLevel_QUORUM
	var c *testenv.Client19
	var on string
	for i := 0; ; i++ {
		select {
		case <-a.stop:
			if c != nil {
				c.Close()
			}
			return
		default:
		}
		if addr := *a.target.Load(); c == nil || on != addr {
			if c != nil {
				c.Close()
				c = nil
			}
			var err error
			if c, err = (access{}).dialKeyspace(addr, 15*time.Second); err != nil {
				a.fail(addr, "connect", err)
				c = nil
				time.Sleep(200 * time.Millisecond)
				continue
			}
			on = addr
		}
		key := fmt.Sprintf("r%07d", i)
		ts := time.Now().UnixMicro()
		if err := c.Insert(ctx, []byte(key), &cassandra19.ColumnParent{ColumnFamily: "Writes"},
			&cassandra19.Column{Name: []byte("seq"), Value: []byte(key), Timestamp: &ts}, quorum); err != nil {
			a.fail(on, "insert", err)
			if !isThriftException(err) {
				c.Close()
				c = nil
			}
			continue
		}
		a.mu.Lock()
		a.acked = append(a.acked, key)
		a.mu.Unlock()
		a.count(0)
		got, err := c.Get(ctx, []byte(key), &cassandra19.ColumnPath{ColumnFamily: "Writes", Column: []byte("seq")}, quorum)
		switch {
		case err != nil:
			a.fail(on, "get", err)
			if !isThriftException(err) {
				c.Close()
				c = nil
			}
		case got.Column == nil || string(got.Column.Value) != key:
			a.fail(on, "get", fmt.Errorf("read back %s", answer(got, nil)))
		default:
			a.count(1)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestRing(t *testing.T) {
	if os.Getenv("THRIFTD_JOURNEY_RING") == "" {
		t.Skip("set THRIFTD_JOURNEY_RING=1 to run the journey on three nodes")
	}
	start := time.Now()
	script(t, "ring", "wipe")
	t.Cleanup(func() {
		if os.Getenv("THRIFTD_JOURNEY_KEEP") == "" {
			script(t, "ring", "wipe")
		}
	})
	natives := script(t, "ring", "start-all", "3.11")
	thrift311 := script(t, "ring", "address", "1")
	t.Logf("ring: three 3.11.19 nodes serving CQL at %s (%s)", natives, time.Since(start).Round(time.Second))

	type timing struct {
		step string
		d    time.Duration
	}
	var timings []timing
	timed := func(step string, f func()) {
		t0 := time.Now()
		f()
		timings = append(timings, timing{step, time.Since(t0)})
		t.Logf("ring: %s in %s", step, time.Since(t0).Round(time.Second))
	}

	ctx := context.Background()
	c, err := access{}.dial(thrift311, 60*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	kd := cassandra19.NewKsDef()
	kd.Name, kd.StrategyClass = ks, "org.apache.cassandra.locator.SimpleStrategy"
	var cfs []*cassandra19.CfDef
	for _, f := range families() {
		if f.Name == "Writes" || f.Name == "Longs" || f.Name == "Standard1" {
			cfs = append(cfs, f)
		}
	}
	kd.StrategyOptions, kd.CfDefs = map[string]string{"replication_factor": "3"}, cfs
	if _, err := c.SystemAddKeyspace(ctx, kd); err != nil {
		t.Fatalf("system_add_keyspace on 3.11: %v", err)
	}
	agree(t, c)
	c.Close()

	a := newApp(thrift311, "on 3.11's Thrift")
	go a.run()
	waitAcked(t, a, 200)

	cl := cqlCluster(natives)
	s := connect(t, cl)
	// thriftd in front of the ring before the drop: it serves no compact
	// table, and takes each in within seconds of its drop.
	conf := filepath.Join(t.TempDir(), "storage-conf.xml")
	base, err := os.ReadFile(testenv.Fixture("storage-conf-0.6-default.xml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(conf, base, 0o644); err != nil {
		t.Fatal(err)
	}
	var n *testenv.Node
	t.Cleanup(func() {
		if n == nil {
			return
		}
		// thriftd's whole log, beside the nodes' (test/cassandra/journey
		// ring logs N).
		run := os.Getenv("THRIFTD_JOURNEY_RUN")
		if run == "" {
			run = "/tmp/thriftd-journey"
		}
		if err := os.WriteFile(filepath.Join(run, "ring-thriftd.log"), []byte(n.Logs()), 0o644); err != nil {
			t.Log(err)
		}
		if t.Failed() {
			t.Logf("thriftd's warnings and errors:\n%s", problems(n.Logs()))
		}
	})
	n = testenv.NewNodeArgs(t, thriftdBin, "-config", conf, "-listen", "127.0.0.1:0", "-log-format", "json",
		"-log-level", "info", "-admin", "127.0.0.1:0", "-api", "19.x",
		"-cassandra", natives, "-cassandra-prefix", "journey_thriftd_", "-cassandra-adopt", ks, "-cassandra-timeout", "5s")
	timed("thriftd started in front of 3.11", n.Start)

	timed("DROP COMPACT STORAGE, app moved to thriftd", func() {
		a.setStep("DROP COMPACT STORAGE (app on 3.11's Thrift)")
		for _, f := range cfs {
			if err := s.Query(`ALTER TABLE ` + ks + `."` + f.Name + `" DROP COMPACT STORAGE`).Exec(); err != nil {
				t.Fatalf("DROP COMPACT STORAGE of %s: %v", f.Name, err)
			}
		}
		// The app moves as soon as thriftd serves the table.
		waitServed(t, n.Addr)
		a.setStep("thriftd on 3.11")
		a.target.Store(&n.Addr)
	})
	s.Close()
	waitAcked(t, a, 200)

	for _, v := range []struct{ short, full string }{{"4.1", "4.1.10"}, {"5.0", "5.0.9"}} {
		for node := 1; node <= 3; node++ {
			step := fmt.Sprintf("node %d to %s", node, v.full)
			a.setStep(step)
			timed(step, func() { script(t, "ring", "start", fmt.Sprint(node), v.short) })
			a.setStep(fmt.Sprintf("after node %d to %s", node, v.full))
			waitAcked(t, a, 100)
		}
		if v.short == "4.1" {
			for node := 1; node <= 3; node++ {
				step := fmt.Sprintf("upgradesstables on node %d", node)
				a.setStep(step)
				timed(step, func() { script(t, "ring", "nodetool", fmt.Sprint(node), "upgradesstables") })
			}
		}
	}
	a.setStep("on 5.0.9")
	waitAcked(t, a, 200)
	close(a.stop)
	<-a.done

	// Every acknowledged write, read back at QUORUM and at ALL.
	rc, err := access{}.dialKeyspace(n.Addr, 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	lost := map[cassandra19.ConsistencyLevel]int{}
	for _, cl := range []cassandra19.ConsistencyLevel{cassandra19.ConsistencyLevel_QUORUM, cassandra19.ConsistencyLevel_ALL} {
		for _, k := range a.acked {
			got, err := rc.Get(ctx, []byte(k), &cassandra19.ColumnPath{ColumnFamily: "Writes", Column: []byte("seq")}, cl)
			if err != nil || got.Column == nil || string(got.Column.Value) != k {
				lost[cl]++
				if lost[cl] <= 5 {
					t.Errorf("acknowledged write %s not read back at %v: %v", k, cl, err)
				}
			}
		}
	}

	// The figures.
	total := 0
	var keys []string
	for k, v := range a.failures {
		keys = append(keys, k)
		total += v
	}
	sort.Strings(keys)
	t.Logf("ring: %d writes acknowledged at QUORUM, lost %d (read back at QUORUM), %d (at ALL); %d requests failed",
		len(a.acked), lost[cassandra19.ConsistencyLevel_QUORUM], lost[cassandra19.ConsistencyLevel_ALL], total)
	for _, k := range keys {
		t.Logf("ring: failed: %s: %d (first: %s)", k, a.failures[k], a.samples[k])
	}
	var steps []string
	for s := range a.perStep {
		steps = append(steps, s)
	}
	sort.Strings(steps)
	for _, s := range steps {
		t.Logf("ring: during %q: %d writes acknowledged, %d read back at once", s, a.perStep[s][0], a.perStep[s][1])
	}
	for _, tm := range timings {
		t.Logf("ring: step %-45s %s", tm.step, tm.d.Round(time.Second))
	}
	if len(a.acked) == 0 {
		t.Error("ring: no write was acknowledged")
	}
	t.Logf("ring: %s in all", time.Since(start).Round(time.Second))
}

// agree waits until the ring agrees on one schema version.
func agree(t *testing.T, c *testenv.Client19) {
	t.Helper()
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(500 * time.Millisecond) {
		v, err := c.DescribeSchemaVersions(context.Background())
		if err == nil {
			delete(v, "UNREACHABLE")
			if len(v) == 1 {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the ring does not agree on its schema: %v %v", v, err)
		}
	}
}

// waitAcked waits until the app has n more writes acknowledged.
func waitAcked(t *testing.T, a *app, n int) {
	t.Helper()
	a.mu.Lock()
	want := len(a.acked) + n
	a.mu.Unlock()
	for deadline := time.Now().Add(5 * time.Minute); ; time.Sleep(100 * time.Millisecond) {
		a.mu.Lock()
		got := len(a.acked)
		a.mu.Unlock()
		if got >= want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the app acknowledged %d writes of %d in 5 minutes", got, want)
		}
	}
}

// waitServed waits until thriftd serves the Writes family.
func waitServed(t *testing.T, addr string) {
	t.Helper()
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(200 * time.Millisecond) {
		c, err := access{}.dialKeyspace(addr, 10*time.Second)
		if err == nil {
			_, err = c.GetSlice(context.Background(), []byte("r0000000"), &cassandra19.ColumnParent{ColumnFamily: "Writes"},
				slice([]byte{}, []byte{}, false, 1), cassandra19.ConsistencyLevel_QUORUM)
			c.Close()
			if err == nil {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("thriftd does not serve Writes: %v", err)
		}
	}
}

func cqlCluster(natives string) cqlstore.Cluster {
	return cqlstore.Cluster{Hosts: strings.Split(natives, ","), Timeout: 30 * time.Second}
}
