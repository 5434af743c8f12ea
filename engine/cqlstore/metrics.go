package cqlstore

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
	"github.com/prometheus/client_golang/prometheus"
)

// The Store's figures on /metrics. Requests and connections are counted
// by the driver's observers (gocql's QueryObserver, BatchObserver and
// ConnectObserver, which Cluster.connect sets on the session) as they
// complete; the hosts are read from the session's view of the ring when
// scraped. The Store is a prometheus.Collector; whoever owns the registry
// registers it (see engine's optional interfaces). The driver's own
// queries on its control connection (ring and schema discovery) are not
// observed, so every request counted is one the store sent.
const (
	metricRequests        = "thriftd_cassandra_requests_total"
	metricStatements      = "thriftd_cassandra_statements_total"
	metricRequestDuration = "thriftd_cassandra_request_duration_seconds"
	metricRetries         = "thriftd_cassandra_retries_total"
	metricHostRequests    = "thriftd_cassandra_host_requests_total"
	metricConnects        = "thriftd_cassandra_connection_attempts_total"
	metricConnectFailures = "thriftd_cassandra_connection_failures_total"
	metricHosts           = "thriftd_cassandra_hosts"
	metricHostsUp         = "thriftd_cassandra_hosts_up"
	// requestBucketMin is the lowest latency bucket: 50 µs, doubling up
	// to about 13 s, past the default 10 s request timeout.
	requestBucketMin = 50e-6
)

var _ prometheus.Collector = (*Store)(nil)

var (
	descHosts = prometheus.NewDesc(metricHosts,
		"Cassandra nodes the driver knows of, up or down.", nil, nil)
	descHostsUp = prometheus.NewDesc(metricHostsUp,
		"Cassandra nodes the driver considers up: those it sends requests to.", nil, nil)
)

// requestKind is what the driver sent: one statement, or a batch of them
// (a row mutation of several statements).
type requestKind int

const (
	kindQuery requestKind = iota
	kindBatch
	kinds
)

var kindNames = [kinds]string{"query", "batch"}

// requestOutcome is how a request ended, in the classes clusterError
// turns into 0.6's exceptions.
type requestOutcome int

const (
	outcomeOK          requestOutcome = iota
	outcomeUnavailable                // known not applied: UnavailableException
	outcomeTimeout                    // in doubt: TimedOutException
	outcomeOther                      // any other error (invalid request, canceled by the client...)
	outcomes
)

var outcomeNames = [outcomes]string{"ok", "unavailable", "timeout", "other"}

// metrics are one Store's figures. Every request passes through observe,
// so its children are resolved once: the hot path only adds to them.
type metrics struct {
	requests        *prometheus.CounterVec
	statements      *prometheus.CounterVec
	duration        *prometheus.HistogramVec
	retries         *prometheus.CounterVec
	hostRequests    *prometheus.CounterVec
	connects        *prometheus.CounterVec
	connectFailures *prometheus.CounterVec

	byOutcome [kinds][outcomes]prometheus.Counter
	inKind    [kinds]prometheus.Counter
	latency   [kinds]prometheus.Observer
	retried   [kinds]prometheus.Counter
	// perHost caches each host's request counter by the driver's
	// *HostInfo, which lives as long as the host is in the ring: the
	// label is the host's address, read under the host's lock, once.
	perHost sync.Map
	// rec is the statement recording in progress, nil when none (record.go).
	rec atomic.Pointer[recording]
}

func newMetrics() *metrics {
	m := &metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Name: metricRequests,
			Help: "Requests sent to the Cassandra cluster, each attempt counted, by kind (query, batch) and outcome (ok, unavailable, timeout, other)."},
			[]string{"kind", "outcome"}),
		statements: prometheus.NewCounterVec(prometheus.CounterOpts{Name: metricStatements,
			Help: "CQL statements sent to the Cassandra cluster, each attempt counted, by the kind of request that carried them (query: one; batch: all of the batch's)."},
			[]string{"kind"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: metricRequestDuration,
			Help:    "Time from sending a request to the Cassandra cluster to its answer, by kind.",
			Buckets: prometheus.ExponentialBuckets(requestBucketMin, 2, 19)}, []string{"kind"}),
		retries: prometheus.NewCounterVec(prometheus.CounterOpts{Name: metricRetries,
			Help: "Attempts after a request's first (the store retries only reads), by kind; each is also in requests_total."},
			[]string{"kind"}),
		hostRequests: prometheus.NewCounterVec(prometheus.CounterOpts{Name: metricHostRequests,
			Help: "Requests sent to the Cassandra cluster, by the node (address:port) that coordinated them."},
			[]string{"host"}),
		connects: prometheus.NewCounterVec(prometheus.CounterOpts{Name: metricConnects,
			Help: "Connections the driver opened or tried to open, by node (address:port)."},
			[]string{"host"}),
		connectFailures: prometheus.NewCounterVec(prometheus.CounterOpts{Name: metricConnectFailures,
			Help: "Connection attempts that failed, by node (address:port)."},
			[]string{"host"}),
	}
	for k := range kinds {
		for o := range outcomes {
			m.byOutcome[k][o] = m.requests.WithLabelValues(kindNames[k], outcomeNames[o])
		}
		m.inKind[k] = m.statements.WithLabelValues(kindNames[k])
		m.latency[k] = m.duration.WithLabelValues(kindNames[k])
		m.retried[k] = m.retries.WithLabelValues(kindNames[k])
	}
	return m
}

