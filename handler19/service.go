// Package handler19 is the Thrift service of Cassandra 0.7 to 2.1 (the 19.x
// API of cassandra19.thrift): it validates every call as Cassandra 1.2.19's
// CassandraServer and ThriftValidation did (same checks, same order, same
// messages), translates it into engine Queries and Mutations, and turns the
// results and errors back into the IDL's structs and exceptions. Where 1.2
// lacks a call, 2.1.21 is followed.
//
// It is the sibling of package handler, the 0.6 service: both run over the
// same engine.Store and the same schema, neither imports the other, and
// package dialect chooses between them per call. docs/api.md lists what a
// client gets from each method and where thriftd differs from the real
// server.
package handler19

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/thrift/lib/go/thrift"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/thriftd/thriftd/auth"
	"github.com/thriftd/thriftd/dht"
	"github.com/thriftd/thriftd/engine"
	"github.com/thriftd/thriftd/gen-go/cassandra19"
	"github.com/thriftd/thriftd/marshal"
	"github.com/thriftd/thriftd/rpcmetrics"
	"github.com/thriftd/thriftd/schema"
)

// Options is everything a Service needs. Schema and Store are required.
type Options struct {
	// Schema returns the current schema; it is called once per call, so a
	// schema changed at run time is seen by the next call.
	Schema func() *schema.Schema
	// Store holds the data.
	Store engine.Store
	// ClusterName is what describe_cluster_name answers; empty means the
	// schema's.
	ClusterName string
	// ParseType resolves a type name to the type whose order, validation
	// and messages are those of Cassandra 1.2. Column families declared in
	// storage-conf.xml hold 0.6's comparators, which validate with 0.6's
	// messages; the 19.x service validates through the type of the same
	// name that ParseType returns. Nil keeps the schema's types.
	ParseType func(name string) (marshal.Comparator, error)
	// Guard decides logins and permissions (package auth's Guard); nil
	// lets every client in without one and checks no permission.
	Guard auth.Gate
	// Changer applies the system_* calls' schema changes; nil refuses them.
	Changer SchemaChanger
	// SchemaVersions answers describe_schema_versions (the store's
	// SchemaVersions); nil answers the schema's Version on this node.
	SchemaVersions func(ctx context.Context) (map[string][]string, error)
	// NodeAddress is the address clients dial, reported by describe_ring
	// and describe_token_map; NodeToken is this node's ring token.
	NodeAddress string
	NodeToken   dht.Token
	// Timeout bounds the calls that read many rows, as the real server's
	// rpc timeouts did; 0 means none. A store that bounds each of its
	// requests itself (engine.RequestTimeLimiter) gets none.
	Timeout time.Duration
	// CQLHosts are the native-protocol contact points (HOST:PORT) of the
	// Cassandra cluster the store is on, which the refusal of the CQL
	// thriftd does not serve names (cql.go); empty on other stores.
	CQLHosts []string
	// Logger receives internal errors; nil means slog.Default().
	Logger *slog.Logger
	// Metrics receives the service's figures, shared with the 0.6
	// service; nil keeps them unexported.
	Metrics *rpcmetrics.Metrics
}

// Service is the state shared by every connection. It is safe for
// concurrent use.
type Service struct {
	schema      func() *schema.Schema
	store       engine.Store
	cas         engine.CASStore // the store's compare-and-set, nil without one (cas.go)
	clusterName string
	parseType   func(string) (marshal.Comparator, error)
	guard       auth.Gate
	changer     SchemaChanger
	// schemaVersions is Options.SchemaVersions.
	schemaVersions func(ctx context.Context) (map[string][]string, error)
	nodeAddress    string
	nodeToken      dht.Token
	timeout        time.Duration
	// errCQL refuses the CQL not served over Thrift.
	errCQL  error
	log     *slog.Logger
	metrics *rpcmetrics.Metrics

	// types caches ParseType by type name.
	types sync.Map // string -> marshal.Comparator
	// families are the families of the latest schema version a call
	// named, resolved (family.go).
	families atomic.Pointer[families]
}

