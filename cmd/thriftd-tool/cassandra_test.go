package main

import (
	"testing"

	"github.com/thriftd/thriftd/internal/testenv"
	"github.com/thriftd/thriftd/internal/transfertest"
)

// An embedded store moves onto a Cassandra cluster through copy, every
// column of every comparator and super column family arriving with its
// name, value and timestamp (docs/migration.md).
func TestCopyEmbeddedStoreOntoCassandra(t *testing.T) {
	dir := t.TempDir()
	conf := transfertest.Config(t, dir, "RandomPartitioner")
	src := testenv.NewNode(t, thriftdBin, conf)
	if testenv.Backend() == testenv.CassandraBackend {
		t.Fatal("the source must be the embedded store: run this test without THRIFTD_TEST_BACKEND=cassandra")
	}
	src.Start()
	dst := testenv.NewNode(t, thriftdBin, conf, testenv.CassandraStoreFlags(t, conf)...)
	dst.Start()
	if len(dst.Records(map[string]string{"msg": "Cassandra schema ready"})) == 0 {
		t.Fatalf("the target does not store into Cassandra:\n%s", dst.Logs())
	}
	var names []string
	for _, f := range transfertest.Families {
		transfertest.Fill(t, src.Client(false), f, 60, 12, 21)
		names = append(names, f.Name)
	}
	_, errOut, code := tool(t, dir, "copy", "--from", src.Addr, "--to", dst.Addr, "--keyspace", transfertest.Keyspace, "--progress", "off")
	if code != 0 {
		t.Fatalf("copy: exit %d: %s", code, errOut)
	}
	for _, name := range names {
		want := transfertest.Dump(t, src.Client(false), name)
		if len(want) == 0 {
			t.Fatalf("%s: nothing was written to the source", name)
		}
		transfertest.Same(t, name, transfertest.Dump(t, dst.Client(false), name), want)
	}
}
