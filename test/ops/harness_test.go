// Package ops tests the admin endpoint and thriftd-tool against the real
// thriftd binary: metrics read over HTTP, the token off loopback, every
// thriftd-tool command through its binary, and a snapshot restored by the
// documented procedure.
package ops

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/thriftd/thriftd/gen-go/cassandra"
	"github.com/thriftd/thriftd/internal/testenv"
)

var thriftdBin, toolBin string

func TestMain(m *testing.M) {
	path, cleanup, err := testenv.Binary("thriftd-tool", true)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer cleanup()
	toolBin = path
	testenv.Main(m, true, &thriftdBin)
}

var ctx = context.Background()

const ks = "Keyspace1"

var conf = testenv.Fixture("storage-conf-0.6-default.xml")

// node runs thriftd and finds its admin endpoint in its log.
type node struct {
	*testenv.Node
	admin string
}

func start(t *testing.T, extra ...string) *node {
	t.Helper()
	n := start0(t, extra...)
	n.start(t)
	return n
}

// start0 prepares a node without starting it.
func start0(t *testing.T, extra ...string) *node {
	return &node{Node: testenv.NewNode(t, thriftdBin, conf, extra...)}
}

func (n *node) start(t *testing.T) {
	t.Helper()
	n.Start()
	n.admin = testenv.LogValue(n.WaitLog(t, 5*time.Second, map[string]string{"msg": "admin endpoint is serving"})["addr"])
}

// tool runs the thriftd-tool binary against n and returns its stdout,
// stderr and exit code.
func (n *node) tool(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(toolBin, append([]string{"--admin", n.admin}, args...)...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(errOut.String(), "goroutine ") || strings.Contains(errOut.String(), "panic") {
		t.Fatalf("thriftd-tool %v printed a stack trace:\n%s", args, errOut.String())
	}
	return out.String(), errOut.String(), code
}

// mustTool runs thriftd-tool and fails the test unless it succeeds.
func (n *node) mustTool(t *testing.T, args ...string) string {
	t.Helper()
	out, errOut, code := n.tool(t, args...)
	if code != 0 {
		t.Fatalf("thriftd-tool %v: exit %d\n%s", args, code, errOut)
	}
	return out
}

// get fetches path from the admin endpoint with an optional bearer token.
func get(t *testing.T, addr, path, token string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, "http://"+addr+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

func insert(t *testing.T, c *testenv.Client, key, col, value string, ts int64) {
	t.Helper()
	err := c.Insert(ctx, ks, key, &cassandra.ColumnPath{ColumnFamily: "Standard1", Column: []byte(col)}, []byte(value), ts, cassandra.ConsistencyLevel_ONE)
	if err != nil {
		t.Fatalf("insert %s/%s: %v", key, col, err)
	}
}

func remove(t *testing.T, c *testenv.Client, key string, ts int64) {
	t.Helper()
	if err := c.Remove(ctx, ks, key, &cassandra.ColumnPath{ColumnFamily: "Standard1"}, ts, cassandra.ConsistencyLevel_ONE); err != nil {
		t.Fatalf("remove %s: %v", key, err)
	}
}

// rows reads every row of Standard1 as key -> column -> value.
func rows(t *testing.T, c *testenv.Client) map[string]map[string]string {
	t.Helper()
	start := ""
	pred := &cassandra.SlicePredicate{SliceRange: &cassandra.SliceRange{Start: []byte{}, Finish: []byte{}, Count: 1000}}
	out := map[string]map[string]string{}
	r, err := c.GetRangeSlices(ctx, ks, &cassandra.ColumnParent{ColumnFamily: "Standard1"}, pred,
		&cassandra.KeyRange{StartKey: &start, EndKey: &start, Count: 100000}, cassandra.ConsistencyLevel_ONE)
	if err != nil {
		t.Fatal(err)
	}
	for _, ksl := range r {
		if len(ksl.Columns) == 0 {
			continue // a deleted row's ghost
		}
		cols := map[string]string{}
		for _, c := range ksl.Columns {
			cols[string(c.Column.Name)] = string(c.Column.Value)
		}
		out[ksl.Key] = cols
	}
	return out
}

// testenvDial connects to a Thrift port, to see whether it accepts.
func testenvDial(addr string) (*testenv.Client, error) {
	c, err := testenv.Dial(addr, true, 5*time.Second)
	if err != nil {
		return nil, err
	}
	return c, c.Close()
}
