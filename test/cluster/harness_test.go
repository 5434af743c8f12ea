// Package cluster runs the real thriftd binary on a real three-node
// Cassandra 5 cluster (test/cassandra/cluster's ring3: 127.0.0.1, .2, .3,
// Murmur3Partitioner) and checks what only several nodes can show:
// replication through a node's death, and several thriftd processes on one
// cluster.
package cluster

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/thriftd/thriftd/gen-go/cassandra"
	"github.com/thriftd/thriftd/internal/testenv"
)

var thriftdBin string

func TestMain(m *testing.M) {
	testenv.Main(m, true, &thriftdBin)
}

var ctx = context.Background()

const ks1 = "Keyspace1"

// ring3Config writes the stock 0.6 configuration with the ring's
// partitioner (Murmur3) and ReplicationFactor 3, so each node holds
// every row.
func ring3Config(t *testing.T) string {
	t.Helper()
	text, err := os.ReadFile(testenv.Fixture("storage-conf-0.6-default.xml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range [][2]string{
		{"<Partitioner>org.apache.cassandra.dht.RandomPartitioner</Partitioner>", "<Partitioner>org.apache.cassandra.dht.Murmur3Partitioner</Partitioner>"},
		{"<ReplicationFactor>1</ReplicationFactor>", "<ReplicationFactor>3</ReplicationFactor>"},
	} {
		if bytes.Count(text, []byte(r[0])) != 1 {
			t.Fatalf("storage-conf-0.6-default.xml: %q not found once", r[0])
		}
		text = bytes.Replace(text, []byte(r[0]), []byte(r[1]), 1)
	}
	conf := filepath.Join(t.TempDir(), "storage-conf-ring3.xml")
	if err := os.WriteFile(conf, text, 0o644); err != nil {
		t.Fatal(err)
	}
	return conf
}

// freshPrefix is a keyspace prefix of the test's own, whose keyspaces are
// dropped when the test ends, after its thriftd processes have stopped and
// no hint is left to land during the drop (testenv.SettleHints: a hint
// landing on a node while it drops the keyspace breaks that node).
func freshPrefix(t *testing.T, points string) string {
	t.Helper()
	prefix := testenv.CassandraPrefix(t)
	t.Cleanup(func() {
		resume := testenv.SettleHints(t, "ring3", time.Minute)
		defer resume()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		if _, err := testenv.DropPrefix(ctx, points, prefix); err != nil {
			t.Errorf("dropping prefix %s: %v", prefix, err)
		}
	})
	return prefix
}

// startOnRing3 runs thriftd on conf, storing in ring3 under prefix.
func startOnRing3(t *testing.T, conf, points, prefix string) *testenv.Node {
	t.Helper()
	n := testenv.NewNode(t, thriftdBin, conf, "-cassandra", points, "-cassandra-prefix", prefix)
	n.Start()
	return n
}

func colPath(cf string, c []byte) *cassandra.ColumnPath {
	return &cassandra.ColumnPath{ColumnFamily: cf, Column: c}
}

func all() *cassandra.SlicePredicate {
	return &cassandra.SlicePredicate{SliceRange: &cassandra.SliceRange{Start: []byte{}, Finish: []byte{}, Count: 1000}}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
