package testenv

import (
	"io"
	"net"
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestClusterFor(t *testing.T) {
	for class, want := range map[string]string{
		"org.apache.cassandra.dht.RandomPartitioner":                   "random",
		"RandomPartitioner":                                            "random",
		"org.apache.cassandra.dht.OrderPreservingPartitioner":          "byteordered",
		"org.apache.cassandra.dht.CollatingOrderPreservingPartitioner": "byteordered",
		"org.apache.cassandra.dht.ByteOrderedPartitioner":              "byteordered",
		"org.apache.cassandra.dht.Murmur3Partitioner":                  "murmur3",
	} {
		if got, err := clusterFor(class); err != nil || got != want {
			t.Errorf("clusterFor(%s) = %q, %v; want %q", class, got, err, want)
		}
	}
	if got, err := clusterFor("org.example.Other"); err == nil {
		t.Errorf("clusterFor of an unknown partitioner = %q, want an error", got)
	}
}

func TestCassandraPrefixIsFreshAndValid(t *testing.T) {
	valid := regexp.MustCompile(`^t[0-9a-f]{10}_$`)
	seen := map[string]bool{}
	for i := 0; i < 100; i++ {
		p := CassandraPrefix(t)
		if !valid.MatchString(p) {
			t.Fatalf("prefix %q is not a letter, ten hex digits and _", p)
		}
		if seen[p] {
			t.Fatalf("prefix %q given twice", p)
		}
		seen[p] = true
	}
}

func TestPartitionerOf(t *testing.T) {
	if got := partitionerOf(t, Fixture("storage-conf-0.6-default.xml")); got != "org.apache.cassandra.dht.RandomPartitioner" {
		t.Errorf("default fixture: %q", got)
	}
	if got := partitionerOf(t, Fixture("storage-conf-0.6-test.xml")); got != "org.apache.cassandra.dht.CollatingOrderPreservingPartitioner" {
		t.Errorf("test fixture: %q", got)
	}
}

func TestLevelDBOnlyListParses(t *testing.T) {
	for _, suite := range []string{"go", "python"} {
		list, err := levelDBOnly(suite)
		if err != nil {
			t.Fatal(err)
		}
		for name, why := range list {
			if why == "" {
				t.Errorf("%s %s has no reason", suite, name)
			}
		}
	}
}

// TestCassandraAnswersCQL gets the murmur3 node (starting it when needed)
// and asks it for its CQL options over the native protocol.
func TestCassandraAnswersCQL(t *testing.T) {
	points := Cassandra(t, "org.apache.cassandra.dht.Murmur3Partitioner")
	if !strings.Contains(points, ":") {
		t.Fatalf("contact points %q", points)
	}
	for _, p := range strings.Split(points, ",") {
		c, err := net.DialTimeout("tcp", p, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		c.SetDeadline(time.Now().Add(10 * time.Second))
		// Version 4 request, stream 0, OPTIONS, empty body.
		if _, err := c.Write([]byte{4, 0, 0, 0, 5, 0, 0, 0, 0}); err != nil {
			t.Fatal(err)
		}
		head := make([]byte, 9)
		if _, err := io.ReadFull(c, head); err != nil {
			t.Fatal(err)
		}
		c.Close()
		// Version 4 response, SUPPORTED.
		if head[0] != 0x84 || head[4] != 0x06 {
			t.Errorf("%s answered OPTIONS with header % x", p, head)
		}
	}
	if again := Cassandra(t, "Murmur3Partitioner"); again != points {
		t.Errorf("second call: %q, first %q", again, points)
	}
}
