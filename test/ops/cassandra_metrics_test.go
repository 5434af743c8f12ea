package ops

import (
	"regexp"
	"strconv"
	"testing"

	"github.com/thriftd/thriftd/gen-go/cassandra"
	"github.com/thriftd/thriftd/internal/testenv"
)

// hostRequests sums thriftd_cassandra_host_requests_total over its hosts
// and counts them.
func hostRequests(t *testing.T, body string) (sum float64, hosts int) {
	t.Helper()
	for _, m := range regexp.MustCompile(`(?m)^thriftd_cassandra_host_requests_total\{host="[^"]+"\} (\S+)$`).FindAllStringSubmatch(body, -1) {
		v, err := strconv.ParseFloat(m[1], 64)
		if err != nil {
			t.Fatalf("host requests %q: %v", m[0], err)
		}
		sum += v
		hosts++
	}
	return sum, hosts
}

// TestCassandraMetrics runs thriftd on a real Cassandra node (whatever
// THRIFTD_TEST_BACKEND says), makes known Thrift calls and reads the
// driver's figures back over HTTP: each call moves the request counters
// by the requests it sends to the cluster.
func TestCassandraMetrics(t *testing.T) {
	var store []string
	if testenv.Backend() != testenv.CassandraBackend {
		store = testenv.CassandraStoreFlags(t, conf)
	}
	n := start(t, store...)
	scrape := func() string {
		t.Helper()
		code, body := get(t, n.admin, "/metrics", "")
		if code != 200 {
			t.Fatalf("/metrics: %d\n%s", code, body)
		}
		return body
	}
	series := []string{
		`thriftd_cassandra_requests_total{kind="query",outcome="ok"}`,
		`thriftd_cassandra_requests_total{kind="batch",outcome="ok"}`,
		`thriftd_cassandra_requests_total{kind="query",outcome="unavailable"}`,
		`thriftd_cassandra_requests_total{kind="query",outcome="timeout"}`,
		`thriftd_cassandra_requests_total{kind="query",outcome="other"}`,
		`thriftd_cassandra_requests_total{kind="batch",outcome="other"}`,
		`thriftd_cassandra_request_duration_seconds_count{kind="query"}`,
		`thriftd_cassandra_request_duration_seconds_count{kind="batch"}`,
		`thriftd_cassandra_retries_total{kind="query"}`,
	}
	before := scrape()
	for _, s := range series {
		if sample(before, s) < 0 {
			t.Fatalf("/metrics has no %s before any call:\n%s", s, before)
		}
	}
	if got := sample(before, "thriftd_cassandra_hosts_up"); got != 1 {
		t.Errorf("thriftd_cassandra_hosts_up = %v on a one-node cluster, want 1", got)
	}
	if sample(before, `thriftd_cassandra_requests_total{kind="query",outcome="ok"}`) == 0 {
		t.Error("start-up sent no request to the cluster")
	}
	hostsBefore, hosts := hostRequests(t, before)
	if hosts != 1 {
		t.Errorf("requests counted for %d hosts of a one-node cluster", hosts)
	}

	// Three one-column inserts, two reads (one of an absent column), and
	// one batch_mutate of a row of two columns: five queries and a batch.
	c := n.Client(true)
	knownCalls(t, c)
	var ms []*cassandra.Mutation
	for _, col := range []string{"a", "b"} {
		ms = append(ms, &cassandra.Mutation{ColumnOrSupercolumn: &cassandra.ColumnOrSuperColumn{
			Column: &cassandra.Column{Name: []byte(col), Value: []byte("v"), Timestamp: 1}}})
	}
	if err := c.BatchMutate(ctx, ks, map[string]map[string][]*cassandra.Mutation{"k9": {"Standard1": ms}}, cassandra.ConsistencyLevel_ONE); err != nil {
		t.Fatal(err)
	}
	c.Close()

	after := scrape()
	want := map[string]float64{
		`thriftd_cassandra_requests_total{kind="query",outcome="ok"}`:    5,
		`thriftd_cassandra_requests_total{kind="batch",outcome="ok"}`:    1,
		`thriftd_cassandra_request_duration_seconds_count{kind="query"}`: 5,
		`thriftd_cassandra_request_duration_seconds_count{kind="batch"}`: 1,
	}
	for _, s := range series {
		if got := sample(after, s) - sample(before, s); got != want[s] {
			t.Errorf("%s moved by %v, want %v", s, got, want[s])
		}
	}
	if hostsAfter, _ := hostRequests(t, after); hostsAfter-hostsBefore != 6 {
		t.Errorf("thriftd_cassandra_host_requests_total moved by %v, want 6", hostsAfter-hostsBefore)
	}
	if got := sample(after, `thriftd_thrift_calls_total{method="batch_mutate"}`); got != 1 {
		t.Errorf("batch_mutate calls = %v, want 1", got)
	}
}
