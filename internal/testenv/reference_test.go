package testenv

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// TestReferenceServesThrift starts (or finds) the real Cassandra 1.2.19
// node and asks it for its API version over framed strict binary Thrift.
func TestReferenceServesThrift(t *testing.T) {
	addr := Reference(t, "1.2", "random")
	c, err := Dial19(addr, true, 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	v, err := c.DescribeVersion(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if v != "19.36.2" {
		t.Errorf("describe_version of the 1.2.19 reference = %q, want 19.36.2", v)
	}
	p, err := c.DescribePartitioner(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if p != "org.apache.cassandra.dht.RandomPartitioner" {
		t.Errorf("describe_partitioner = %q", p)
	}
}

// TestReference311ServesThriftAndCQL starts (or finds) the real Cassandra
// 3.11.19 node: its Thrift port answers the 20.x API, and its CQL port
// creates a compact table, writes to it (a prepared statement) and drops
// its compact storage, as a move off 3.11 does.
func TestReference311ServesThriftAndCQL(t *testing.T) {
	addr := Reference(t, "3.11", "random")
	c, err := Dial19(addr, true, 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	v, err := c.DescribeVersion(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if v != "20.1.0" {
		t.Errorf("describe_version of the 3.11.19 reference = %q, want 20.1.0", v)
	}
	s, err := cqlSession(ReferenceCQL(t, "3.11", "random"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ks := fmt.Sprintf("testenv_ref311_%d", time.Now().UnixNano()%1e12)
	defer s.Query("DROP KEYSPACE IF EXISTS " + ks).Exec()
	for _, q := range []string{
		"CREATE KEYSPACE " + ks + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE " + ks + ".t (k text, ts bigint, v bigint, PRIMARY KEY (k, ts)) WITH COMPACT STORAGE",
		"ALTER TABLE " + ks + ".t DROP COMPACT STORAGE",
	} {
		if err := s.Query(q).Exec(); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if err := s.Query("INSERT INTO "+ks+".t (k, ts, v) VALUES (?, ?, ?) USING TTL 3600", "a", int64(1), int64(2)).Exec(); err != nil {
		t.Fatal(err)
	}
	var release string
	if err := s.Query("SELECT release_version FROM system.local").Scan(&release); err != nil || release != "3.11.19" {
		t.Errorf("release_version %q (%v), want 3.11.19", release, err)
	}
}
