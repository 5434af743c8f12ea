package cqlstore

import (
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/thriftd/thriftd/internal/testenv"
)

// TODO: replace with testenv.Cassandra once it lands.
var (
	nodesMu sync.Mutex
	nodes   = map[string][]string{}
)

func startCassandra(t testing.TB, partitionerClass string) []string {
	t.Helper()
	name := map[string]string{
		"org.apache.cassandra.dht.RandomPartitioner":                   "random",
		"org.apache.cassandra.dht.Murmur3Partitioner":                  "murmur3",
		"org.apache.cassandra.dht.OrderPreservingPartitioner":          "byteordered",
		"org.apache.cassandra.dht.ByteOrderedPartitioner":              "byteordered",
		"org.apache.cassandra.dht.CollatingOrderPreservingPartitioner": "byteordered",
	}[partitionerClass]
	nodesMu.Lock()
	defer nodesMu.Unlock()
	if h, ok := nodes[name]; ok {
		return h
	}
	out, err := exec.Command(filepath.Join(testenv.RepoRoot(), "test/cassandra/cluster"), "start", name).Output()
	if err != nil {
		t.Fatalf("start Cassandra %s: %v", name, err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	h := strings.Split(lines[len(lines)-1], ",")
	nodes[name] = h
	return h
}
