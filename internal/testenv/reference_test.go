package testenv

import (
	"context"
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
