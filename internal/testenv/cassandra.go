package testenv

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Backends of whole-process tests, chosen with THRIFTD_TEST_BACKEND.
const (
	// LevelDB is thriftd's embedded store, the default.
	LevelDB = "leveldb"
	// CassandraBackend is a real Cassandra 5 node of test/cassandra/cluster,
	// one per partitioner.
	CassandraBackend = "cassandra"
)

// Backend is the store whole-process tests run thriftd on: the value of
// THRIFTD_TEST_BACKEND, LevelDB when unset. An unknown value panics, so a
// misspelt switch never silently runs the LevelDB tests again.
func Backend() string {
	switch b := os.Getenv("THRIFTD_TEST_BACKEND"); b {
	case "", LevelDB:
		return LevelDB
	case CassandraBackend:
		return CassandraBackend
	default:
		panic(fmt.Sprintf("THRIFTD_TEST_BACKEND=%q: want %q or %q", b, LevelDB, CassandraBackend))
	}
}

// ClusterScript is the path of test/cassandra/cluster, which fetches,
// starts and stops the test nodes.
func ClusterScript() string { return filepath.Join(RepoRoot(), "test", "cassandra", "cluster") }

// clusterFor maps a 0.6 partitioner class (fully qualified or short) to
// the test cluster whose partitioner gives the same row order.
func clusterFor(partitionerClass string) (string, error) {
	short := partitionerClass[strings.LastIndex(partitionerClass, ".")+1:]
	switch short {
	case "RandomPartitioner":
		return "random", nil
	case "OrderPreservingPartitioner", "CollatingOrderPreservingPartitioner", "ByteOrderedPartitioner":
		return "byteordered", nil
	case "Murmur3Partitioner":
		return "murmur3", nil
	}
	return "", fmt.Errorf("no test cluster for partitioner %q", partitionerClass)
}

// clusters caches the contact points of the clusters this process started.
var clusters = struct {
	sync.Mutex
	points map[string]string
}{points: map[string]string{}}

// Cassandra returns the contact points ("127.0.0.1:19043" or
// "HOST:PORT,HOST:PORT...") of the running test cluster for a 0.6
// partitioner class: RandomPartitioner runs on the "random" cluster,
// OrderPreserving, CollatingOrderPreserving and ByteOrdered partitioners on
// "byteordered", Murmur3Partitioner on "murmur3". The points come from
// $THRIFTD_CASSANDRA_<NAME> (e.g. THRIFTD_CASSANDRA_RANDOM) when set, else
// from running the cluster script's start under a file lock, which reuses
// a node already running. It fails the test when no node can be had; it
// never skips.
func Cassandra(t testing.TB, partitionerClass string) string {
	t.Helper()
	name, err := clusterFor(partitionerClass)
	if err != nil {
		t.Fatal(err)
	}
	return CassandraCluster(t, name)
}

// CassandraCluster returns the contact points of test cluster name
// (murmur3, random, byteordered or ring3), starting it as Cassandra does.
func CassandraCluster(t testing.TB, name string) string {
	t.Helper()
	if p := os.Getenv("THRIFTD_CASSANDRA_" + strings.ToUpper(name)); p != "" {
		return p
	}
	clusters.Lock()
	defer clusters.Unlock()
	if p, ok := clusters.points[name]; ok {
		return p
	}
	out, err := startCluster(name)
	if err != nil {
		t.Fatalf("cannot start the Cassandra test cluster %s: %v", name, err)
	}
	clusters.points[name] = out
	return out
}

// startCluster runs the script's start for name while holding an exclusive
// lock on a file of the run directory, so that test packages running in
// parallel start each node once.
func startCluster(name string) (string, error) {
	run := os.Getenv("THRIFTD_CASSANDRA_RUN")
	if run == "" {
		run = "/tmp/thriftd-cassandra"
	}
	if err := os.MkdirAll(run, 0o755); err != nil {
		return "", err
	}
	lock, err := os.OpenFile(filepath.Join(run, "testenv-"+name+".lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return "", err
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return "", fmt.Errorf("lock %s: %w", lock.Name(), err)
	}
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
	// A first start fetches about 70 MB of jars and boots the JVM.
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, ClusterScript(), "start", name)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%s start %s: %v\n%s%s", ClusterScript(), name, err, stdout.String(), stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	points := lines[len(lines)-1]
	if points == "" || !strings.Contains(points, ":") {
		return "", fmt.Errorf("%s start %s printed no contact points:\n%s%s", ClusterScript(), name, stdout.String(), stderr.String())
	}
	return points, nil
}

// ClusterCommand runs the cluster script with args (e.g. "kill", "ring3",
// "3") and returns what it printed; it fails the test when the script
// fails.
func ClusterCommand(t testing.TB, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, ClusterScript(), args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", ClusterScript(), strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// CassandraPrefix returns a CQL keyspace prefix no other test uses: "t",
// ten hexadecimal digits and "_" (12 characters, leaving 36 of Cassandra's
// 48 for the 0.6 keyspace name).
func CassandraPrefix(t testing.TB) string {
	b := make([]byte, 5)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return "t" + hex.EncodeToString(b) + "_"
}
