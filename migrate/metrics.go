package migrate

import "github.com/prometheus/client_golang/prometheus"

// The proxy's figures, all under thriftd_migration_.
type metrics struct {
	targetFailures *prometheus.CounterVec
	replayed       prometheus.Counter
	pending        prometheus.Gauge
	compared       *prometheus.CounterVec
	differences    *prometheus.CounterVec
	originErrors   *prometheus.CounterVec
	reads          *prometheus.GaugeVec
	writes         *prometheus.GaugeVec
}

func newMetrics(reg prometheus.Registerer) *metrics {
	m := &metrics{
		targetFailures: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "thriftd_migration_target_write_failures_total",
			Help: "Writes the origin acknowledged and the target refused or did not answer, by method; each went to the durable log."}, []string{"method"}),
		replayed: prometheus.NewCounter(prometheus.CounterOpts{Name: "thriftd_migration_replayed_writes_total",
			Help: "Writes of the durable log the target took on replay."}),
		pending: prometheus.NewGauge(prometheus.GaugeOpts{Name: "thriftd_migration_pending_writes",
			Help: "Writes in the durable log, not yet on the target."}),
		compared: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "thriftd_migration_reads_compared_total",
			Help: "Reads answered by the origin and compared with the target's answer (reads both), by method."}, []string{"method"}),
		differences: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "thriftd_migration_read_differences_total",
			Help: "Compared reads whose target answer differed from the origin's, by method; each is logged with its key."}, []string{"method"}),
		originErrors: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "thriftd_migration_origin_errors_total",
			Help: "Calls the origin could not be reached for or did not answer in time, by method."}, []string{"method"}),
		reads: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "thriftd_migration_reads",
			Help: "1 for the cluster that answers reads now: origin, both (origin answers, target compared) or target."}, []string{"from"}),
		writes: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "thriftd_migration_writes",
			Help: "1 for the clusters that take writes now: both, or target (origin writes off)."}, []string{"to"}),
	}
	reg.MustRegister(m.targetFailures, m.replayed, m.pending, m.compared, m.differences, m.originErrors, m.reads, m.writes)
	return m
}

func (m *metrics) setModes(r Reads, w Writes) {
	for _, x := range []Reads{ReadOrigin, ReadBoth, ReadTarget} {
		v := 0.0
		if x == r {
			v = 1
		}
		m.reads.WithLabelValues(x.String()).Set(v)
	}
	for _, x := range []Writes{WriteBoth, WriteTarget} {
		v := 0.0
		if x == w {
			v = 1
		}
		m.writes.WithLabelValues(x.String()).Set(v)
	}
}
