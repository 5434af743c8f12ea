package cqlstore

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/thriftd/thriftd/dht"
	"github.com/thriftd/thriftd/engine"
	"github.com/thriftd/thriftd/engine/storetest"
)

// figures gathers c through a pedantic registry, which also checks that
// Describe and Collect agree, as series (name{label="value",...}, labels
// in alphabetical order) to value; a histogram gives series_count.
func figures(t *testing.T, c prometheus.Collector) map[string]float64 {
	t.Helper()
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(c)
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, f := range families {
		for _, m := range f.GetMetric() {
			var labels []string
			for _, l := range m.GetLabel() {
				labels = append(labels, fmt.Sprintf("%s=%q", l.GetName(), l.GetValue()))
			}
			series := f.GetName()
			if len(labels) > 0 {
				series += "{" + strings.Join(labels, ",") + "}"
			}
			switch {
			case m.Counter != nil:
				out[series] = m.Counter.GetValue()
			case m.Gauge != nil:
				out[series] = m.Gauge.GetValue()
			case m.Histogram != nil:
				name, rest, _ := strings.Cut(series, "{")
				if rest != "" {
					rest = "{" + rest
				}
				out[name+"_count"+rest] = float64(m.Histogram.GetSampleCount())
			}
		}
	}
	return out
}

// delta is after minus before for every series of either, absent series
// counting 0, leaving out the series that did not move.
func delta(before, after map[string]float64) map[string]float64 {
	out := map[string]float64{}
	for s, v := range after {
		if d := v - before[s]; d != 0 {
			out[s] = d
		}
	}
	for s, v := range before {
		if _, ok := after[s]; !ok {
			out[s] = -v
		}
	}
	return out
}

