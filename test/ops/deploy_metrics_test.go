package ops

import (
	"encoding/json"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/thriftd/thriftd/internal/testenv"
)

// metricName is a thriftd metric in a PromQL expression.
var metricName = regexp.MustCompile(`\bthriftd_[a-z0-9_]+`)

// deployMetrics reads the metric names the Grafana dashboard's panels and
// the Prometheus alert rules name, each with where it is named.
func deployMetrics(t *testing.T) map[string][]string {
	t.Helper()
	root := testenv.RepoRoot()
	named := map[string][]string{}
	add := func(where, expr string) {
		for _, m := range metricName.FindAllString(expr, -1) {
			named[m] = append(named[m], where)
		}
	}
	b, err := os.ReadFile(filepath.Join(root, "deploy", "grafana", "thriftd.json"))
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		Panels []struct {
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	if err := json.Unmarshal(b, &dash); err != nil {
		t.Fatalf("deploy/grafana/thriftd.json: %v", err)
	}
	exprs := 0
	for _, p := range dash.Panels {
		for _, tg := range p.Targets {
			add("panel "+p.Title, tg.Expr)
			exprs++
		}
	}
	if exprs < 20 {
		t.Fatalf("deploy/grafana/thriftd.json: %d queries, want the dashboard's panels", exprs)
	}
	rules, err := os.ReadFile(filepath.Join(root, "deploy", "prometheus", "alerts.yml"))
	if err != nil {
		t.Fatal(err)
	}
	// Each rule's expr, as one string up to the rule's next key.
	rule := regexp.MustCompile(`(?ms)- alert: (\S+)\n\s+expr: (.*?)\n\s+for:`)
	found := rule.FindAllStringSubmatch(string(rules), -1)
	if len(found) < 8 {
		t.Fatalf("deploy/prometheus/alerts.yml: %d rules found, want its alerts", len(found))
	}
	for _, r := range found {
		add("alert "+r[1], r[2])
	}
	return named
}

// exported lists the metric families a scrape holds, with a histogram's
// _bucket, _count and _sum series.
func exported(body string) map[string]bool {
	out := map[string]bool{}
	for _, line := range strings.Split(body, "\n") {
		f := strings.Fields(line)
		if len(f) == 4 && f[0] == "#" && f[1] == "TYPE" {
			out[f[2]] = true
			if f[3] == "histogram" || f[3] == "summary" {
				for _, s := range []string{"_bucket", "_count", "_sum"} {
					out[f[2]+s] = true
				}
			}
		}
	}
	return out
}

// exercise makes thriftd create the series that exist only once something
// happened: an error (NotFoundException), a closed connection, one refused
// at -max-connections, and on LevelDB a table written (a flush), whose
// level the per-level figures report.
func exercise(t *testing.T, n *node, flush bool) {
	t.Helper()
	c := n.Client(true)
	knownCalls(t, c)
	if flush {
		n.mustTool(t, "flush")
	}
	// -max-connections 1: a second connection is refused as it is accepted.
	conn, err := net.Dial("tcp", n.Addr)
	if err != nil {
		t.Fatal(err)
	}
	// Read returns once thriftd closes it; the deadline only keeps a
	// thriftd that wrongly accepted it from hanging the test.
	conn.SetReadDeadline(time.Now().Add(2 * time.Minute))
	if _, err := conn.Read(make([]byte, 1)); !errors.Is(err, io.EOF) && !errors.Is(err, syscall.ECONNRESET) {
		t.Fatalf("a connection over -max-connections 1: %v, want it closed", err)
	}
	conn.Close()
	c.Close()
}

// TestDeployMetricsExported checks that every metric a panel of
// deploy/grafana/thriftd.json or a rule of deploy/prometheus/alerts.yml
// names is one thriftd exports, scraping a running thriftd on each store:
// the LevelDB store, and the Cassandra store on the test node of the
// RandomPartitioner. A name no store exports fails the test.
func TestDeployMetricsExported(t *testing.T) {
	named := deployMetrics(t)
	scrape := func(n *node) map[string]bool {
		code, body := get(t, n.admin, "/metrics", "")
		if code != 200 {
			t.Fatalf("/metrics: %d\n%s", code, body)
		}
		return exported(body)
	}

	ldb := start(t, "-max-connections", "1")
	if testenv.Backend() == testenv.CassandraBackend {
		// The harness stores in Cassandra: the LevelDB store is asked for
		// by running without its flags.
		ldb = &node{Node: testenv.NewNodeArgs(t, thriftdBin, "-config", conf, "-listen", "127.0.0.1:0",
			"-data", filepath.Join(t.TempDir(), "data"), "-log-format", "json", "-admin", "127.0.0.1:0", "-api", "0.6", "-max-connections", "1")}
		ldb.start(t)
	}
	exercise(t, ldb, true)
	onLevelDB := scrape(ldb)

	var store []string
	if testenv.Backend() != testenv.CassandraBackend {
		store = testenv.CassandraStoreFlags(t, conf)
	}
	cql := start(t, append(store, "-max-connections", "1")...)
	exercise(t, cql, false)
	onCassandra := scrape(cql)

	var missing []string
	for name, where := range named {
		switch {
		case strings.HasPrefix(name, "thriftd_leveldb_"):
			if !onLevelDB[name] {
				missing = append(missing, name+" (LevelDB store), named by "+strings.Join(where, ", "))
			}
		case strings.HasPrefix(name, "thriftd_cassandra_"):
			if !onCassandra[name] {
				missing = append(missing, name+" (Cassandra store), named by "+strings.Join(where, ", "))
			}
		default:
			if !onLevelDB[name] || !onCassandra[name] {
				missing = append(missing, name+" (both stores), named by "+strings.Join(where, ", "))
			}
		}
	}
	sort.Strings(missing)
	for _, m := range missing {
		t.Errorf("not exported: %s", m)
	}
	t.Logf("%d metric names of the dashboard and alert rules, each exported", len(named)-len(missing))
}
