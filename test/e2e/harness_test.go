// Package e2e runs the real thriftd binary and talks to it over TCP with
// the Go client generated from cassandra.thrift.
package e2e

import (
	"context"
	"testing"

	"github.com/thriftd/thriftd/gen-go/cassandra"
	"github.com/thriftd/thriftd/internal/testenv"
)

var (
	thriftdBin string
)

func TestMain(m *testing.M) {
	testenv.Main(m, true, &thriftdBin)
}

// node is one running thriftd process.
type node struct{ *testenv.Node }

// fixture returns the path of a shared fixture file.
func fixture(name string) string { return testenv.Fixture(name) }

// start runs thriftd on config with a fresh data directory on a free
// loopback port; the test stops it when it ends.
func start(t testing.TB, config string, extra ...string) *node {
	t.Helper()
	n := testenv.NewNode(t, thriftdBin, config, extra...)
	n.Start()
	return &node{n}
}

// Restart stops thriftd cleanly and starts it again on the same data.
func (n *node) Restart() {
	n.Stop()
	n.Start()
}

// client opens a connection, framed or not, closed when the test ends.
func (n *node) client(framed bool) *cassandra.CassandraClient {
	return n.Client(framed).CassandraClient
}

var ctx = context.Background()