func render(m map[string]float64) string {
	var lines []string
	for s, v := range m {
		lines = append(lines, fmt.Sprintf("%s %v", s, v))
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// Known calls on a real node move the request counters by exactly the
// requests they send: a one-column write is one query, a row of two
// columns one batch, a read one query, and QUORUM on a keyspace with more
// replicas than nodes one query answered unavailable (not retried).
func TestRequestMetrics(t *testing.T) {
	s := storetest.TestSchema(t, "RandomPartitioner")
	s.Keyspaces[storetest.Keyspace].ReplicationFactor = 3
	st, _ := openFresh(t, s, 864000)
	opened := figures(t, st)
	if opened[`thriftd_cassandra_requests_total{kind="query",outcome="ok"}`] == 0 {
		t.Errorf("opening the store counted no request:\n%s", render(opened))
	}
	if opened["thriftd_cassandra_hosts"] != 1 || opened["thriftd_cassandra_hosts_up"] != 1 {
		t.Errorf("hosts %v, up %v; want 1 and 1", opened["thriftd_cassandra_hosts"], opened["thriftd_cassandra_hosts_up"])
	}
	var host string
	for series, v := range opened {
		if a, ok := strings.CutPrefix(series, `thriftd_cassandra_connection_attempts_total{host="`); ok && v > 0 {
			host = strings.TrimSuffix(a, `"}`)
		}
		if strings.HasPrefix(series, "thriftd_cassandra_connection_failures_total") && v != 0 {
			t.Errorf("%s = %v on a node that answers", series, v)
		}
	}
	if host == "" {
		t.Fatalf("no connection attempt counted:\n%s", render(opened))
	}

	storetest.Apply(t, st, storetest.Put("Standard1", "k", "a", "v", 1))
	two := storetest.Put("Standard1", "k", "b", "v", 1)
	two.Mutations = append(two.Mutations, storetest.Put("Standard1", "k", "c", "v", 1).Mutations...)
	storetest.Apply(t, st, two)
	storetest.Expect(t, storetest.Get(t, st, "Standard1", "k", nil, storetest.All(10)), "a=v@1 b=v@1 c=v@1")
	quorum := engine.WithConsistency(ctx, engine.Quorum)
	if err := st.Apply(quorum, storetest.Keyspace, []engine.RowMutation{storetest.Put("Standard1", "k", "a", "v", 2)}); !errors.Is(err, engine.ErrUnavailable) {
		t.Fatalf("QUORUM write: %v", err)
	}
	if _, err := st.Get(quorum, storetest.Keyspace, "k", engine.Query{ColumnFamily: "Standard1", Predicate: storetest.All(1)}); !errors.Is(err, engine.ErrUnavailable) {
		t.Fatalf("QUORUM read: %v", err)
	}

	got := delta(opened, figures(t, st))
	want := map[string]float64{
		`thriftd_cassandra_requests_total{kind="query",outcome="ok"}`:          2,
		`thriftd_cassandra_requests_total{kind="query",outcome="unavailable"}`: 2,
		`thriftd_cassandra_requests_total{kind="batch",outcome="ok"}`:          1,
		`thriftd_cassandra_statements_total{kind="query"}`:                     4,
		`thriftd_cassandra_statements_total{kind="batch"}`:                     2,
		`thriftd_cassandra_request_duration_seconds_count{kind="query"}`:       4,
		`thriftd_cassandra_request_duration_seconds_count{kind="batch"}`:       1,
		`thriftd_cassandra_host_requests_total{host="` + host + `"}`:           5,
	}
	// The driver may still be filling its connection pool after Open.
	for s := range got {
		if strings.HasPrefix(s, "thriftd_cassandra_connection_attempts_total") {
			delete(got, s)
		}
	}
	if g, w := render(got), render(want); g != w {
		t.Errorf("figures moved by\n%s\nwant\n%s", g, w)
	}

	st.Close()
	closed := figures(t, st)
	if _, ok := closed["thriftd_cassandra_hosts_up"]; ok {
		t.Error("a closed store reports hosts")
	}
	if closed[`thriftd_cassandra_requests_total{kind="batch",outcome="ok"}`] != 1 {
		t.Errorf("a closed store's counters are gone:\n%s", render(closed))
	}
}

// A cluster that refuses connections counts each attempt as failed,
// under the contact point's address.
func TestConnectionFailureMetrics(t *testing.T) {
	m := newMetrics()
	_, err := Cluster{Hosts: []string{"127.0.0.1:1"}, Timeout: 2 * time.Second}.connect(m)
	if err == nil {
		t.Fatal("connected to 127.0.0.1:1")
	}
	f := delta(nil, figures(t, &Store{metrics: m, closed: true}))
	attempts, failures := f[`thriftd_cassandra_connection_attempts_total{host="127.0.0.1:1"}`], f[`thriftd_cassandra_connection_failures_total{host="127.0.0.1:1"}`]
	if attempts < 1 || failures != attempts {
		t.Errorf("attempts %v, failures %v; want as many failures as attempts, at least 1:\n%s", attempts, failures, render(f))
	}
	if n := len(f); n != 2 {
		t.Errorf("%d series moved, want the 2 of the failed connection:\n%s", n, render(f))
	}
}

// A request's error is classed as clusterError reports it to the client.
func TestRequestOutcomes(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{nil, "ok"},
		{&gocql.RequestErrUnavailable{}, "unavailable"},
		{gocql.ErrNoConnections, "unavailable"},
		{&gocql.RequestErrWriteTimeout{}, "timeout"},
		{&gocql.RequestErrReadTimeout{}, "timeout"},
		{gocql.ErrConnectionClosed, "timeout"},
		{context.DeadlineExceeded, "timeout"},
		{fmt.Errorf("wrapped: %w", context.Canceled), "other"},
		{&gocql.RequestErrSyntax{}, "other"},
		{&gocql.RequestErrInvalid{}, "other"},
	} {
		if got := outcomeNames[outcomeOf(tc.err)]; got != tc.want {
			t.Errorf("%T %v: %s, want %s", tc.err, tc.err, got, tc.want)
		}
	}
}

// Every attempt after the first is a retry; a request without a host
// (none reported) is still counted.
func TestObserveCountsRetries(t *testing.T) {
	m := newMetrics()
	now := time.Now()
	m.ObserveQuery(ctx, gocql.ObservedQuery{Start: now, End: now.Add(time.Millisecond), Err: gocql.ErrConnectionClosed})
	m.ObserveQuery(ctx, gocql.ObservedQuery{Start: now, End: now.Add(time.Millisecond), Attempt: 1})
	m.ObserveBatch(ctx, gocql.ObservedBatch{Start: now, End: now, Err: &gocql.RequestErrWriteTimeout{}})
	f := delta(nil, figures(t, &Store{metrics: m, closed: true}))
	want := map[string]float64{
		`thriftd_cassandra_requests_total{kind="query",outcome="timeout"}`: 1,
		`thriftd_cassandra_requests_total{kind="query",outcome="ok"}`:      1,
		`thriftd_cassandra_requests_total{kind="batch",outcome="timeout"}`: 1,
		`thriftd_cassandra_retries_total{kind="query"}`:                    1,
		`thriftd_cassandra_request_duration_seconds_count{kind="query"}`:   2,
		`thriftd_cassandra_request_duration_seconds_count{kind="batch"}`:   1,
		// Each attempt sends its statement, the failed one too; the
		// batch here holds none.
		`thriftd_cassandra_statements_total{kind="query"}`: 2,
	}
	if g, w := render(f), render(want); g != w {
		t.Errorf("figures\n%s\nwant\n%s", g, w)
	}
}

// The requests and CQL statements each store call of the benchmark's
// 19.x shapes sends: a regression that adds a read before a write, a
// statement to a batch or a page to a scan shows here.
func TestStatementsPerCall(t *testing.T) {
	s := storetest.TestSchema(t, "Murmur3Partitioner")
	st, _ := openFresh(t, s, 864000)
	const rows = 150
	var load []engine.RowMutation
	for i := range rows {
		r := engine.RowMutation{Key: fmt.Sprintf("row%03d", i)}
		for c := range 100 {
			r.Mutations = append(r.Mutations, engine.Mutation{ColumnFamily: "Standard1", Name: []byte(fmt.Sprintf("c%02d", c)), Value: []byte("v"), Timestamp: 1})
		}
		load = append(load, r)
	}
	storetest.Apply(t, st, load...)

	count := func(t *testing.T, call func() error) (requests, statements float64) {
		t.Helper()
		before := figures(t, st)
		if err := call(); err != nil {
			t.Fatal(err)
		}
		d := delta(before, figures(t, st))
		for k := range kinds {
			requests += d[`thriftd_cassandra_requests_total{kind="`+kindNames[k]+`",outcome="ok"}`]
			statements += d[`thriftd_cassandra_statements_total{kind="`+kindNames[k]+`"}`]
		}
		return requests, statements
	}
	slice := engine.Query{ColumnFamily: "Standard1", Predicate: storetest.All(10)}
	keys := make([]string, 10)
	for i := range keys {
		keys[i] = fmt.Sprintf("row%03d", 7*i)
	}
	for _, c := range []struct {
		name                 string
		call                 func() error
		requests, statements float64
	}{
		{"insert of one column", func() error {
			return st.Apply(ctx, storetest.Keyspace, []engine.RowMutation{storetest.Put("Standard2", "w", "a", "v", 2)})
		}, 1, 1},
		{"batch_mutate of one row of 100 columns", func() error { return st.Apply(ctx, storetest.Keyspace, load[:1]) }, 1, 100},
		{"get_slice of 10 columns", func() error {
			r, err := st.Get(ctx, storetest.Keyspace, "row001", slice)
			if err == nil && len(r.Columns) != 10 {
				err = fmt.Errorf("get_slice read %d columns", len(r.Columns))
			}
			return err
		}, 1, 1},
		// One statement for the 10 rows (key IN ?, PER PARTITION LIMIT).
		{"multiget_slice of 10 rows", func() error {
			r, err := st.GetMany(ctx, storetest.Keyspace, keys, slice)
			for i := 0; err == nil && i < len(r); i++ {
				if r[i].Key != keys[i] || len(r[i].Columns) != 10 {
					err = fmt.Errorf("multiget_slice read row %q with %d columns, want %q with 10", r[i].Key, len(r[i].Columns), keys[i])
				}
			}
			return err
		}, 1, 1},
		// One page of 100 rows, 5 columns each (PER PARTITION LIMIT).
		{"get_range_slices of 100 rows × 5 columns", func() error {
			r, err := st.Range(ctx, storetest.Keyspace, engine.TokenRange{}, engine.Query{ColumnFamily: "Standard1", Predicate: storetest.All(5)}, 100)
			if err == nil && len(r) != 100 {
				err = fmt.Errorf("get_range_slices read %d rows", len(r))
			}
			for i := 0; err == nil && i < len(r); i++ {
				if len(r[i].Columns) != 5 {
					err = fmt.Errorf("get_range_slices read %d columns of row %q", len(r[i].Columns), r[i].Key)
				}
			}
			return err
		}, 1, 1},
		// The keys of 100 rows, then their slices in one statement.
		{"get_range_slices of 100 rows × 5 columns from c50", func() error {
			q := engine.Query{ColumnFamily: "Standard1", Predicate: engine.Predicate{Start: []byte("c50"), Count: 5}}
			r, err := st.Range(ctx, storetest.Keyspace, engine.TokenRange{}, q, 100)
			if err == nil && len(r) != 100 {
				err = fmt.Errorf("get_range_slices read %d rows", len(r))
			}
			for i := 0; err == nil && i < len(r); i++ {
				if len(r[i].Columns) != 5 || string(r[i].Columns[0].Name) != "c50" {
					err = fmt.Errorf("get_range_slices read %d columns of row %q", len(r[i].Columns), r[i].Key)
				}
			}
			return err
		}, 2, 2},
		// get_paged_slice's walk of 4 rows after the previous page's last
		// row (whose token starts the bounds, not included): one page,
		// though the first row of it is skipped.
		{"get_paged_slice's batch of 4 rows", func() error {
			b := engine.TokenRange{Start: dht.Murmur3Partitioner{}.Token(keys[3])}
			r, err := st.Range(ctx, storetest.Keyspace, b, engine.Query{ColumnFamily: "Standard1", Predicate: storetest.All(100)}, 4)
			if err == nil && len(r) != 4 {
				err = fmt.Errorf("get_paged_slice read %d rows", len(r))
			}
			for i := 0; err == nil && i < len(r); i++ {
				if r[i].Key == keys[3] || len(r[i].Columns) != 100 {
					err = fmt.Errorf("get_paged_slice read row %q with %d columns", r[i].Key, len(r[i].Columns))
				}
			}
			return err
		}, 1, 1},
	} {
		requests, statements := count(t, c.call)
		if requests != c.requests || statements != c.statements {
			t.Errorf("%s: %v requests of %v statements, want %v of %v", c.name, requests, statements, c.requests, c.statements)
		}
	}
}
