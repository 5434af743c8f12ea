package server

import "github.com/prometheus/client_golang/prometheus"

// metrics are the connection layer's figures on /metrics.
type metrics struct {
	open     prometheus.Gauge
	accepted prometheus.Counter
	refused  *prometheus.CounterVec
	closed   *prometheus.CounterVec
	bytesIn  prometheus.Counter
	bytesOut prometheus.Counter
}

func newMetrics(reg prometheus.Registerer) *metrics {
	m := &metrics{
		open: prometheus.NewGauge(prometheus.GaugeOpts{Name: "thriftd_server_connections_open",
			Help: "Client connections open now."}),
		accepted: prometheus.NewCounter(prometheus.CounterOpts{Name: "thriftd_server_connections_accepted_total",
			Help: "Client connections accepted, refused ones included."}),
		refused: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "thriftd_server_connections_refused_total",
			Help: "Connections closed as soon as accepted, by reason (limit: -max-connections were open)."}, []string{"reason"}),
		closed: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "thriftd_server_connections_closed_total",
			Help: "Connections ended, by reason: client, idle_timeout, request_timeout, protocol_error, oversize, truncated, read_error, shutdown, panic, tls_handshake, tls_handshake_timeout, tls_on_plain."},
			[]string{"reason"}),
		bytesIn: prometheus.NewCounter(prometheus.CounterOpts{Name: "thriftd_server_received_bytes_total",
			Help: "Bytes read from client connections."}),
		bytesOut: prometheus.NewCounter(prometheus.CounterOpts{Name: "thriftd_server_sent_bytes_total",
			Help: "Bytes written to client connections."}),
	}
	m.refused.WithLabelValues("limit")
	for _, r := range closeLabels {
		m.closed.WithLabelValues(r)
	}
	reg.MustRegister(m.open, m.accepted, m.refused, m.closed, m.bytesIn, m.bytesOut)
	return m
}

// closeLabels maps the reason of a connection's closing log line to its
// label on thriftd_server_connections_closed_total.
var closeLabels = map[string]string{
	"client closed":              "client",
	"reply not delivered":        "client",
	"request abandoned":          "client",
	"idle timeout":               "idle_timeout",
	"request timeout":            "request_timeout",
	"malformed request":          "protocol_error",
	"size limit exceeded":        "oversize",
	"truncated request":          "truncated",
	"read error":                 "read_error",
	"server shutting down":       "shutdown",
	"closed by server":           "shutdown",
	"panic":                      "panic",
	"tls handshake failed":       "tls_handshake",
	"tls handshake timeout":      "tls_handshake_timeout",
	"tls client on a plain port": "tls_on_plain",
}

func closeLabel(reason string) string {
	if l, ok := closeLabels[reason]; ok {
		return l
	}
	return "read_error"
}

// countBytes adds what c read and wrote since it was last counted.
func (c *conn) countBytes() {
	if c.t == nil {
		return
	}
	m := c.srv.metrics
	if d := c.t.bytesRead - c.countedIn; d > 0 {
		m.bytesIn.Add(float64(d))
		c.countedIn = c.t.bytesRead
	}
	if d := c.t.bytesWritten - c.countedOut; d > 0 {
		m.bytesOut.Add(float64(d))
		c.countedOut = c.t.bytesWritten
	}
}
