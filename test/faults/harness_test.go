// Package faults injects faults into a real three-node Cassandra 5 cluster
// (test/cassandra/cluster's ring3: 127.0.0.1, .2, .3, replication factor 3)
// behind two thriftd processes, in the spirit of Jepsen's analyses of
// Cassandra: nodes killed and restarted, paused, cut off from the other two,
// and thriftd processes killed in the middle of batches, while clients of the
// 19.x API run lightweight-transaction registers (checked for
// linearizability by porcupine), QUORUM batches, counters, KEYS indexes and
// schema changes. What each workload must show is in docs/cassandra.md,
// "Guarantees under faults".
//
// The suite takes minutes and faults a shared cluster, so it runs only when
// THRIFTD_FAULTS=1:
//
//	THRIFTD_FAULTS=1 go test -race -v -timeout 90m ./test/faults
//
// THRIFTD_FAULTS_ROUNDS (default 3) is how many faults of each kind one run
// injects; THRIFTD_FAULTS_KINDS (default kill,pause,partition,thriftd)
// which kinds. THRIFTD_FAULTS_KEEP=1 keeps a failed run's keyspaces on the
// ring, to look at what was lost.
package faults

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/apache/thrift/lib/go/thrift"

	"github.com/thriftd/thriftd/gen-go/cassandra19"
	"github.com/thriftd/thriftd/internal/testenv"
)

var thriftdBin string

func TestMain(m *testing.M) {
	if os.Getenv("THRIFTD_FAULTS") != "1" {
		fmt.Println("test/faults: skipped; THRIFTD_FAULTS=1 runs it (minutes, and it faults ring3's nodes)")
		os.Exit(0)
	}
	testenv.Main(m, false, &thriftdBin)
}

// rounds is how many faults of each kind a run injects.
func rounds(t *testing.T) int {
	s := os.Getenv("THRIFTD_FAULTS_ROUNDS")
	if s == "" {
		return 3
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > 50 {
		t.Fatalf("THRIFTD_FAULTS_ROUNDS=%q: want 1 to 50", s)
	}
	return n
}

const ks = "Faults"

// ring3Config is the stock 0.6 configuration on the ring's partitioner.
func ring3Config(t *testing.T) string {
	t.Helper()
	text, err := os.ReadFile(testenv.Fixture("storage-conf-0.6-default.xml"))
	if err != nil {
		t.Fatal(err)
	}
	from := "<Partitioner>org.apache.cassandra.dht.RandomPartitioner</Partitioner>"
	if bytes.Count(text, []byte(from)) != 1 {
		t.Fatalf("storage-conf-0.6-default.xml: %q not found once", from)
	}
	text = bytes.Replace(text, []byte(from), []byte("<Partitioner>org.apache.cassandra.dht.Murmur3Partitioner</Partitioner>"), 1)
	conf := filepath.Join(t.TempDir(), "storage-conf-ring3.xml")
	if err := os.WriteFile(conf, text, 0o644); err != nil {
		t.Fatal(err)
	}
	return conf
}

// thriftd is one thriftd process that the nemesis kills and restarts: its
// address changes with each start, so clients ask for it when they dial.
type thriftd struct {
	name string
	node *testenv.Node
	mu   sync.Mutex
	addr string
	up   bool
}

func (d *thriftd) start(t *testing.T) {
	t.Helper()
	d.node.Start()
	d.mu.Lock()
	d.addr, d.up = d.node.Addr, true
	d.mu.Unlock()
}

func (d *thriftd) kill() {
	d.mu.Lock()
	d.up = false
	d.mu.Unlock()
	d.node.Kill()
}

func (d *thriftd) address() (string, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.addr, d.up
}

// dial connects to d with the 19.x client on keyspace ks, retrying while d
// is down, until stop closes.
func (d *thriftd) dial(stop <-chan struct{}, keyspace string) *testenv.Client19 {
	for {
		if addr, up := d.address(); up {
			c, err := testenv.Dial19(addr, true, 30*time.Second)
			if err == nil {
				if keyspace == "" {
					return c
				}
				if err = c.SetKeyspace(ctx, keyspace); err == nil {
					return c
				}
				c.Close()
			}
		}
		select {
		case <-stop:
			return nil
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// outcome sorts a call's error.
type outcome int

const (
	ok          outcome = iota
	failed              // known not applied: Unavailable, or a refused request
	indefinite          // TimedOut: maybe applied
	lostConn            // the connection broke (a killed thriftd): maybe applied; redial
	otherFailed         // an unexpected error: maybe applied; redial
)

var outcomeNames = [...]string{"ok", "unavailable", "timed out", "connection lost", "other error"}

func classify(err error) outcome {
	var ue *cassandra19.UnavailableException
	var te *cassandra19.TimedOutException
	var ne net.Error
	var tte thrift.TTransportException
	switch {
	case err == nil:
		return ok
	case errors.As(err, &ue):
		return failed
	case errors.As(err, &te):
		return indefinite
	case errors.As(err, &tte), errors.As(err, &ne), errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		return lostConn
	}
	return otherFailed
}

// tally counts outcomes.
type tally struct {
	mu sync.Mutex
	n  [5]int
	// last holds an example of each unexpected error.
	last string
}

func (ta *tally) add(o outcome, err error) {
	ta.mu.Lock()
	ta.n[o]++
	if o == otherFailed {
		ta.last = err.Error()
	}
	ta.mu.Unlock()
}

func (ta *tally) String() string {
	ta.mu.Lock()
	defer ta.mu.Unlock()
	var parts []string
	total := 0
	for i, n := range ta.n {
		total += n
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, outcomeNames[i]))
		}
	}
	s := fmt.Sprintf("%d operations (%s)", total, strings.Join(parts, ", "))
	if ta.last != "" {
		s += "; an unexpected error: " + ta.last
	}
	return s
}

// ring is ring3 and the faults the nemesis puts on it.
type ring struct {
	t      *testing.T
	points string
	run    string

	mu      sync.Mutex
	paused  map[int]bool // nodes stopped with SIGSTOP
	nftUsed bool
}

const nftTable = "thriftd_faults"

func newRing(t *testing.T) *ring {
	points := testenv.CassandraCluster(t, "ring3")
	run := os.Getenv("THRIFTD_CASSANDRA_RUN")
	if run == "" {
		run = "/tmp/thriftd-cassandra"
	}
	r := &ring{t: t, points: points, run: run, paused: map[int]bool{}}
	// Whatever happens, the ring is left whole: every paused node
	// continued, the partition's rules removed, every node running.
	t.Cleanup(r.heal)
	return r
}

// heal undoes every fault: it continues paused nodes, removes the
// partition and starts nodes that are down.
func (r *ring) heal() {
	r.mu.Lock()
	for i := range r.paused {
		if pid, err := r.pid(i); err == nil {
			syscall.Kill(pid, syscall.SIGCONT)
		}
		delete(r.paused, i)
	}
	used := r.nftUsed
	r.mu.Unlock()
	if used {
		r.unpartition()
	}
	testenv.ClusterCommand(r.t, "start", "ring3")
}

// pid is the process id of node i's JVM, checked against its command line
// so that a reused number is never signalled.
func (r *ring) pid(i int) (int, error) {
	dir := filepath.Join(r.run, "ring3", fmt.Sprintf("node%d", i))
	b, err := os.ReadFile(filepath.Join(dir, "pid"))
	if err != nil {
		return 0, err
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return 0, err
	}
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		return 0, err
	}
	for _, arg := range bytes.Split(cmdline, []byte{0}) {
		if string(arg) == "-Dthriftd.node="+dir {
			return pid, nil
		}
	}
	return 0, fmt.Errorf("pid %d is not ring3's node %d", pid, i)
}

