package ops

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/thriftd/thriftd/gen-go/cassandra"
	"github.com/thriftd/thriftd/internal/testenv"
)

// sample returns the value of the series name{labels} in a Prometheus
// text exposition (labels in the order the client library writes them,
// alphabetical), or -1 when absent.
func sample(body, series string) float64 {
	re := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(series) + ` (\S+)$`)
	m := re.FindStringSubmatch(body)
	if m == nil {
		return -1
	}
	v, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		return -1
	}
	return v
}

// knownCalls makes the calls the metrics tests count: three one-column
// inserts (keys k0 to k2, column c), a get of k0's column, and a get of an
// absent column, which raises NotFoundException.
func knownCalls(t *testing.T, c *testenv.Client) {
	t.Helper()
	for i := range 3 {
		insert(t, c, fmt.Sprint("k", i), "c", "v", 1)
	}
	path := &cassandra.ColumnPath{ColumnFamily: "Standard1", Column: []byte("c")}
	if _, err := c.Get(ctx, ks, "k0", path, cassandra.ConsistencyLevel_ONE); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Get(ctx, ks, "absent", path, cassandra.ConsistencyLevel_ONE); err == nil {
		t.Fatal("get of an absent column succeeded")
	}
}

// TestMetrics makes known calls and reads their counts back over HTTP.
func TestMetrics(t *testing.T) {
	n := start(t)
	c := n.Client(true)
	knownCalls(t, c)
	path := &cassandra.ColumnPath{ColumnFamily: "Standard1", Column: []byte("c")}
	if _, err := c.Get(ctx, ks, "", path, cassandra.ConsistencyLevel_ONE); err == nil {
		t.Fatal("get of an empty key succeeded")
	}
	c.Close()

	// A connection refused by the limit needs a node with a limit of 1.
	code, body := get(t, n.admin, "/metrics", "")
	if code != 200 {
		t.Fatalf("/metrics: %d\n%s", code, body)
	}
	for series, want := range map[string]float64{
		`thriftd_thrift_calls_total{method="insert"}`:                                                        3,
		`thriftd_thrift_calls_total{method="get"}`:                                                           3,
		`thriftd_thrift_calls_total{method="batch_mutate"}`:                                                  0,
		`thriftd_thrift_errors_total{exception="NotFoundException",method="get"}`:                            1,
		`thriftd_thrift_errors_total{exception="InvalidRequestException",method="get"}`:                      1,
		`thriftd_thrift_call_duration_seconds_count{method="insert"}`:                                        3,
		`thriftd_thrift_calls_active{method="insert"}`:                                                       0,
		`thriftd_column_family_write_duration_seconds_count{column_family="Standard1",keyspace="Keyspace1"}`: 3,
		// the absent row was read too; the empty key failed validation
		`thriftd_column_family_read_duration_seconds_count{column_family="Standard1",keyspace="Keyspace1"}`: 2,
		`thriftd_server_connections_accepted_total`:                                                         1,
		`thriftd_server_connections_refused_total{reason="limit"}`:                                          0,
	} {
		if got := sample(body, series); got != want {
			t.Errorf("%s = %v, want %v", series, got, want)
		}
	}
	// The closed connection is counted once its goroutine has ended.
	deadline := time.Now().Add(time.Minute)
	for sample(body, `thriftd_server_connections_closed_total{reason="client"}`) != 1 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
		_, body = get(t, n.admin, "/metrics", "")
	}
	if got := sample(body, `thriftd_server_connections_closed_total{reason="client"}`); got != 1 {
		t.Errorf("connections closed by the client = %v, want 1", got)
	}
	if got := sample(body, `thriftd_server_connections_open`); got != 0 {
		t.Errorf("connections open = %v, want 0", got)
	}
	if in, out := sample(body, "thriftd_server_received_bytes_total"), sample(body, "thriftd_server_sent_bytes_total"); in < 100 || out < 50 {
		t.Errorf("bytes received %v, sent %v: too few for 6 calls", in, out)
	}
	if out := n.mustTool(t, "flush"); !strings.HasPrefix(out, "Flushed") {
		t.Errorf("flush: %s", out)
	}
	_, body = get(t, n.admin, "/metrics", "")
	if !regexp.MustCompile(`(?m)^thriftd_leveldb_level_tables\{level="\d"\} [1-9]`).MatchString(body) {
		t.Error("/metrics counts no LevelDB table after a flush")
	}
	for _, series := range []string{`thriftd_leveldb_compactions_total{kind="memtable"}`, `thriftd_leveldb_level_size_bytes{level="0"}`,
		`thriftd_leveldb_write_delays_total`, "go_goroutines", "process_resident_memory_bytes"} {
		if sample(body, series) < 0 {
			t.Errorf("/metrics has no %s", series)
		}
	}
	// The data directory's file system: its size as statfs says, and some
	// room free on it.
	var fs syscall.Statfs_t
	if err := syscall.Statfs(n.Data, &fs); err != nil {
		t.Fatal(err)
	}
	free, size := sample(body, "thriftd_leveldb_disk_free_bytes"), sample(body, "thriftd_leveldb_disk_size_bytes")
	if want := float64(fs.Blocks) * float64(fs.Bsize); size != want || free <= 0 || free > size {
		t.Errorf("disk free %v of size %v, want the data directory's file system (%v bytes)", free, size, want)
	}
	if !strings.Contains(body, "# TYPE thriftd_thrift_call_duration_seconds histogram") {
		t.Error("the call latency is not a histogram")
	}
}

