// Package e2e19 runs the real thriftd binary and talks to it over TCP
// with the Go client generated from cassandra19.thrift, beside the 0.6
// client on the same port and the same connections.
package e2e19

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"net/http"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/apache/thrift/lib/go/thrift"

	"github.com/thriftd/thriftd/gen-go/cassandra"
	"github.com/thriftd/thriftd/gen-go/cassandra19"
	"github.com/thriftd/thriftd/internal/testenv"
)

var thriftdBin string

func TestMain(m *testing.M) {
	testenv.Main(m, true, &thriftdBin)
}

var ctx = context.Background()

// start runs thriftd on the repository's 0.6 test configuration with the
// api setting a user gets by default.
func start(t *testing.T, extra ...string) *testenv.Node {
	t.Helper()
	n := testenv.NewNode(t, thriftdBin, testenv.Fixture("storage-conf-0.6-test.xml"), append([]string{"-api", "auto"}, extra...)...)
	n.Start()
	return n
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func ts() *int64 {
	v := time.Now().UnixMicro()
	return &v
}

// A fresh connection's ambiguous call follows its transport; each API's
// own calls work on any connection, and a connection's later ambiguous
// calls follow the API it used last.
func TestBothAPIsOnOnePort(t *testing.T) {
	n := start(t)

	unframed := n.Client(false)
	v, err := unframed.DescribeVersion(ctx)
	must(t, err)
	if v != cassandra.VERSION {
		t.Fatalf("unframed fresh connection: describe_version %q, want the 0.6 API's %q", v, cassandra.VERSION)
	}

	framed := n.Client19(true)
	v, err = framed.DescribeVersion(ctx)
	must(t, err)
	if v != cassandra19.VERSION {
		t.Fatalf("framed fresh connection: describe_version %q, want %q", v, cassandra19.VERSION)
	}
	kss, err := framed.DescribeKeyspaces(ctx)
	must(t, err)
	var names []string
	for _, ks := range kss {
		names = append(names, ks.Name)
	}
	sort.Strings(names)
	if strings.Join(names, ",") != "Keyspace1,Keyspace2,Keyspace3,Keyspace4,system" {
		t.Fatalf("describe_keyspaces (19.x) = %v", names)
	}

	// A 19.x write is a 0.6 read on the same connection, and the reverse.
	must(t, framed.SetKeyspace(ctx, "Keyspace1"))
	must(t, framed.Insert(ctx, []byte("k19"), &cassandra19.ColumnParent{ColumnFamily: "Standard1"},
		&cassandra19.Column{Name: []byte("c"), Value: []byte("from 19.x"), Timestamp: ts()}, cassandra19.ConsistencyLevel_ONE))
	got, err := framed.V06.Get(ctx, "Keyspace1", "k19", &cassandra.ColumnPath{ColumnFamily: "Standard1", Column: []byte("c")}, cassandra.ConsistencyLevel_ONE)
	must(t, err)
	if string(got.Column.Value) != "from 19.x" {
		t.Fatalf("0.6 get of a 19.x write: %q", got.Column.Value)
	}
	// The connection showed 0.6 last: its describe_keyspaces is 0.6's.
	names06, err := framed.V06.DescribeKeyspaces(ctx)
	must(t, err)
	if len(names06) != 5 {
		t.Fatalf("describe_keyspaces (0.6) after a 0.6 call = %v", names06)
	}
	must(t, framed.V06.Insert(ctx, "Keyspace1", "k06", &cassandra.ColumnPath{ColumnFamily: "Standard1", Column: []byte("c")}, []byte("from 0.6"), *ts(), cassandra.ConsistencyLevel_ONE))
	cols, err := framed.GetSlice(ctx, []byte("k06"), &cassandra19.ColumnParent{ColumnFamily: "Standard1"},
		&cassandra19.SlicePredicate{SliceRange: &cassandra19.SliceRange{Count: 10}}, cassandra19.ConsistencyLevel_ONE)
	must(t, err)
	if len(cols) != 1 || string(cols[0].Column.Value) != "from 0.6" {
		t.Fatalf("19.x get_slice of a 0.6 write: %v", cols)
	}
	// And back to 19.x.
	kss, err = framed.DescribeKeyspaces(ctx)
	must(t, err)
	if len(kss) != 5 {
		t.Fatalf("describe_keyspaces (19.x) after a 19.x call = %d keyspaces", len(kss))
	}
}

// The api setting fixes the API of a fresh connection's ambiguous calls.
func TestAPISetting(t *testing.T) {
	n := start(t, "-api", "0.6")
	v, err := n.Client19(true).V06.DescribeVersion(ctx)
	must(t, err)
	if v != cassandra.VERSION {
		t.Fatalf("-api 0.6, framed: describe_version %q", v)
	}
	n = start(t, "-api", "19.x")
	v, err = n.Client(false).DescribeVersion(ctx)
	must(t, err)
	if v != cassandra19.VERSION {
		t.Fatalf("-api 19.x, unframed: describe_version %q", v)
	}
}

func TestReadsAndWrites(t *testing.T) {
	n := start(t)
	c := n.Client19(true)
	parent := &cassandra19.ColumnParent{ColumnFamily: "Standard1"}
	all := &cassandra19.SlicePredicate{SliceRange: &cassandra19.SliceRange{Count: 100}}

	var ire *cassandra19.InvalidRequestException
	_, err := c.GetSlice(ctx, []byte("k"), parent, all, cassandra19.ConsistencyLevel_ONE)
	if !errors.As(err, &ire) || ire.Why != "No keyspace has been specified. USE a keyspace, or explicitly specify keyspace.tablename" {
		t.Fatalf("a read before set_keyspace: %v", err)
	}
	if err := c.SetKeyspace(ctx, "NoSuchKeyspace"); !errors.As(err, &ire) || ire.Why != "Keyspace 'NoSuchKeyspace' does not exist" {
		t.Fatalf("set_keyspace of an unknown keyspace: %v", err)
	}
	must(t, c.SetKeyspace(ctx, "Keyspace1"))

	muts := map[string]map[string][]*cassandra19.Mutation{}
	for _, key := range []string{"a", "b", "c"} {
		var ms []*cassandra19.Mutation
		for _, col := range []string{"x", "y", "z"} {
			ms = append(ms, &cassandra19.Mutation{ColumnOrSupercolumn: &cassandra19.ColumnOrSuperColumn{
				Column: &cassandra19.Column{Name: []byte(col), Value: []byte(key + col), Timestamp: ts()}}})
		}
		muts[key] = map[string][]*cassandra19.Mutation{"Standard1": ms}
	}
	must(t, c.BatchMutate(ctx, muts, cassandra19.ConsistencyLevel_ONE))

	m, err := c.MultigetSlice(ctx, [][]byte{[]byte("a"), []byte("c"), []byte("nope")}, parent,
		&cassandra19.SlicePredicate{SliceRange: &cassandra19.SliceRange{Start: []byte("z"), Finish: []byte("y"), Reversed: true, Count: 5}}, cassandra19.ConsistencyLevel_ONE)
	must(t, err)
	if len(m) != 3 || len(m["a"]) != 2 || string(m["a"][0].Column.Name) != "z" || len(m["nope"]) != 0 {
		t.Fatalf("multiget_slice = %v", m)
	}
	counts, err := c.MultigetCount(ctx, [][]byte{[]byte("a"), []byte("b")}, parent, all, cassandra19.ConsistencyLevel_ONE)
	must(t, err)
	if counts["a"] != 3 || counts["b"] != 3 {
		t.Fatalf("multiget_count = %v", counts)
	}

	// A row deletion leaves a range ghost.
	must(t, c.Remove(ctx, []byte("b"), &cassandra19.ColumnPath{ColumnFamily: "Standard1"}, *ts(), cassandra19.ConsistencyLevel_ONE))
	start, end := []byte(""), []byte("")
	rows, err := c.GetRangeSlices(ctx, parent, all, &cassandra19.KeyRange{StartKey: start, EndKey: end, Count: 10}, cassandra19.ConsistencyLevel_ONE)
	must(t, err)
	var keys []string
	for _, r := range rows {
		keys = append(keys, string(r.Key)+":"+string(rune('0'+len(r.Columns))))
	}
	if strings.Join(keys, ",") != "a:3,b:0,c:3" {
		t.Fatalf("get_range_slices after deleting b = %v", keys)
	}

	// get_paged_slice: from column y of the first row, 5 columns in all.
	paged, err := c.GetPagedSlice(ctx, "Standard1", &cassandra19.KeyRange{StartKey: []byte("a"), EndKey: end, Count: 5}, []byte("y"), cassandra19.ConsistencyLevel_ONE)
	must(t, err)
	var got []string
	for _, r := range paged {
		for _, col := range r.Columns {
			got = append(got, string(r.Key)+string(col.Column.Name))
		}
	}
	if strings.Join(got, ",") != "ay,az,cx,cy,cz" {
		t.Fatalf("get_paged_slice = %v", got)
	}

	for _, bad := range []struct {
		why string
		err error
	}{
		{"Key may not be empty", c.Insert(ctx, nil, parent, &cassandra19.Column{Name: []byte("x"), Value: []byte("v"), Timestamp: ts()}, cassandra19.ConsistencyLevel_ONE)},
		{"Column timestamp is required", c.Insert(ctx, []byte("k"), parent, &cassandra19.Column{Name: []byte("x"), Value: []byte("v")}, cassandra19.ConsistencyLevel_ONE)},
		{"ttl must be positive", c.Insert(ctx, []byte("k"), parent, &cassandra19.Column{Name: []byte("x"), Value: []byte("v"), Timestamp: ts(), TTL: thrift.Int32Ptr(0)}, cassandra19.ConsistencyLevel_ONE)},
		{"unconfigured columnfamily Nope", c.Insert(ctx, []byte("k"), &cassandra19.ColumnParent{ColumnFamily: "Nope"}, &cassandra19.Column{Name: []byte("x"), Value: []byte("v"), Timestamp: ts()}, cassandra19.ConsistencyLevel_ONE)},
	} {
		if !errors.As(bad.err, &ire) || ire.Why != bad.why {
			t.Errorf("want %q, got %v", bad.why, bad.err)
		}
	}
}

// A method neither API has is answered with UNKNOWN_METHOD on a framed
// connection too, and the connection carries on; the empty frame that
// Hector and Astyanax send before closing is passed over.
func TestUnknownMethodAndGoodbyeFrame(t *testing.T) {
	n := start(t)
	nc, err := net.Dial("tcp", n.Addr)
	must(t, err)
	defer nc.Close()
	nc.SetDeadline(time.Now().Add(10 * time.Second))
	call := func(name string, args thrift.TStruct) (thrift.TMessageType, []byte) {
		buf := thrift.NewTMemoryBuffer()
		p := thrift.NewTBinaryProtocolConf(buf, nil)
		p.WriteMessageBegin(ctx, name, thrift.CALL, 1)
		args.Write(ctx, p)
		p.WriteMessageEnd(ctx)
		msg := append(binary.BigEndian.AppendUint32(nil, uint32(buf.Len())), buf.Bytes()...)
		_, err := nc.Write(msg)
		must(t, err)
		var hdr [4]byte
		_, err = io.ReadFull(nc, hdr[:])
		must(t, err)
		body := make([]byte, binary.BigEndian.Uint32(hdr[:]))
		_, err = io.ReadFull(nc, body)
		must(t, err)
		rp := thrift.NewTBinaryProtocolConf(thrift.NewStreamTransportR(bytes.NewReader(body)), nil)
		_, typ, _, err := rp.ReadMessageBegin(ctx)
		must(t, err)
		return typ, body
	}
	if typ, body := call("no_such_method", &cassandra19.CassandraDescribeVersionArgs{}); typ != thrift.EXCEPTION || !bytes.Contains(body, []byte("Invalid method name: 'no_such_method'")) {
		t.Fatalf("unknown method: type %d, %q", typ, body)
	}
	_, err = nc.Write([]byte{0, 0, 0, 0})
	must(t, err)
	if typ, body := call("describe_version", &cassandra19.CassandraDescribeVersionArgs{}); typ != thrift.REPLY || !bytes.Contains(body, []byte(cassandra19.VERSION)) {
		t.Fatalf("after an unknown method and an empty frame: type %d, %q", typ, body)
	}
	nc.Write([]byte{0, 0, 0, 0})
	nc.Close()
	time.Sleep(200 * time.Millisecond)
	for _, line := range strings.Split(n.Logs(), "\n") {
		if strings.Contains(line, `"level":"WARN"`) || strings.Contains(line, `"level":"ERROR"`) {
			t.Errorf("log: %s", line)
		}
	}
}

// The 19.x calls are counted in the same figures as the 0.6 ones, read
// over HTTP from the admin endpoint.
func TestMetrics(t *testing.T) {
	n := start(t)
	admin := testenv.LogValue(n.WaitLog(t, 5*time.Second, map[string]string{"msg": "admin endpoint is serving"})["addr"])
	c := n.Client19(true)
	must(t, c.SetKeyspace(ctx, "Keyspace1"))
	must(t, c.Insert(ctx, []byte("k"), &cassandra19.ColumnParent{ColumnFamily: "Standard1"},
		&cassandra19.Column{Name: []byte("c"), Value: []byte("v"), Timestamp: ts()}, cassandra19.ConsistencyLevel_ONE))
	c.Insert(ctx, nil, &cassandra19.ColumnParent{ColumnFamily: "Standard1"},
		&cassandra19.Column{Name: []byte("c"), Value: []byte("v"), Timestamp: ts()}, cassandra19.ConsistencyLevel_ONE)
	want := []string{
		`thriftd_thrift_calls_total{method="set_keyspace"} 1`,
		`thriftd_thrift_calls_total{method="insert"} 2`,
		`thriftd_thrift_errors_total{exception="InvalidRequestException",method="insert"} 1`,
		`thriftd_column_family_write_duration_seconds_count{column_family="Standard1",keyspace="Keyspace1"} 1`,
		`thriftd_thrift_calls_total{method="system_add_keyspace"} 0`,
	}
	// A call is counted once its reply is sent, so the client may read
	// the reply a moment before the count moves: scrape until every
	// figure is there, for a minute at most (a busy machine may need more than a moment).
	var missing []string
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
		resp, err := http.Get("http://" + admin + "/metrics")
		must(t, err)
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		must(t, err)
		missing = missing[:0]
		for _, w := range want {
			if !strings.Contains(string(body), w) {
				missing = append(missing, w)
			}
		}
		if len(missing) == 0 || time.Now().After(deadline) {
			break
		}
	}
	for _, w := range missing {
		t.Errorf("/metrics lacks %s", w)
	}
}