// New returns a Service. It panics if o.Schema or o.Store is nil, a wiring
// mistake rather than a runtime condition.
func New(o Options) *Service {
	if o.Schema == nil || o.Store == nil {
		panic("handler19: Options.Schema and Options.Store are required")
	}
	m := o.Metrics
	if m == nil {
		m = rpcmetrics.New(prometheus.NewRegistry())
	}
	for name := range cassandra19.NewCassandraProcessor(nil).ProcessorMap() {
		m.Declare(name)
	}
	s := &Service{
		schema:         o.Schema,
		store:          o.Store,
		metrics:        m,
		clusterName:    o.ClusterName,
		parseType:      o.ParseType,
		guard:          o.Guard,
		changer:        o.Changer,
		schemaVersions: o.SchemaVersions,
		nodeAddress:    o.NodeAddress,
		cas:            casStore(o.Store),
		nodeToken:      o.NodeToken,
		timeout:        callTimeout(o.Timeout, o.Store),
		errCQL:         cqlRefusal(o.CQLHosts),
		log:            o.Logger,
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	return s
}

// Connection returns the cassandra19.Cassandra implementation of one
// client connection, which holds that connection's keyspace and login.
// Calls on it are expected one at a time, as a Thrift connection makes
// them.
func (s *Service) Connection() cassandra19.Cassandra {
	return &conn{s: s}
}

// ConnectionFrom is Connection for a client at peer (HOST:PORT) of the
// server at host, which the audit log and the failed-login bound name.
func (s *Service) ConnectionFrom(peer, host string) cassandra19.Cassandra {
	return &conn{s: s, a: auth.Conn{Peer: peer, Host: host}}
}

// conn is one client connection's state (ThriftClientState in the real
// server).
type conn struct {
	s *Service
	// keyspace is set by set_keyspace; "" until then.
	keyspace string
	// a is the connection's login: its user, once logged in.
	a auth.Conn
	// call is the name of the call being made, for the audit log;
	// family, the column family it names ("" when none or several), for
	// the log of its timeout.
	call   string
	family string
	// cqlMajor is the CQL version set_cql_version chose, 2 or 3; 0 until
	// then (cql.go).
	cqlMajor int
}

var _ cassandra19.Cassandra = (*conn)(nil)

// callTimeout is the deadline of a call that reads many rows: d
// (RpcTimeoutInMillis), or none on a store that bounds each of its
// requests itself (engine.RequestTimeLimiter).
func callTimeout(d time.Duration, st engine.Store) time.Duration {
	if engine.LimitsRequestTime(st) {
		return 0
	}
	return d
}

// withTimeout bounds a call that reads many rows.
func (s *Service) withTimeout(ctx context.Context) (context.Context, context.CancelFunc) {
	if s.timeout <= 0 {
		return ctx, func() {}
	}
	return context.WithTimeout(ctx, s.timeout)
}

// typ is the 1.2 type of a comparator or validator: ParseType of its name,
// or c itself. nil (no validator) stays nil.
func (s *Service) typ(c marshal.Comparator) marshal.Comparator {
	if c == nil || s.parseType == nil {
		return c
	}
	name := c.Name()
	if t, ok := s.types.Load(name); ok {
		return t.(marshal.Comparator)
	}
	t, err := s.parseType(name)
	if err != nil {
		// A name the parser does not know keeps its own behaviour.
		t = c
	}
	s.types.Store(name, t)
	return t
}

// Processor returns the Thrift processor of one client connection: the
// generated one, over a fresh Connection, with batch_mutate's and
// atomic_batch_mutate's arguments decoded by hand (decode.go), each method
// counted and timed.
func (s *Service) Processor() thrift.TProcessor {
	return s.processor(s.Connection())
}

// ProcessorFrom is Processor for a client at peer of the server at host.
func (s *Service) ProcessorFrom(peer, host string) thrift.TProcessor {
	return s.processor(s.ConnectionFrom(peer, host))
}

// ProcessorOf is Processor over h, a connection of this service that the
// caller wrapped (package migrate's proxy wraps it to serve an origin
// cluster beside the store).
func (s *Service) ProcessorOf(h cassandra19.Cassandra) thrift.TProcessor {
	return s.processor(h)
}

func (s *Service) processor(h cassandra19.Cassandra) thrift.TProcessor {
	p := cassandra19.NewCassandraProcessor(h)
	p.AddToProcessorMap("batch_mutate", &mutateFunction{name: "batch_mutate", call: h.BatchMutate, result: batchMutateResult})
	p.AddToProcessorMap("atomic_batch_mutate", &mutateFunction{name: "atomic_batch_mutate", call: h.AtomicBatchMutate, result: atomicBatchMutateResult})
	for name, fn := range p.ProcessorMap() {
		p.AddToProcessorMap(name, s.metrics.Wrap(name, fn))
	}
	return p
}