// TestScanRowMetrics reads every row twice by range scans: the first scan
// rebuilds the rows' heads, which the writes left stale, and the second
// answers from them.
func TestScanRowMetrics(t *testing.T) {
	n := start(t)
	c := n.Client(true)
	defer c.Close()
	for i := range 3 {
		insert(t, c, fmt.Sprint("k", i), "c", "v", 1)
	}
	for pass := 0; pass < 2; pass++ {
		if got := len(rows(t, c)); got != 3 {
			t.Fatalf("scan %d read %d rows, want 3", pass, got)
		}
	}
	_, body := get(t, n.admin, "/metrics", "")
	for series, want := range map[string]float64{
		`thriftd_leveldb_scan_rows_total{source="rebuilt"}`: 3,
		`thriftd_leveldb_scan_rows_total{source="head"}`:    3,
		`thriftd_leveldb_scan_rows_total{source="data"}`:    0,
	} {
		if got := sample(body, series); got != want {
			t.Errorf("%s = %v, want %v", series, got, want)
		}
	}
}

// TestConnectionMetrics checks the refused and oversize counters.
func TestConnectionMetrics(t *testing.T) {
	n := start(t, "-max-connections", "1", "-max-message-mb", "1")
	first := n.Client(true)
	if _, err := first.DescribeVersion(ctx); err != nil {
		t.Fatal(err)
	}
	second, err := net.Dial("tcp", n.Addr)
	if err != nil {
		t.Fatal(err)
	}
	second.SetReadDeadline(time.Now().Add(5 * time.Second))
	second.Read(make([]byte, 1)) // closed by the server at once
	second.Close()
	first.Close()
	waitMetric(t, n, "thriftd_server_connections_open", 0)
	oversize, err := net.Dial("tcp", n.Addr)
	if err != nil {
		t.Fatal(err)
	}
	// A framed call to a method, in a frame of 32 MiB.
	oversize.Write([]byte{0x02, 0, 0, 0, 0x80, 0x01, 0x00, 0x01})
	oversize.SetReadDeadline(time.Now().Add(5 * time.Second))
	oversize.Read(make([]byte, 1))
	oversize.Close()
	want := map[string]float64{
		`thriftd_server_connections_refused_total{reason="limit"}`:   1,
		`thriftd_server_connections_closed_total{reason="oversize"}`: 1,
	}
	var body string
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		_, body = get(t, n.admin, "/metrics", "")
		ok := true
		for s, v := range want {
			ok = ok && sample(body, s) == v
		}
		if ok {
			return
		}
	}
	for s, v := range want {
		if got := sample(body, s); got != v {
			t.Errorf("%s = %v, want %v", s, got, v)
		}
	}
}

// TestToken checks that off loopback the commands and profiles need the
// token and /metrics does not, and that thriftd refuses to listen off
// loopback without one.
func TestToken(t *testing.T) {
	refused := start0(t, "-admin", "0.0.0.0:0")
	if err := refused.TryStart(); err == nil || !strings.Contains(refused.Logs(), "-admin-token-file") {
		t.Fatalf("thriftd listened off loopback without a token: err %v\n%s", err, refused.Logs())
	}

	tokenFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokenFile, []byte("s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	n := start(t, "-admin", "0.0.0.0:0", "-admin-token-file", tokenFile)
	_, port, _ := net.SplitHostPort(n.admin)
	addr := "127.0.0.1:" + port
	for _, tc := range []struct {
		path, token string
		want        int
	}{
		{"/metrics", "", 200},
		{"/v1/info", "", 401},
		{"/v1/info", "wrong", 401},
		{"/v1/info", "s3cret", 200},
		{"/debug/pprof/goroutine?debug=1", "", 401},
		{"/debug/pprof/goroutine?debug=1", "s3cret", 200},
	} {
		if code, body := get(t, addr, tc.path, tc.token); code != tc.want {
			t.Errorf("GET %s with token %q: %d, want %d\n%s", tc.path, tc.token, code, tc.want, body)
		}
	}
	n.admin = addr
	if _, errOut, code := n.tool(t, "info"); code != 1 || !strings.Contains(errOut, "bearer token") {
		t.Errorf("thriftd-tool info without --token-file: exit %d, %s", code, errOut)
	}
	if out := n.mustTool(t, "--token-file", tokenFile, "info"); !strings.Contains(out, "Generation No") {
		t.Errorf("thriftd-tool info with the token:\n%s", out)
	}
}

// TestAdminPortTaken checks that a taken admin port refuses start-up.
func TestAdminPortTaken(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	n := start0(t, "-admin", l.Addr().String())
	if err := n.TryStart(); err == nil || !strings.Contains(n.Logs(), "cannot listen for the admin endpoint on "+l.Addr().String()) {
		t.Fatalf("thriftd started with its admin port taken: err %v\n%s", err, n.Logs())
	}
	off := start0(t, "-admin", "off")
	off.Start()
	if recs := off.Records(map[string]string{"msg": "admin endpoint is serving"}); len(recs) != 0 {
		t.Errorf("-admin off still served the endpoint: %v", recs)
	}
}

// waitMetric waits up to 5 s for series to read want.
func waitMetric(t *testing.T, n *node, series string, want float64) {
	t.Helper()
	var got float64
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		_, body := get(t, n.admin, "/metrics", "")
		if got = sample(body, series); got == want {
			return
		}
	}
	t.Fatalf("%s = %v, want %v", series, got, want)
}
