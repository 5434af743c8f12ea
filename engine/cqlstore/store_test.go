package cqlstore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"testing"
	"time"

	"github.com/thriftd/thriftd/engine"
	"github.com/thriftd/thriftd/engine/storetest"
	"github.com/thriftd/thriftd/schema"
)

// cluster returns how to reach the real node matching s's partitioner,
// starting it when needed.
func cluster(t testing.TB, s *schema.Schema) Cluster {
	t.Helper()
	return Cluster{Hosts: startCassandra(t, s.Partitioner.Name()), Timeout: 20 * time.Second}
}

// freshPrefix is a keyspace prefix no other test uses.
func freshPrefix(t testing.TB) string {
	b := make([]byte, 5)
	rand.Read(b)
	return "t" + hex.EncodeToString(b) + "_"
}

// openFresh opens a store for s under a fresh prefix and drops the
// prefix's keyspaces when the test ends.
func openFresh(t testing.TB, s *schema.Schema, gcGrace int) (*Store, Options) {
	t.Helper()
	o := Options{Cluster: cluster(t, s), Prefix: freshPrefix(t), GCGraceSeconds: gcGrace}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	st, err := Open(ctx, s, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		st.Close()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if _, err := DropPrefix(ctx, o.Cluster, o.Prefix); err != nil {
			t.Errorf("drop prefix %s: %v", o.Prefix, err)
		}
	})
	return st, o
}

// TestConformance runs the engine.Store conformance suite on real
// Cassandra nodes, one per partitioner.
func TestConformance(t *testing.T) {
	storetest.Run(t, storetest.Harness{
		Open: func(t *testing.T, s *schema.Schema) engine.Store {
			st, _ := openFresh(t, s, 864000)
			return st
		},
		AtomicCalls: false,
		Limits:      "docs/cassandra.md, Atomicity",
	})
}