func (r *ring) kill(i int) {
	testenv.ClusterCommand(r.t, "kill", "ring3", strconv.Itoa(i))
}

func (r *ring) restart(i int) {
	testenv.ClusterCommand(r.t, "restart", "ring3", strconv.Itoa(i))
}

func (r *ring) pause(i int) {
	pid, err := r.pid(i)
	if err != nil {
		r.t.Fatal(err)
	}
	r.mu.Lock()
	r.paused[i] = true
	r.mu.Unlock()
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		r.t.Fatal(err)
	}
}

func (r *ring) resume(i int) {
	pid, err := r.pid(i)
	if err != nil {
		r.t.Fatal(err)
	}
	if err := syscall.Kill(pid, syscall.SIGCONT); err != nil {
		r.t.Fatal(err)
	}
	r.mu.Lock()
	delete(r.paused, i)
	r.mu.Unlock()
}

// storagePort is ring3's inter-node port (test/cassandra/cluster).
const storagePort = 17003

// partition cuts node i off from the other two: every packet between
// 127.0.0.i and the others' addresses to or from the storage port is
// dropped, in an nftables table of the suite's own. Clients still reach
// every node's CQL port, so the isolated node keeps coordinating requests
// it cannot complete.
func (r *ring) partition(i int) {
	var others []string
	for j := 1; j <= 3; j++ {
		if j != i {
			others = append(others, fmt.Sprintf("127.0.0.%d", j))
		}
	}
	me := fmt.Sprintf("127.0.0.%d", i)
	set := "{ " + strings.Join(others, ", ") + " }"
	script := fmt.Sprintf(`table inet %[1]s {
	chain out {
		type filter hook output priority 0; policy accept;
		ip saddr %[2]s ip daddr %[3]s tcp dport %[4]d drop
		ip saddr %[2]s ip daddr %[3]s tcp sport %[4]d drop
		ip saddr %[3]s ip daddr %[2]s tcp dport %[4]d drop
		ip saddr %[3]s ip daddr %[2]s tcp sport %[4]d drop
	}
}
`, nftTable, me, set, storagePort)
	r.mu.Lock()
	r.nftUsed = true
	r.mu.Unlock()
	cmd := exec.Command("nft", "-f", "-")
	cmd.Stdin = strings.NewReader(script)
	if out, err := cmd.CombinedOutput(); err != nil {
		r.t.Fatalf("nft: %v\n%s", err, out)
	}
}

func (r *ring) unpartition() {
	out, err := exec.Command("nft", "delete", "table", "inet", nftTable).CombinedOutput()
	if err != nil && !strings.Contains(string(out), "No such file") {
		r.t.Errorf("nft delete table: %v\n%s", err, out)
	}
}

// cleanNft removes a table a crashed earlier run left behind.
func cleanNft() {
	exec.Command("nft", "delete", "table", "inet", nftTable).Run()
}

// dialOnce connects to addr on keyspace ks with time for a schema change
// (its agreement may wait two minutes).
func dialOnce(addr string) (*testenv.Client19, error) {
	c, err := testenv.Dial19(addr, true, 3*time.Minute)
	if err != nil {
		return nil, err
	}
	if err := c.SetKeyspace(ctx, ks); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}
