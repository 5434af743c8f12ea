package dialect

import (
	"net"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/thriftd/thriftd/dht"
	"github.com/thriftd/thriftd/engine/ldbstore"
	"github.com/thriftd/thriftd/handler"
	"github.com/thriftd/thriftd/handler19"
	"github.com/thriftd/thriftd/rpcmetrics"
	"github.com/thriftd/thriftd/schema"
)

// BenchmarkNewConnection is what a connection costs before its first
// call: the processors of both APIs over thriftd's services, with their
// figures, and the routes between them. Clients that connect per request
// (PHP's) pay it on every call.
func BenchmarkNewConnection(b *testing.B) {
	p, err := dht.Lookup("Murmur3Partitioner")
	if err != nil {
		b.Fatal(err)
	}
	s := &schema.Schema{ClusterName: "Test", Partitioner: p, Keyspaces: map[string]*schema.Keyspace{}}
	st, err := ldbstore.Open(b.TempDir(), s, ldbstore.Options{PurgeInterval: -1})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	m := rpcmetrics.New(prometheus.NewRegistry())
	svc := handler.New(handler.Options{Schema: s, Store: st, Metrics: m})
	svc19 := handler19.New(handler19.Options{Schema: func() *schema.Schema { return s }, Store: st, Metrics: m})
	r := &Router{V06: svc.Processor, V19: svc19.Processor, V06From: svc.ProcessorFrom, V19From: svc19.ProcessorFrom}
	client, srv := net.Pipe()
	defer client.Close()
	defer srv.Close()
	b.ReportAllocs()
	for b.Loop() {
		if r.NewProcessor(srv).ProcessorMap()["get_slice"] == nil {
			b.Fatal("no get_slice")
		}
	}
}
