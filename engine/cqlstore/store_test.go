package cqlstore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/thriftd/thriftd/engine"
	"github.com/thriftd/thriftd/engine/storetest"
	"github.com/thriftd/thriftd/internal/testenv"
	"github.com/thriftd/thriftd/marshal"
	"github.com/thriftd/thriftd/schema"
)

// cluster returns how to reach the real node matching s's partitioner,
// starting it when needed.
func cluster(t testing.TB, s *schema.Schema) Cluster {
	t.Helper()
	return Cluster{Hosts: strings.Split(testenv.Cassandra(t, s.Partitioner.Name()), ","), Timeout: 20 * time.Second}
}

// openFresh opens a store for s under a fresh prefix and drops the
// prefix's keyspaces when the test ends.
func openFresh(t testing.TB, s *schema.Schema, gcGrace int) (*Store, Options) {
	t.Helper()
	o := Options{Cluster: cluster(t, s), Prefix: testenv.CassandraPrefix(t), GCGraceSeconds: gcGrace}
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

// TestSchemaConformance runs the conformance suite of engine.SchemaStore
// and engine.Truncater on a real node.
func TestSchemaConformance(t *testing.T) {
	storetest.RunSchema(t, reopeningHarness())
}

// reopeningHarness opens a store under a fresh prefix on the test node,
// and reopens it on the same keyspaces.
func reopeningHarness() storetest.Harness {
	return storetest.Harness{
		Open: func(t *testing.T, s *schema.Schema) engine.Store {
			st, _ := openFresh(t, s, 864000)
			return st
		},
		Reopen: func(t *testing.T, st engine.Store, s *schema.Schema) engine.Store {
			o := st.(*Store).opts
			if err := st.Close(); err != nil {
				t.Fatal(err)
			}
			return openAnother(t, s, o)
		},
	}
}

var ctx = context.Background()

func TestRefusesAClusterOfAnotherPartitioner(t *testing.T) {
	s := storetest.TestSchema(t, "RandomPartitioner")
	murmur := storetest.TestSchema(t, "Murmur3Partitioner")
	_, err := Open(ctx, s, Options{Cluster: cluster(t, murmur), Prefix: testenv.CassandraPrefix(t)})
	if err == nil || !strings.Contains(err.Error(), "uses org.apache.cassandra.dht.Murmur3Partitioner") ||
		!strings.Contains(err.Error(), "Partitioner org.apache.cassandra.dht.RandomPartitioner promises") {
		t.Fatalf("Open = %v", err)
	}
}

func TestRefusesAnUnreachableCluster(t *testing.T) {
	s := storetest.TestSchema(t, "RandomPartitioner")
	_, err := Open(ctx, s, Options{Cluster: Cluster{Hosts: []string{"127.0.0.1:1", "127.0.0.1:2"}, Timeout: 2 * time.Second}})
	if err == nil || !strings.Contains(err.Error(), "cannot reach the Cassandra cluster at 127.0.0.1:1,127.0.0.1:2") {
		t.Fatalf("Open = %v", err)
	}
}

func TestRefusesNamesCassandraCannotHold(t *testing.T) {
	s := storetest.TestSchema(t, "RandomPartitioner")
	o := Options{Cluster: Cluster{Hosts: []string{"127.0.0.1:1"}}, Prefix: strings.Repeat("p", 40)}
	_, err := Open(ctx, s, o)
	if err == nil || !strings.Contains(err.Error(), "is 49 characters, over Cassandra's limit of 48") {
		t.Errorf("long prefix: %v", err)
	}
	o.Prefix = "bad-prefix"
	if _, err := Open(ctx, s, o); err == nil || !strings.Contains(err.Error(), "may hold only letters, digits and underscores") {
		t.Errorf("bad prefix: %v", err)
	}
	o.Prefix = ""
	s.Keyspaces[storetest.Keyspace].ColumnFamilies["thriftd_schema"] = s.Keyspaces[storetest.Keyspace].ColumnFamilies["Standard1"]
	if _, err := Open(ctx, s, o); err == nil || !strings.Contains(err.Error(), "thriftd's own table") {
		t.Errorf("reserved table name: %v", err)
	}
}

func TestSchemaDrift(t *testing.T) {
	s := storetest.TestSchema(t, "OrderPreservingPartitioner")
	st, o := openFresh(t, s, 864000)
	st.Close()
	try := func(s *schema.Schema, want string) {
		t.Helper()
		st, err := Open(ctx, s, o)
		if err == nil {
			st.Close()
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Open = %v\nwant it to say %q", err, want)
		}
	}
	changed := storetest.TestSchema(t, "OrderPreservingPartitioner")
	changed.Keyspaces[storetest.Keyspace].ColumnFamilies["Standard1"].Comparator = mustComparator(t, "UTF8Type")
	try(changed, "column family Keyspace1.Standard1 was CompareWith org.apache.cassandra.db.marshal.BytesType and is now org.apache.cassandra.db.marshal.UTF8Type")
	changed = storetest.TestSchema(t, "OrderPreservingPartitioner")
	changed.Keyspaces[storetest.Keyspace].ColumnFamilies["Super1"].SubComparator = mustComparator(t, "BytesType")
	try(changed, "column family Keyspace1.Super1 was CompareSubcolumnsWith org.apache.cassandra.db.marshal.LongType and is now org.apache.cassandra.db.marshal.BytesType")
	changed = storetest.TestSchema(t, "OrderPreservingPartitioner")
	changed.Keyspaces[storetest.Keyspace].ColumnFamilies["Standard2"].Super = true
	changed.Keyspaces[storetest.Keyspace].ColumnFamilies["Standard2"].SubComparator = mustComparator(t, "BytesType")
	try(changed, "column family Keyspace1.Standard2 was ColumnType Standard and is now Super")
	// Same cluster partitioner, other 0.6 partitioner: keys are encoded
	// differently, so it is drift too.
	try(storetest.TestSchema(t, "ByteOrderedPartitioner"), "holds data placed by org.apache.cassandra.dht.OrderPreservingPartitioner, but the configuration's Partitioner is org.apache.cassandra.dht.ByteOrderedPartitioner")
	// Adding a column family is fine, and the data is still there.
	added := storetest.TestSchema(t, "OrderPreservingPartitioner")
	added.Keyspaces[storetest.Keyspace].ColumnFamilies["New1"] = &schema.ColumnFamily{Keyspace: storetest.Keyspace, Name: "New1", Comparator: mustComparator(t, "AsciiType")}
	st, err := Open(ctx, added, o)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	storetest.Apply(t, st, storetest.Put("New1", "k", "a", "v", 1))
	storetest.Expect(t, storetest.Get(t, st, "New1", "k", nil, storetest.All(10)), "a=v@1")
}

func mustComparator(t testing.TB, name string) marshal.Comparator {
	t.Helper()
	c, err := marshal.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// A row holding only tombstones stays a range ghost for GCGraceSeconds,
// then disappears, as 0.6 purged it.
func TestGhostsExpireAfterGCGrace(t *testing.T) {
	s := storetest.TestSchema(t, "Murmur3Partitioner")
	st, _ := openFresh(t, s, 3)
	storetest.Apply(t, st, storetest.Put("Standard1", "live", "a", "v", 1), storetest.Put("Standard1", "dead", "a", "v", 1))
	deleted := time.Now()
	storetest.Apply(t, st, storetest.Del("Standard1", "dead", nil, nil, 2))
	keys := func() string {
		rows, err := st.Range(ctx, storetest.Keyspace, engine.TokenRange{StartInclusive: true}, engine.Query{ColumnFamily: "Standard1", Predicate: storetest.All(10)}, 10)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range rows {
			out = append(out, r.Key+":"+storetest.Render(r))
		}
		sort.Strings(out)
		return strings.Join(out, " ")
	}
	// The ghost is there while the grace (3 s) lasts: a machine too busy
	// to read within it cannot see it, and says so.
	if got := keys(); time.Since(deleted) < 3*time.Second {
		storetest.Expect(t, got, "dead: live:a=v@1")
	} else {
		t.Logf("the first read came %v after the deletion, past the grace: the ghost is not checked", time.Since(deleted))
	}
	got := keys()
	for deadline := time.Now().Add(2 * time.Minute); got != "live:a=v@1" && time.Now().Before(deadline); got = keys() {
		time.Sleep(200 * time.Millisecond)
	}
	storetest.Expect(t, got, "live:a=v@1")
}

// A keyspace whose ReplicationFactor exceeds the nodes cannot serve
// QUORUM: the store says Unavailable, which the handler sends as
// UnavailableException; ONE still works.
func TestUnavailableAtQuorum(t *testing.T) {
	s := storetest.TestSchema(t, "Murmur3Partitioner")
	s.Keyspaces[storetest.Keyspace].ReplicationFactor = 3
	st, _ := openFresh(t, s, 864000)
	quorum := engine.WithConsistency(ctx, engine.Quorum)
	err := st.Apply(quorum, storetest.Keyspace, []engine.RowMutation{storetest.Put("Standard1", "k", "a", "v", 1)})
	if !errors.Is(err, engine.ErrUnavailable) || !strings.Contains(err.Error(), "QUORUM") {
		t.Errorf("QUORUM write: %v", err)
	}
	_, err = st.Get(quorum, storetest.Keyspace, "k", engine.Query{ColumnFamily: "Standard1", Predicate: storetest.All(1)})
	if !errors.Is(err, engine.ErrUnavailable) {
		t.Errorf("QUORUM read: %v", err)
	}
	storetest.Apply(t, st, storetest.Put("Standard1", "k", "a", "v", 1))
	storetest.Expect(t, storetest.Get(t, st, "Standard1", "k", nil, storetest.All(1)), "a=v@1")
}

func TestConsistencyMapping(t *testing.T) {
	for _, tc := range []struct {
		level       engine.ConsistencyLevel
		read, write gocql.Consistency
	}{
		{engine.Zero, gocql.One, gocql.Any},
		{engine.One, gocql.One, gocql.One},
		{engine.Quorum, gocql.Quorum, gocql.Quorum},
		{engine.DCQuorum, gocql.LocalQuorum, gocql.LocalQuorum},
		{engine.DCQuorumSync, gocql.EachQuorum, gocql.EachQuorum},
		{engine.All, gocql.All, gocql.All},
		{engine.Any, gocql.One, gocql.Any},
	} {
		if r, w := readConsistency(tc.level), writeConsistency(tc.level); r != tc.read || w != tc.write {
			t.Errorf("level %d: read %v write %v, want %v %v", tc.level, r, w, tc.read, tc.write)
		}
	}
}

// Every 0.6 level maps onto one the cluster accepts for writes, reads and
// range reads (EACH_QUORUM and LOCAL_QUORUM included, on SimpleStrategy).
func TestEveryLevelIsServed(t *testing.T) {
	s := storetest.TestSchema(t, "Murmur3Partitioner")
	st, _ := openFresh(t, s, 864000)
	for _, l := range []engine.ConsistencyLevel{engine.Zero, engine.One, engine.Quorum, engine.DCQuorum, engine.DCQuorumSync, engine.All, engine.Any} {
		c := engine.WithConsistency(ctx, l)
		if err := st.Apply(c, storetest.Keyspace, []engine.RowMutation{storetest.Put("Standard1", "k", "a", "v", int64(l))}); err != nil {
			t.Errorf("level %d: write: %v", l, err)
		}
		if r, err := st.Get(c, storetest.Keyspace, "k", engine.Query{ColumnFamily: "Standard1", Predicate: storetest.All(1)}); err != nil || storetest.Render(r) != fmt.Sprintf("a=v@%d", l) {
			t.Errorf("level %d: read %q, %v", l, storetest.Render(r), err)
		}
		if rows, err := st.Range(c, storetest.Keyspace, engine.TokenRange{StartInclusive: true}, engine.Query{ColumnFamily: "Standard1", Predicate: storetest.All(1)}, 10); err != nil || len(rows) != 1 {
			t.Errorf("level %d: range %d rows, %v", l, len(rows), err)
		}
	}
}

func TestTLSFilesAreChecked(t *testing.T) {
	dir := t.TempDir()
	notPEM := dir + "/ca.pem"
	if err := os.WriteFile(notPEM, []byte("not a certificate"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		c    Cluster
		want string
	}{
		{Cluster{Hosts: []string{"127.0.0.1:1"}, TLSCA: dir + "/missing.pem"}, "TLS CA file: open " + dir + "/missing.pem"},
		{Cluster{Hosts: []string{"127.0.0.1:1"}, TLSCA: notPEM}, "TLS CA file " + notPEM + " holds no PEM certificate"},
		{Cluster{Hosts: []string{"127.0.0.1:1"}, TLSCert: notPEM, TLSKey: notPEM}, "TLS client certificate:"},
	} {
		if _, err := tc.c.Connect(); err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.c, err, tc.want)
		}
	}
}