// ObserveQuery implements gocql.QueryObserver: called once per attempt
// (each page of a paged read is one).
func (m *metrics) ObserveQuery(ctx context.Context, q gocql.ObservedQuery) {
	noteCoordinator(ctx, q.Host)
	if r := m.rec.Load(); r != nil {
		r.query(q)
	}
	m.inKind[kindQuery].Inc()
	m.observe(kindQuery, q.Start, q.End, q.Attempt, q.Host, q.Err)
}

// ObserveBatch implements gocql.BatchObserver: called once per attempt
// of a whole batch.
func (m *metrics) ObserveBatch(ctx context.Context, b gocql.ObservedBatch) {
	noteCoordinator(ctx, b.Host)
	if r := m.rec.Load(); r != nil {
		r.batch(b)
	}
	m.inKind[kindBatch].Add(float64(len(b.Statements)))
	m.observe(kindBatch, b.Start, b.End, b.Attempt, b.Host, b.Err)
}

func (m *metrics) observe(k requestKind, start, end time.Time, attempt int, host *gocql.HostInfo, err error) {
	m.byOutcome[k][outcomeOf(err)].Inc()
	m.latency[k].Observe(end.Sub(start).Seconds())
	if attempt > 0 {
		m.retried[k].Inc()
	}
	if host == nil {
		return
	}
	c, ok := m.perHost.Load(host)
	if !ok {
		c, _ = m.perHost.LoadOrStore(host, m.hostRequests.WithLabelValues(host.ConnectAddressAndPort()))
	}
	c.(prometheus.Counter).Inc()
}

// ObserveConnect implements gocql.ConnectObserver: called for every
// connection the driver dials, the control connection's included.
func (m *metrics) ObserveConnect(c gocql.ObservedConnect) {
	if c.Host == nil {
		return
	}
	addr := c.Host.ConnectAddressAndPort()
	m.connects.WithLabelValues(addr).Inc()
	// The failures' series exists from a host's first dial, at 0, so that
	// a dashboard or an alert's rate() sees the first failure.
	failures := m.connectFailures.WithLabelValues(addr)
	if c.Err != nil {
		failures.Inc()
	}
}

// outcomeOf classes a request's error as clusterError reports it to the
// client. A deadline passing is the request timeout (Store.withRequestTimeout); a
// context the client canceled is neither unavailable nor in doubt.
func outcomeOf(err error) requestOutcome {
	switch {
	case err == nil:
		return outcomeOK
	case errors.Is(err, context.DeadlineExceeded):
		return outcomeTimeout
	case errors.Is(err, context.Canceled):
		return outcomeOther
	case notApplied(err):
		return outcomeUnavailable
	case inDoubt(err):
		return outcomeTimeout
	}
	return outcomeOther
}

func (m *metrics) describe(ch chan<- *prometheus.Desc) {
	m.requests.Describe(ch)
	m.statements.Describe(ch)
	m.duration.Describe(ch)
	m.retries.Describe(ch)
	m.hostRequests.Describe(ch)
	m.connects.Describe(ch)
	m.connectFailures.Describe(ch)
}

func (m *metrics) collect(ch chan<- prometheus.Metric) {
	m.requests.Collect(ch)
	m.statements.Collect(ch)
	m.duration.Collect(ch)
	m.retries.Collect(ch)
	m.hostRequests.Collect(ch)
	m.connects.Collect(ch)
	m.connectFailures.Collect(ch)
}

// Describe implements prometheus.Collector.
func (st *Store) Describe(ch chan<- *prometheus.Desc) {
	if st.metrics != nil {
		st.metrics.describe(ch)
	}
	ch <- descHosts
	ch <- descHostsUp
}

// Collect implements prometheus.Collector. The counters stay readable
// once the store is closed; the hosts are reported only while it is open.
func (st *Store) Collect(ch chan<- prometheus.Metric) {
	if st.metrics != nil {
		st.metrics.collect(ch)
	}
	if err := st.enter(); err != nil {
		return
	}
	defer st.leave()
	hosts := st.session.GetHosts()
	up := 0
	for _, h := range hosts {
		if h.IsUp() {
			up++
		}
	}
	ch <- prometheus.MustNewConstMetric(descHosts, prometheus.GaugeValue, float64(len(hosts)))
	ch <- prometheus.MustNewConstMetric(descHostsUp, prometheus.GaugeValue, float64(up))
}
