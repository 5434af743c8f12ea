// Package cql19 proves CQL over Thrift and get_multi_slice against the
// real servers: the SELECTs of the system schema tables that Thrift
// clients of Cassandra 1.2 send, compared with the real Cassandra 1.2.19,
// the real cassandra-cli 1.2.19 run against thriftd and against 1.2.19,
// and get_multi_slice compared with the real Cassandra 2.1.21.
package cql19

import (
	"bytes"
	"compress/zlib"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/apache/thrift/lib/go/thrift"

	"github.com/thriftd/thriftd/gen-go/cassandra19"
	"github.com/thriftd/thriftd/internal/testenv"
)

var thriftdBin string

func TestMain(m *testing.M) {
	testenv.Main(m, true, &thriftdBin)
}

var ctx = context.Background()

// startThriftd runs thriftd with the 19.x API and no keyspace of its own
// configuration: the tests create theirs at run time, as on the real
// node.
func startThriftd(t *testing.T) *testenv.Node { return startThriftdAPI(t, "19.x") }

// startThriftdAPI is startThriftd with the -api setting api.
func startThriftdAPI(t *testing.T, api string) *testenv.Node {
	t.Helper()
	base, err := os.ReadFile(testenv.Fixture("storage-conf-0.6-default.xml"))
	if err != nil {
		t.Fatal(err)
	}
	conf := string(base)
	i, j := strings.Index(conf, "<Keyspaces>"), strings.Index(conf, "</Keyspaces>")
	if i < 0 || j < 0 {
		t.Fatal("storage-conf-0.6-default.xml has no <Keyspaces>")
	}
	conf = conf[:i] + "<Keyspaces></Keyspaces>" + conf[j+len("</Keyspaces>"):]
	path := t.TempDir() + "/storage-conf.xml"
	if err := os.WriteFile(path, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	n := testenv.NewNode(t, thriftdBin, path, "-api", api)
	n.Start()
	return n
}

// uniqueName is a keyspace name no earlier run used.
func uniqueName(t *testing.T, prefix string) string {
	t.Helper()
	b := make([]byte, 4)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return prefix + hex.EncodeToString(b)
}

func dial(t *testing.T, addr string) *testenv.Client19 {
	t.Helper()
	c, err := testenv.Dial19(addr, true, 60*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// dropLater drops keyspace ks on the node at addr when the test ends.
func dropLater(t *testing.T, addr, ks string) {
	t.Cleanup(func() {
		c, err := testenv.Dial19(addr, true, 60*time.Second)
		if err != nil {
			t.Logf("dropping %s: %v", ks, err)
			return
		}
		defer c.Close()
		if _, err := c.SystemDropKeyspace(ctx, ks); err != nil {
			t.Logf("dropping %s: %v", ks, err)
		}
	})
}

// render is a call's outcome as text: the value, or the exception's class
// and message. A transport error renders as such; the caller redials.
func render(v any, err error) (string, bool) {
	var (
		ire *cassandra19.InvalidRequestException
		tae thrift.TApplicationException
	)
	switch {
	case err == nil:
		return fmt.Sprintf("%+v", v), true
	case errors.As(err, &ire):
		return "InvalidRequestException(" + ire.Why + ")", true
	case errors.As(err, &tae):
		return fmt.Sprintf("TApplicationException(%d, %s)", tae.TypeId(), tae.Error()), false
	}
	return "transport error: " + err.Error(), false
}

func zlibOf(t *testing.T, s string) []byte {
	t.Helper()
	var b bytes.Buffer
	w := zlib.NewWriter(&b)
	if _, err := w.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
